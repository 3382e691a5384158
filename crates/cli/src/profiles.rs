//! Named profiles for `diskbench run --profile NAME`: the seeds' workloads
//! as data. A profile is a text file in `profiles/`: a `# origin:` line
//! that says where it comes from, tests in fio's command-line form (one per
//! line, run like the default suite on one shared test file), and steps:
//! other diskbench commands (`ping`, `meta`, `gobonniego`) run after the
//! tests, with `{dir}`, `{size_gib}` and `{runtime_s}` filled in.
//! `diskbench profiles` lists them.

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
}

pub fn find(name: &str) -> Result<&'static Profile, String> {
    PROFILES.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        format!(
            "no profile '{name}': choose one of {} (diskbench profiles lists them)",
            names.join(", ")
        )
    })
}

/// A step's arguments with its placeholders filled in.
pub fn step_args(step: &str, dir: &str, size_gib: f64, runtime_s: u64) -> Vec<String> {
    step.split_whitespace()
        .map(|w| {
            w.replace("{dir}", dir)
                .replace("{size_gib}", &format!("{size_gib}"))
                .replace("{runtime_s}", &runtime_s.to_string())
        })
        .collect()
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
        what.extend(p.steps().iter().map(|s| s.to_string()));
        out.push_str(&format!(
            "{:<11} {}\n{:<11} runs: {}\n",
            p.name,
            p.origin(),
            "",
            what.join("; then ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(find("ssd").unwrap_err().contains("crystal"));
        assert_eq!(
            step_args("gobonniego -dir {dir} -size {size_gib}", "/m", 0.25, 7),
            ["gobonniego", "-dir", "/m", "-size", "0.25"]
        );
    }
}
