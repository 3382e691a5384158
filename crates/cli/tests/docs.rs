//! Shell completions and man pages come from the clap definitions: they list
//! every subcommand, parse in the real shell, and name each page as the
//! top page refers to it.

mod common;
use common::*;

const SUBCOMMANDS: [&str; 6] = ["run", "fio", "ping", "meta", "fileserver", "compare"];

#[test]
fn bash_completions_parse_in_bash_and_know_every_subcommand() {
    let out = diskbench().args(["completions", "bash"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let script = String::from_utf8(out.stdout).unwrap();
    for sub in SUBCOMMANDS {
        assert!(script.contains(sub), "no '{sub}' in the completions");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("diskbench.bash");
    std::fs::write(&file, &script).unwrap();
    match std::process::Command::new("bash")
        .arg("-n")
        .arg(&file)
        .output()
    {
        Ok(check) => assert!(check.status.success(), "{}", stderr_of(&check)),
        Err(e) => testbed::skip(format!("bash -n: {e}")),
    }
}

#[test]
fn man_pages_for_the_tool_and_each_subcommand() {
    let top = diskbench().arg("man").output().unwrap();
    assert!(top.status.success(), "{}", stderr_of(&top));
    let page = String::from_utf8(top.stdout).unwrap();
    assert!(page.contains(".TH diskbench 1"), "{page}");
    for sub in SUBCOMMANDS {
        // The top page lists diskbench-SUB(1); that page exists.
        assert!(page.contains(&format!("diskbench\\-{sub}(1)")), "{sub}");
        let out = diskbench().args(["man", sub]).output().unwrap();
        assert!(out.status.success(), "{sub}: {}", stderr_of(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains(&format!(".TH diskbench-{sub} 1")),
            "{sub}: {text}"
        );
    }
    let bad = diskbench().args(["man", "nosuch"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr_of(&bad).contains("ping"), "{}", stderr_of(&bad));
}
