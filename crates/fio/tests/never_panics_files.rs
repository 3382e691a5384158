//! Whatever a job file holds, parsing it answers with jobs or an error that
//! names a place and says something, never a panic: arbitrary text, and
//! plausible fio lines (sections, options, comments, includes, variables,
//! keywords, arithmetic) that reach the deeper stages.

use diskbench_fio::parse_args;
use proptest::prelude::*;
use std::path::Path;

const LINES: &[&str] = &[
    "[global]",
    "[a]",
    "[b] ; c",
    "[ c ]",
    "[",
    "[]",
    "; comment",
    "# comment",
    "",
    "   ",
    "ioengine=null",
    "size=1m",
    "size=${SIZE}",
    "size=${NOPE}",
    "size=$mb_memory",
    "bs=$pagesize*2",
    "bs=$pagesize/0",
    "bs=$ncpus*4k",
    "bs=(((1)))",
    "bs=(1",
    "iodepth=$ncpus^99",
    "runtime=(2*500)",
    "runtime=1",
    "time_based",
    "stonewall",
    "new_group",
    "wait_for=a",
    "wait_for=b",
    "group_reporting",
    "numjobs=2",
    "rw=randrw",
    "rwmixread=70",
    "direct=1",
    "bs=1000",
    "filename=/tmp/x#y",
    "include inc.fio",
    "include loop.fio",
    "include missing.fio",
    "include",
    "fadvise_hint=0",
    "iodpeth=4",
    "=5",
    "name=z",
    "output=x",
];

fn job_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(LINES), 0..16).prop_map(|l| l.join("\n"))
}

/// Writes `main` (and the files it may include) and parses it.
fn parse_text(dir: &Path, main: &str, extra: &[&str]) -> Result<usize, String> {
    std::fs::write(dir.join("inc.fio"), "bs=8k\niodepth=2\n").unwrap();
    std::fs::write(dir.join("loop.fio"), "include loop.fio\n").unwrap();
    let path = dir.join("main.fio");
    std::fs::write(&path, main).unwrap();
    let mut args: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    args.push(path.display().to_string());
    match parse_args(args) {
        Ok(parsed) => {
            let in_groups: usize = parsed.groups.iter().map(Vec::len).sum();
            assert_eq!(in_groups, parsed.jobs.len());
            assert!(parsed.groups.iter().all(|g| !g.is_empty()));
            Ok(parsed.jobs.len())
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.is_empty());
            Err(msg)
        }
    }
}

proptest! {
    #[test]
    fn arbitrary_text(text in any::<String>()) {
        let dir = tempfile::tempdir().unwrap();
        let _ = parse_text(dir.path(), &text, &[]);
    }

    #[test]
    fn arbitrary_bytes_as_lines(lines in prop::collection::vec("[ -~\t]{0,40}", 0..12)) {
        let dir = tempfile::tempdir().unwrap();
        let _ = parse_text(dir.path(), &lines.join("\n"), &[]);
    }

    #[test]
    fn plausible_job_files(text in job_text(), shorten in any::<bool>(), section in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let mut extra = Vec::new();
        if shorten {
            extra.extend(["--size=1m", "--runtime=1"]);
        }
        if section {
            extra.push("--section=a");
        }
        if let Err(msg) = parse_text(dir.path(), &text, &extra) {
            // Errors in the file say where.
            prop_assert!(msg.contains("main.fio") || msg.contains("inc.fio")
                || msg.contains("loop.fio") || msg.contains("section")
                || msg.contains("no job") || msg.contains("job '"), "{}", msg);
        }
    }
}
