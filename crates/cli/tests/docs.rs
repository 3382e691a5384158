//! Shell completions come from the clap definitions: they list every
//! subcommand, parse in the real shell, offer the profiles' names for
//! `--profile` and, in bash, the history's run ids for `show`, `export` and
//! `rm`. Man pages come from the reference in `docs/`: each has the sections
//! a man page should (examples, exit status, environment, files), sets
//! without a roff warning, and is named as the top page refers to it.

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

/// A man page as `man -l` sets it for a reader, or `None` (and a skip)
/// without man.
fn read_by_man(page: &str) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page.1");
    std::fs::write(&file, page).unwrap();
    match std::process::Command::new("man")
        .env("MANWIDTH", "100")
        .arg("-l")
        .arg(&file)
        .output()
    {
        Ok(out) if out.status.success() => Some(stdout_of(&out)),
        Ok(out) => panic!("man -l failed: {}", stderr_of(&out)),
        Err(e) => {
            testbed::skip(format!("man -l: {e}"));
            None
        }
    }
}

#[test]
fn the_man_pages_of_run_and_fio_teach_with_examples_exit_status_and_environment() {
    for (sub, exit_words) in [("run", "130"), ("fio", "128")] {
        let out = diskbench().args(["man", sub]).output().unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
        let roff = stdout_of(&out);
        let Some(text) = read_by_man(&roff) else {
            return;
        };
        for section in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "EXAMPLES",
            "EXIT STATUS",
            "ENVIRONMENT",
            "FILES",
        ] {
            assert!(
                text.lines().any(|l| l == section),
                "{sub}: no {section} heading in\n{text}"
            );
        }
        let section = |name: &str| {
            let at = text.find(&format!("\n{name}\n")).unwrap();
            let rest = &text[at + name.len() + 2..];
            let end = rest.find("\n\n\n").or_else(|| {
                rest.char_indices()
                    .find(|(i, c)| c.is_ascii_uppercase() && rest[..*i].ends_with('\n'))
                    .map(|(i, _)| i)
            });
            rest[..end.unwrap_or(rest.len())].to_string()
        };
        let examples = section("EXAMPLES");
        assert!(
            examples.contains(&format!("diskbench {sub} ")),
            "{examples}"
        );
        let exit = section("EXIT STATUS");
        assert!(exit.contains(exit_words), "{sub}: {exit}");
        let env = section("ENVIRONMENT");
        for var in ["DISKBENCH_DB", "KUBECONFIG", "PGPASSWORD"] {
            assert!(env.contains(var), "{sub}: {var} not in {env}");
        }
        assert!(section("FILES").contains("history.sqlite3"), "{sub}");
        // The page's prose, not clap's one-line stub.
        assert!(section("DESCRIPTION").len() > 2000, "{sub}");
    }
}

#[test]
fn every_man_page_sets_without_a_roff_warning() {
    let top = stdout_of(&diskbench().arg("man").output().unwrap());
    let bad = diskbench().args(["man", "nosuch"]).output().unwrap();
    let list = stderr_of(&bad);
    let names = &list[list.find("the pages are: ").unwrap() + 15..];
    let names: Vec<&str> = names[..names.find(';').unwrap()].split(", ").collect();
    assert!(names.len() >= 25, "{names:?}");
    for name in names {
        let page = if name == "diskbench" {
            top.clone()
        } else {
            stdout_of(&diskbench().args(["man", name]).output().unwrap())
        };
        // Undefined macros, bad escapes and characters, missing arguments:
        // what would show as garbage. (A line too long to fill, such as a
        // URL, is not one.)
        let out = std::process::Command::new("groff")
            .args([
                "-man", "-Tutf8", "-z", "-wmac", "-wchar", "-wreg", "-wdelim", "-wel",
            ])
            .args(["-wmissing", "-wrange", "-Wbreak"])
            .stdin(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = out else {
            testbed::skip("groff is not installed");
            return;
        };
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(page.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.stderr.is_empty(), "{name}: {}", stderr_of(&out));
    }
}

/// What bash offers for the command line `words` (the last one being
/// completed), with the completion script diskbench prints.
fn bash_offers(words: &[&str], db: &std::path::Path) -> Vec<String> {
    let script = stdout_of(&diskbench().args(["completions", "bash"]).output().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("diskbench.bash");
    std::fs::write(&file, script).unwrap();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let n = words.len();
    let program = format!(
        "source {}; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE=\"${{COMP_WORDS[*]}}\"; \
         COMP_POINT=${{#COMP_LINE}}; _diskbench_runs diskbench '{}' '{}'; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        file.display(),
        quoted.join(" "),
        n - 1,
        words[n - 1],
        words[n - 2],
    );
    let bin = assert_cmd::cargo::cargo_bin("diskbench");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &program])
        .env("PATH", path)
        .env("DISKBENCH_DB", db)
        .output()
        .expect("bash");
    assert!(out.status.success(), "{}", stderr_of(&out));
    stdout_of(&out).lines().map(str::to_string).collect()
}

#[test]
fn bash_completes_profile_names_and_the_histories_run_ids() {
    let dir = real_dir();
    let db = dir.path().join("h.sqlite3");
    let profiles = bash_offers(&["diskbench", "run", "--profile", ""], &db);
    assert!(profiles.contains(&"crystal".to_string()), "{profiles:?}");
    assert!(profiles.contains(&"default".to_string()), "{profiles:?}");
    let kube = bash_offers(&["diskbench", "kube", "run", "--profile", "cr"], &db);
    assert_eq!(kube, ["crystal"]);
    for _ in 0..2 {
        let out = diskbench()
            .args([
                "fio",
                "--name=t",
                "--ioengine=null",
                "--rw=read",
                "--size=1m",
            ])
            .arg(format!("--db={}", db.display()))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr_of(&out));
    }
    let ids = stdout_of(
        &diskbench()
            .args(["history", "--format", "csv"])
            .arg(format!("--db={}", db.display()))
            .output()
            .unwrap(),
    );
    let ids: Vec<String> = ids
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    for sub in ["show", "export", "rm"] {
        assert_eq!(bash_offers(&["diskbench", sub, ""], &db), ids, "{sub}");
    }
    // The history --db names, not the default one.
    let other = dir.path().join("empty.sqlite3");
    let named = format!("--db={}", db.display());
    assert_eq!(bash_offers(&["diskbench", "show", &named, ""], &other), ids);
    // A flag's values are still clap's.
    let formats = bash_offers(&["diskbench", "export", "1", "--format", ""], &db);
    assert!(formats.contains(&"fio-json".to_string()), "{formats:?}");
}
