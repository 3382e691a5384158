//! The README is where a new user starts: every command `diskbench --help`
//! lists is documented there, `compare`, `report` and `chart` with an
//! example, and those examples run as written against a real history (so a
//! renamed flag cannot leave the README behind).

mod common;
use common::*;
use std::path::Path;

fn readme() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    std::fs::read_to_string(path).expect("README.md at the top of the repository")
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
        assert!(
            text.contains(&format!("`diskbench {c}")),
            "the README does not document `diskbench {c}`"
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
    assert!(text.contains("`--label size=20GiB`"), "the size label");
    for column in ["`cost/month`", "`per 1000 IOPS`", "`per MB/s`"] {
        assert!(text.contains(column), "{column}");
    }
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
