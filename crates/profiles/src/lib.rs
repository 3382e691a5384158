//! Named profiles for `diskbench run --profile NAME`: the workloads of the
//! articles and tools diskbench grew from (a 2018 benchmark of cloud disks
//! with GoBonnieGo, fio jobs for MySQL, an EBS benchmark, a VPS comparison,
//! bonnie++ on a virtual server, CrystalDiskMark) as data, and how a
//! profile's run is shown (CrystalDiskMark's grid for a best-of profile).
//! This crate reads its own texts and renders results; it runs nothing and
//! prints nothing: `run` does both.
//! A profile is a text file in `profiles/`: a `# origin:` line that says
//! what it is, a `# source:` line that names where it comes from in full
//! (title | author or site | year | link), tests in fio's command-line form (one per
//! line, run like the default suite on one shared test file), and steps:
//! other diskbench commands (`ping`, `meta`, `gobonniego`) run after the
//! tests, with placeholders filled in (see [`step_args`]). `diskbench
//! profiles` lists them.
//!
//! `--size` and `--runtime` shrink every part of a profile, steps included,
//! so a profile asked to be short is short: a step's time comes from
//! `{runtime}` and its kin, never from a fixed count of seconds.
//!
//! A `# passes: N` line makes the profile keep the best of N passes of each
//! test, as CrystalDiskMark does (`--passes` changes N); [`crystal`] prints
//! such a profile as CrystalDiskMark's grid and says in the JSON which pass
//! was kept.

pub mod crystal;
pub mod shape;

use std::time::Duration;

/// A profile asked for that is not there, or a number of passes asked of a
/// profile that runs each test once; each message names the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    #[error("no profile '{name}': choose one of {known} (diskbench profiles lists them)")]
    Unknown { name: String, known: String },
    #[error(
        "--passes is for a profile that keeps the best of several passes ({best_of}); \
         profile {profile} runs each test once: leave --passes out"
    )]
    NotBestOf {
        best_of: String,
        profile: &'static str,
    },
}

/// Where a profile comes from, named in full so a reader can find it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    pub title: &'static str,
    /// The author, the site, or both.
    pub by: &'static str,
    pub year: u16,
    pub link: &'static str,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "\"{}\", {}, {}: {}",
            self.title, self.by, self.year, self.link
        )
    }
}

#[derive(Debug)]
pub struct Profile {
    pub name: &'static str,
    text: &'static str,
}

pub const PROFILES: [Profile; 7] = [
    Profile {
        name: "default",
        text: include_str!("profiles/default.profile"),
    },
    Profile {
        name: "gobonniego",
        text: include_str!("profiles/gobonniego.profile"),
    },
    Profile {
        name: "mysql-16k",
        text: include_str!("profiles/mysql-16k.profile"),
    },
    Profile {
        name: "ebs-4k",
        text: include_str!("profiles/ebs-4k.profile"),
    },
    Profile {
        name: "vps-4k",
        text: include_str!("profiles/vps-4k.profile"),
    },
    Profile {
        name: "bonnie",
        text: include_str!("profiles/bonnie.profile"),
    },
    Profile {
        name: "crystal",
        text: include_str!("profiles/crystal.profile"),
    },
];

/// The subcommands a profile's step may run (checked by the tests).
#[cfg(test)]
const STEP_COMMANDS: [&str; 3] = ["ping", "meta", "gobonniego"];

impl Profile {
    /// The article or tool the profile comes from, from its `# source:`
    /// line; `None` when the line is missing or has fewer than four parts.
    pub fn source(&self) -> Option<Source> {
        let line = self
            .text
            .lines()
            .find_map(|l| l.strip_prefix("# source:"))?;
        let mut parts = line.split('|').map(str::trim);
        Some(Source {
            title: parts.next()?,
            by: parts.next()?,
            year: parts.next()?.parse().ok()?,
            link: parts.next()?,
        })
    }

    pub fn origin(&self) -> &'static str {
        self.text
            .lines()
            .find_map(|l| l.strip_prefix("# origin:"))
            .map_or("", str::trim)
    }

    fn lines(&self) -> impl Iterator<Item = &'static str> {
        self.text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
    }

    /// The tests, each a line of fio options.
    pub fn tests(&self) -> Vec<&'static str> {
        self.lines().filter(|l| l.starts_with("--")).collect()
    }

    /// The steps, each a diskbench command line with placeholders.
    pub fn steps(&self) -> Vec<&'static str> {
        self.lines().filter(|l| !l.starts_with("--")).collect()
    }

    /// For a best-of profile, its default number of passes (`# passes: N`).
    pub fn default_passes(&self) -> Option<u32> {
        self.text
            .lines()
            .find_map(|l| l.strip_prefix("# passes:"))
            .and_then(|n| n.trim().parse().ok())
    }

    /// The tests to run, in order: each test's passes one after another
    /// (as CrystalDiskMark runs them), named `NAME-passK` when there are
    /// several so each pass is its own job in the results.
    pub fn test_lines(&self, passes: u32) -> Vec<String> {
        let mut out = Vec::new();
        for line in self.tests() {
            for k in 1..=passes {
                out.push(match passes {
                    1 => line.to_string(),
                    _ => line
                        .split_whitespace()
                        .map(|w| match w.strip_prefix("--name=") {
                            Some(name) => format!("--name={}", crystal::pass_name(name, k)),
                            None => w.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(" "),
                });
            }
        }
        out
    }

    /// The passes to run, `asked` by `--passes` or else the profile's
    /// default: 1 for a profile that is not best-of, where asking is a
    /// usage error rather than silently ignored.
    pub fn passes(&self, asked: Option<u32>) -> Result<u32, ProfileError> {
        match (asked, self.default_passes()) {
            (Some(n), Some(_)) => Ok(n),
            (None, Some(n)) => Ok(n),
            (None, None) => Ok(1),
            (Some(_), None) => {
                let best_of: Vec<&str> = PROFILES
                    .iter()
                    .filter(|p| p.default_passes().is_some())
                    .map(|p| p.name)
                    .collect();
                Err(ProfileError::NotBestOf {
                    best_of: best_of.join(", "),
                    profile: self.name,
                })
            }
        }
    }
}

pub fn find(name: &str) -> Result<&'static Profile, ProfileError> {
    PROFILES.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        ProfileError::Unknown {
            name: name.to_string(),
            known: names.join(", "),
        }
    })
}

/// A step's arguments with its placeholders filled in: `{dir}`,
/// `{size_gib}` (`--size` in GiB), `{runtime_s}` (`--runtime` in seconds,
/// fractions kept), `{runtime}` (the same as `NNNms`, which every
/// diskbench command's time options read) and `{runtime/N}` (a tenth,
/// say, to spread N requests over the runtime).
/// The measuring time a profile's run should take with `runtime` per test:
/// each group's longest ramp plus runtime (groups run one after another, a
/// group's jobs at once), and for a `meta` step its six phases of the
/// runtime (at least 500 ms each). Laying out the files is not in it: it
/// depends on the disk, and the caller says so.
pub fn expected_time(
    groups: &[Vec<model::JobSpec>],
    steps: &[&str],
    runtime: Duration,
) -> Duration {
    let tests: Duration = groups
        .iter()
        .map(|g| {
            g.iter()
                .map(|j| j.ramp_time + j.runtime.unwrap_or_default())
                .max()
                .unwrap_or_default()
        })
        .sum();
    let meta = steps.iter().filter(|s| s.starts_with("meta ")).count() as u32;
    tests + runtime.max(Duration::from_millis(500)) * 6 * meta
}

pub fn step_args(step: &str, dir: &str, size_gib: f64, runtime: Duration) -> Vec<String> {
    let ms = |d: Duration| format!("{}ms", d.as_millis().max(1));
    step.split_whitespace()
        .map(|w| {
            let mut w = w
                .replace("{dir}", dir)
                .replace("{size_gib}", &format!("{size_gib}"))
                .replace("{runtime_s}", &format!("{}", runtime.as_secs_f64()))
                .replace("{runtime}", &ms(runtime));
            while let Some((head, rest)) = w.split_once("{runtime/") {
                let Some((n, tail)) = rest.split_once('}') else {
                    break;
                };
                let parts = n.parse::<u32>().unwrap_or(1).max(1);
                w = format!("{head}{}{tail}", ms(runtime / parts));
            }
            w
        })
        .collect()
}

/// The table of a run: CrystalDiskMark's grid for a best-of profile,
/// the summary table for the others.
pub fn table(profile: &Profile, result: &model::RunResult, passes: u32) -> String {
    match profile.default_passes() {
        Some(_) => crystal::grid(result, passes),
        None => report::table::summary_table(result),
    }
}

/// The JSON of a run, with a best-of profile's passes (every pass's
/// figures and the one kept) under `profile`.
pub fn json_document(profile: &Profile, result: &model::RunResult, passes: u32) -> String {
    let text = report::json::render(result);
    if profile.default_passes().is_none() {
        return text;
    }
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(mut doc) => {
            doc["profile"] = crystal::json(result, profile.name, passes);
            serde_json::to_string_pretty(&doc).unwrap_or(text)
        }
        Err(_) => text,
    }
}

/// `diskbench profiles`: each profile with its origin and what it runs.
pub fn list_text() -> String {
    let mut out = String::new();
    for p in &PROFILES {
        let tests = p.tests();
        let mut what: Vec<String> = Vec::new();
        if !tests.is_empty() {
            let names: Vec<&str> = tests
                .iter()
                .filter_map(|t| t.split_whitespace().find_map(|w| w.strip_prefix("--name=")))
                .collect();
            what.push(format!("{} tests ({})", tests.len(), names.join(", ")));
        }
        if let Some(n) = p.default_passes() {
            what.push(format!(
                "each test {n} times, the best pass kept (--passes N)"
            ));
        }
        what.extend(p.steps().iter().map(|s| s.to_string()));
        out.push_str(&format!("{:<11} {}\n", p.name, p.origin()));
        if let Some(source) = p.source() {
            out.push_str(&format!("{:<11} from: {source}\n", ""));
        }
        out.push_str(&format!("{:<11} runs: {}\n", "", what.join("; then ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every profile names its source in full (title, author or site, year,
    /// link), and `diskbench profiles` says it in words that stand for
    /// themselves: no "seeds", no study named only by a nickname.
    #[test]
    fn every_profile_names_its_source_in_full() {
        for p in &PROFILES {
            let s = p
                .source()
                .unwrap_or_else(|| panic!("{}: no '# source: title | by | year | link'", p.name));
            assert!(s.title.len() > 3, "{}: {s:?}", p.name);
            assert!(s.by.len() > 3, "{}: {s:?}", p.name);
            assert!((1990..=2030).contains(&s.year), "{}: {s:?}", p.name);
            assert!(
                s.link.starts_with("https://") || s.link.starts_with("http://"),
                "{}: {s:?}",
                p.name
            );
            assert!(!s.link.contains(' '), "{}: {s:?}", p.name);
        }
        let listed = list_text();
        for p in &PROFILES {
            let source = p.source().unwrap().to_string();
            assert!(listed.contains(&format!("from: {source}\n")), "{listed}");
        }
        for word in ["seed", "disk-speed study"] {
            assert!(!listed.to_lowercase().contains(word), "{word}: {listed}");
        }
    }

    #[test]
    fn every_profile_has_an_origin_and_runs_something_known() {
        for p in &PROFILES {
            assert!(!p.origin().is_empty(), "{}", p.name);
            assert!(!p.tests().is_empty() || !p.steps().is_empty(), "{}", p.name);
            for t in p.tests() {
                let with_size = std::iter::once("--size=16m").chain(t.split_whitespace());
                fio::parse_args(with_size.map(String::from))
                    .unwrap_or_else(|e| panic!("{}: {t}: {e}", p.name));
            }
            for s in p.steps() {
                let cmd = s.split_whitespace().next().unwrap();
                assert!(STEP_COMMANDS.contains(&cmd), "{}: {s}", p.name);
            }
        }
        assert_eq!(find("crystal").unwrap().tests().len(), 8);
        assert!(find("ssd").unwrap_err().to_string().contains("crystal"));
        assert_eq!(
            step_args(
                "gobonniego -dir {dir} -size {size_gib}",
                "/m",
                0.25,
                Duration::from_secs(7)
            ),
            ["gobonniego", "-dir", "/m", "-size", "0.25"]
        );
    }

    #[test]
    fn every_step_takes_its_time_from_the_runtime() {
        let runtime = Duration::from_millis(1500);
        assert_eq!(
            step_args(
                "ping -i {runtime/10} -w {runtime} -x {runtime_s}",
                "/m",
                1.0,
                runtime
            ),
            ["ping", "-i", "150ms", "-w", "1500ms", "-x", "1.5"]
        );
        for p in &PROFILES {
            for s in p.steps() {
                assert!(s.contains("{runtime"), "{}: {s} ignores --runtime", p.name);
            }
        }
    }

    #[test]
    fn passes_belong_to_best_of_profiles() {
        let crystal = find("crystal").unwrap();
        assert_eq!(crystal.passes(None), Ok(5), "CrystalDiskMark's default");
        assert_eq!(find("default").unwrap().passes(None), Ok(1));
        assert_eq!(crystal.passes(Some(3)), Ok(3));
        let err = find("ebs-4k")
            .unwrap()
            .passes(Some(3))
            .unwrap_err()
            .to_string();
        assert!(err.contains("crystal") && err.contains("ebs-4k"), "{err}");
        let lines = crystal.test_lines(2);
        assert_eq!(lines.len(), 16);
        assert!(
            lines[0].starts_with("--name=SEQ1M-Q8T1-read-pass1 "),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("--name=SEQ1M-Q8T1-read-pass2 "),
            "{}",
            lines[1]
        );
        assert_eq!(crystal.test_lines(1)[0], crystal.tests()[0]);
        assert!(list_text().contains("each test 5 times, the best pass kept"));
    }
}
