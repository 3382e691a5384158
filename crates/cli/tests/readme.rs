//! The README is where a new user starts, a guide and not the reference: at
//! most 300 lines, a Quick start in its first 40 with a whole `run` output
//! pasted in (the headline's `IOPS` and `Read MB/s` lines among it), and
//! `compare`, `report` and `chart` examples that run as written against a
//! real history (so a renamed flag cannot leave the README behind). Every
//! command `diskbench --help` lists is documented, in the README or on its
//! page in `docs/` (whose flags `reference.rs` checks).

mod common;
use common::*;
use std::path::Path;

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    std::fs::read_to_string(path).expect("README.md at the top of the repository")
}

/// A page of the reference, `docs/NAME.md`, or `None`.
fn docs_page(name: &str) -> Option<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../docs/{name}.md"));
    std::fs::read_to_string(path).ok()
}

/// The blocks of a fenced language (`text`, `sh`), each as its lines.
fn blocks<'a>(text: &'a str, language: &str) -> Vec<Vec<&'a str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim_start();
        if !inside && t == format!("```{language}") {
            inside = true;
            out.push(Vec::new());
        } else if inside && t == "```" {
            inside = false;
        } else if inside {
            out.last_mut().unwrap().push(line);
        }
    }
    out
}

/// The lines of the README's ```sh blocks.
fn sh_lines(text: &str) -> Vec<&str> {
    let mut inside = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        match (inside, line.trim_start()) {
            (false, "```sh") => inside = true,
            (true, "```") => inside = false,
            (true, l) => lines.push(l),
            _ => {}
        }
    }
    lines
}

/// The subcommands `diskbench --help` lists.
fn subcommands() -> Vec<String> {
    commands_in(&stdout_of(&diskbench().arg("--help").output().unwrap()))
}

#[test]
fn every_command_is_documented_and_compare_report_chart_have_examples() {
    let text = readme();
    let commands = subcommands();
    assert!(commands.len() >= 10, "{commands:?}");
    for c in &commands {
        let in_docs = docs_page(c).is_some_and(|p| p.starts_with(&format!("# diskbench {c}\n")));
        assert!(
            in_docs || text.contains(&format!("`diskbench {c}")),
            "neither the README nor docs/{c}.md documents `diskbench {c}`"
        );
    }
    let examples = sh_lines(&text);
    for c in ["compare", "report", "chart"] {
        assert!(
            examples
                .iter()
                .any(|l| l.starts_with(&format!("diskbench {c} "))),
            "no example of `diskbench {c}` in a sh block"
        );
    }
    // The cost label, which only an error message used to mention.
    let compare = docs_page("compare").expect("docs/compare.md");
    assert!(compare.contains("`--label size=20GiB`"), "the size label");
    for column in ["`cost/month`", "`per 1000 IOPS`", "`per MB/s`"] {
        assert!(compare.contains(column), "{column}");
    }
}

#[test]
fn the_readme_is_a_short_guide_with_a_quick_start_and_a_pasted_run() {
    let text = readme();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() <= 300, "the README has {} lines", lines.len());
    let quick = lines.iter().position(|l| *l == "## Quick start");
    assert!(
        quick.is_some_and(|at| at < 40),
        "no '## Quick start' in the first 40 lines (at {quick:?})"
    );
    // The two commands a fresh machine needs come first; CI runs the second.
    let first = &blocks(&text, "sh")[0];
    assert!(
        first
            .iter()
            .any(|l| l.starts_with("cargo run --release -- run")),
        "{first:?}"
    );
    assert!(
        first
            .iter()
            .any(|l| l.starts_with("cargo test --workspace")),
        "{first:?}"
    );
    // A whole run as it prints: the target block, the table, the headline.
    let pasted = blocks(&text, "text");
    let run = pasted
        .iter()
        .find(|b| b.iter().any(|l| l.starts_with("Target ")));
    let run = run.expect("a pasted `diskbench run` output");
    for start in ["test ", "IOPS ", "Read MB/s ", "Write MB/s ", "How precise"] {
        assert!(
            run.iter().any(|l| l.starts_with(start)),
            "the pasted run has no line starting '{start}'"
        );
    }
    // ... and it is explained: each part is named under it.
    for part in ["target block", "table", "headline", "How precise", "checks"] {
        assert!(
            text.contains(part),
            "the Quick start does not explain {part}"
        );
    }
    // The reference is one link away.
    assert!(text.contains("(docs/README.md)") && text.contains("diskbench man"));
}

/// Saves a null-engine run labelled `disk=DISK` in `db`.
fn save(db: &Path, disk: &str) {
    let out = diskbench()
        .args([
            "fio",
            "--name=t",
            "--ioengine=null",
            "--rw=randrw",
            "--size=16m",
        ])
        .arg(format!("--db={}", db.display()))
        .args(["--label", &format!("disk={disk}"), "--label", "size=20GiB"])
        .args(["--price-gib-month", "0.10"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}

#[test]
fn the_compare_report_and_chart_examples_run_as_written() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    for disk in ["gp2", "gp2", "io1"] {
        save(&db, disk);
    }
    let text = readme();
    let examples: Vec<&str> = sh_lines(&text)
        .into_iter()
        .filter(|l| {
            ["compare", "report", "chart"].iter().any(|c| {
                l.starts_with(&format!("diskbench {c} ")) || *l == format!("diskbench {c}")
            })
        })
        .collect();
    assert!(examples.len() >= 3, "{examples:?}");
    for line in examples {
        let words: Vec<&str> = line.split_whitespace().skip(1).collect();
        let out = diskbench()
            .args(&words)
            .arg(format!("--db={}", db.display()))
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = stderr_of(&out);
        // A soak id of the README's is not in this history: the selection
        // is empty, which is a usage error of its own, not a bad flag.
        if words.contains(&"--soak") {
            assert!(err.contains("no runs in"), "{line}: {err}");
            continue;
        }
        assert!(out.status.success(), "{line}: {err}");
        if let Some(file) = words.iter().position(|w| *w == "-o").map(|i| words[i + 1]) {
            assert!(dir.path().join(file).is_file(), "{line} wrote no {file}");
        }
    }
}
