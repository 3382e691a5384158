//! The runner may not print (ARCHITECTURE.md): what it has to say goes
//! back in its results, or through `runner::notice` to the sink the
//! program set, and the program decides where words go. This test reads
//! the runner's source and fails on any printing macro, so a stray
//! `eprintln!` is caught before it reaches a user's terminal or a
//! library user's stderr.

use std::path::{Path, PathBuf};

const PRINTING: [&str; 5] = ["print!(", "println!(", "eprint!(", "eprintln!(", "dbg!("];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the runner's source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_runner_prints_nothing() {
    let mut files = Vec::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    assert!(files.len() > 20, "the runner's sources: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a readable source file");
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if PRINTING.iter().any(|m| code.contains(m)) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, code));
            }
        }
    }
    assert!(found.is_empty(), "the runner prints:\n{}", found.join("\n"));
}
