//! The fio jobs of the seed articles (copied unchanged into
//! `crates/fio/tests/fixtures/`) run through `diskbench fio`, shortened with
//! `--size=16m --runtime=1 --time_based` on the command line (which
//! overrides what the jobs say), in a temporary directory, with JSON output
//! and one JSON job per job clone.
//!
//! Where a seed, as the article prints it, cannot run (in real fio 3.33
//! neither), the test asserts the clear error, then applies the smallest
//! substitution and runs the result:
//! - "Adventures in Storageland" (three job sections): `directory=/a/fio` is redirected with
//!   `--directory=TMP`; the files run as they are, `fadvise_hint=0`
//!   included (no posix_fadvise advice, as in fio).
//! - the 2014 EBS benchmark (five command lines, four written as one with
//!   `-rw=<read,write,randread,randwrite>`): `-ioengine=libio` is the
//!   article's typo (fio: "engine libio not loadable"); diskbench refuses it
//!   and suggests libaio; with libaio it runs. `/tmp/testfile` is redirected
//!   with `--filename=TMP/testfile`.
//! - the AWS vs DigitalOcean article (three command lines): the article's web page turned `--` into
//!   en dashes (fio: "unable to open '–randrepeat=1' job file"); diskbench
//!   names the typographic dash. With `--` the lines run as they are, with
//!   `filename=test` in the temporary directory (the current directory);
//!   `--gtod_reduce=1` keeps the latencies and says so on stderr.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

const SHORTEN: [&str; 5] = [
    "--size=16m",
    "--runtime=1",
    "--time_based",
    "--output-format=json",
    "--no-save",
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fio/tests/fixtures")
        .join(name)
}

fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).expect("fixture")
}

/// `diskbench fio ARGS` in `dir`.
fn fio(dir: &Path, args: &[String]) -> Output {
    diskbench()
        .current_dir(dir)
        .arg("fio")
        .args(args)
        .output()
        .expect("diskbench runs")
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// A usage error (exit 1, as fio exits) whose message contains every one of `parts`, on
/// stderr and in the JSON `error` field when JSON was asked for.
fn assert_refused(out: &Output, parts: &[&str]) {
    let err = stderr_of(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for part in parts {
        assert!(err.contains(part), "{err:?} should contain {part:?}");
    }
    if !out.stdout.is_empty() {
        let doc = json_of(out);
        let msg = doc["error"].as_str().expect("an error field");
        assert!(parts.iter().all(|p| msg.contains(p)), "{msg}");
    }
}

/// A successful run with `jobs` JSON jobs named `name`; returns the document.
fn assert_ran(out: &Output, name: &str, jobs: usize) -> serde_json::Value {
    assert!(out.status.success(), "{}", stderr_of(out));
    let doc = json_of(out);
    let list = doc["jobs"].as_array().expect("jobs");
    assert_eq!(list.len(), jobs, "{doc}");
    for job in list {
        assert_eq!(job["jobname"], name);
        assert_eq!(job["error"], 0);
        let ios = job["read"]["total_ios"].as_u64().unwrap()
            + job["write"]["total_ios"].as_u64().unwrap();
        assert!(ios > 0, "{job}");
    }
    doc
}

/// `--parse-only` succeeds with one line per job (after the `# group` line).
fn assert_parses(dir: &Path, args: &[String], jobs: usize, must_contain: &[&str]) {
    let mut args = args.to_vec();
    args.push("--parse-only".into());
    let out = fio(dir, &args);
    assert!(out.status.success(), "{}", stderr_of(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), jobs, "{text}");
    for part in must_contain {
        assert!(
            lines.iter().all(|l| l.contains(part)),
            "{text} should contain {part}"
        );
    }
}

// "Adventures in Storageland": name, numjobs (one JSON job per clone).
const STORAGELAND_JOBS: [(&str, usize); 3] =
    [("seq-read", 1), ("random-write", 8), ("read-write", 8)];

#[test]
fn adventures_in_storageland_sections_run_unchanged() {
    let dir = real_dir();
    for (name, numjobs) in STORAGELAND_JOBS {
        let file = fixture(&format!("001_{name}.fio")).display().to_string();
        let mut args = strings(&SHORTEN);
        args.extend([format!("--directory={}", dir.path().display()), file]);
        let doc = assert_ran(&fio(dir.path(), &args), name, numjobs);
        let opts = &doc["jobs"][0]["job options"];
        assert_eq!(opts["size"], "16m");
        assert_eq!(opts["fadvise_hint"], "0");
        let dir_opt = format!("--directory={}", dir.path().display());
        assert_parses(
            dir.path(),
            &args,
            1,
            &[
                "--size=16m",
                "--runtime=1 --time_based",
                "--bs=16k",
                "--direct=1",
                "--fadvise_hint=0",
                &dir_opt,
            ],
        );
    }
}

#[test]
fn adventures_in_storageland_as_the_article_runs_it_with_section() {
    // `fio --section=seq-read ./fio.cfg`, the three sections in one file.
    let dir = real_dir();
    let all: String = STORAGELAND_JOBS
        .iter()
        .map(|(n, _)| fixture_text(&format!("001_{n}.fio")))
        .collect();
    std::fs::write(dir.path().join("fio.cfg"), &all).unwrap();
    let mut args = strings(&SHORTEN);
    args.extend([
        format!("--directory={}", dir.path().display()),
        "--section=seq-read".into(),
        "./fio.cfg".into(),
    ]);
    assert_ran(&fio(dir.path(), &args), "seq-read", 1);
    assert_parses(dir.path(), &args, 1, &["--name=seq-read"]);
    // Without --section, the three jobs run at the same time, in one group.
    let mut all_args = strings(&SHORTEN);
    all_args.extend([
        format!("--directory={}", dir.path().display()),
        "./fio.cfg".into(),
    ]);
    assert_parses(dir.path(), &all_args, 3, &["--size=16m"]);
}

/// The 2014 EBS benchmark's command lines: continuation lines joined, `$ fio` dropped, the
/// `<read,write,randread,randwrite>` template written out: five lines.
fn the_ebs_benchmark_lines() -> Vec<Vec<String>> {
    let text = fixture_text("002_commands.txt");
    let mut lines = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let joined = block.replace("\\\n", " ");
        let words: Vec<&str> = joined
            .split_whitespace()
            .skip_while(|w| *w != "fio")
            .skip(1)
            .collect();
        let template = words.iter().position(|w| w.starts_with("-rw=<"));
        match template {
            Some(i) => {
                let modes = words[i].trim_start_matches("-rw=<").trim_end_matches('>');
                for mode in modes.split(',') {
                    let mut line: Vec<String> = words.iter().map(|w| w.to_string()).collect();
                    line[i] = format!("-rw={mode}");
                    lines.push(line);
                }
            }
            None => lines.push(words.iter().map(|w| w.to_string()).collect()),
        }
    }
    lines
}

#[test]
fn the_ebs_benchmark_command_lines() {
    let lines = the_ebs_benchmark_lines();
    assert_eq!(lines.len(), 5);
    let dir = real_dir();
    for line in lines {
        let rw = line.iter().find(|w| w.starts_with("-rw=")).unwrap().clone();
        // As printed: the article's typo, refused with the fix.
        let mut args = line.clone();
        args.extend(strings(&SHORTEN));
        assert_refused(
            &fio(dir.path(), &args),
            &["ioengine=libio", "did you mean 'libaio'?"],
        );
        // With libaio, shortened, and /tmp/testfile redirected.
        let mut args: Vec<String> = line.iter().map(|w| w.replace("libio", "libaio")).collect();
        args.extend(strings(&SHORTEN));
        args.push(format!(
            "--filename={}",
            dir.path().join("testfile").display()
        ));
        let doc = assert_ran(&fio(dir.path(), &args), "seq_read", 1);
        assert_eq!(
            doc["jobs"][0]["job options"]["rw"],
            rw.trim_start_matches("-rw=")
        );
        assert_parses(
            dir.path(),
            &args,
            1,
            &[
                "--bs=4k",
                "--iodepth=4",
                "--ioengine=libaio",
                "--direct=1",
                "--size=16m",
            ],
        );
    }
}

#[test]
fn the_aws_vs_digitalocean_article_command_lines() {
    let text = fixture_text("004_commands.txt");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    let dir = real_dir();
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().skip(1).collect();
        let mut args = strings(&words);
        args.extend(strings(&SHORTEN));
        assert_refused(
            &fio(dir.path(), &args),
            &[
                "'\u{2013}randrepeat=1' starts with a typographic dash",
                "--randrepeat=1",
            ],
        );
        let dashed: Vec<String> = words.iter().map(|w| w.replace('\u{2013}', "--")).collect();
        assert!(dashed.iter().any(|w| w == "--gtod_reduce=1"), "{dashed:?}");
        let mut args = dashed;
        args.extend(strings(&SHORTEN));
        let rw = args
            .iter()
            .find(|w| w.starts_with("--readwrite="))
            .unwrap()
            .clone();
        let out = fio(dir.path(), &args);
        let doc = assert_ran(&out, "test", 1);
        assert_eq!(
            doc["jobs"][0]["job options"]["rw"],
            rw.trim_start_matches("--readwrite=")
        );
        // gtod_reduce: latencies still measured, and the result's warnings say so.
        let said = doc["diskbench"]["warnings"].to_string();
        assert!(said.contains("gtod_reduce=1: diskbench keeps measuring latencies"));
        let job = &doc["jobs"][0];
        let n = job["read"]["clat_ns"]["N"].as_u64().unwrap()
            + job["write"]["clat_ns"]["N"].as_u64().unwrap();
        assert!(n > 0, "{job}");
        assert_parses(
            dir.path(),
            &args,
            1,
            &["--filename=test", "--iodepth=64", "--size=16m"],
        );
    }
}
