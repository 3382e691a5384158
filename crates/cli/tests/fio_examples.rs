//! fio's own example job files, read where fio installs them (Debian's
//! `fio-examples` package: `/usr/share/doc/fio/examples`, or the directory
//! `DISKBENCH_FIO_EXAMPLES` names, e.g. `examples/` of a fio checkout). They
//! are fio's (GPL-2.0), so the repository does not carry them. The table
//! below lists the ones whose engines diskbench runs or means to run (local
//! files and block devices): each must parse, or be refused with the reason
//! the table gives (an option not carried out yet, or the hardware it
//! needs); the ones that parse run shortened (`--size=1m --runtime=1
//! --startdelay=0`) with exit 0, on a temporary directory, or a temporary
//! file where the example names an absolute path (a device). Every other
//! example (RDMA, Ceph, HTTP, GPUs...) must be refused with what it needs.
//! An example of the table that this fio version does not ship is left out
//! and named.
//!
//! When diskbench learns an option, its examples move from `Refused` to
//! `Runs` here: the counts at the end of the parse test say how far it got.

mod common;
use common::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    /// Parses and runs shortened with exit 0.
    Runs,
    /// As `Runs`, shortened to this size instead (a job whose blocks do not
    /// fit the usual 1 MiB).
    RunsAt(&'static str),
    /// Parses; not run, for the reason given (hardware the machine lacks).
    ParsesOnly(&'static str),
    /// Refused at parse time (exit 1, as in fio) with a message containing this.
    Refused(&'static str),
}
use Outcome::*;

const EXAMPLES: &[(&str, Outcome)] = &[
    ("1mbs_clients.fio", Runs),
    ("aio-read.fio", Runs),
    (
        "atomic-verify.fio",
        ParsesOnly("atomic writes (RWF_ATOMIC): a device with atomic write units"),
    ),
    ("backwards-read.fio", Runs),
    ("basic-verify.fio", Runs),
    ("butterfly.fio", Runs),
    // fio 3.42's version has a job of 2 MiB blocks.
    ("cmdprio-bssplit.fio", RunsAt("8m")),
    ("cmdprio-percentage.fio", Runs),
    ("cpuio.fio", Runs),
    (
        "cross-stripe-verify.fio",
        ParsesOnly("30 stripes 124 GiB apart: a device of 3.6 TiB"),
    ),
    ("dedupe-global.fio", Runs),
    ("dircreate-ioengine.fio", Runs),
    ("dirdelete-ioengine.fio", Runs),
    ("dirstat-ioengine.fio", Runs),
    ("disk-zone-profile.fio", Runs),
    ("enospc-pressure.fio", Runs),
    ("example_latency_steadystate.fio", Runs),
    ("exitwhat.fio", Runs),
    ("falloc.fio", Runs),
    ("filecreate-ioengine.fio", Runs),
    ("filedelete-ioengine.fio", Runs),
    ("filestat-ioengine.fio", Runs),
    ("fio-rand-RW.fio", Runs),
    ("fio-rand-read.fio", Runs),
    ("fio-rand-write.fio", Runs),
    ("fio-seq-RW.fio", Runs),
    ("fio-seq-read.fio", Runs),
    ("fio-seq-write.fio", Runs),
    ("fixed-rate-submission.fio", Runs),
    ("flow.fio", Runs),
    ("fsx.fio", Runs),
    ("ftruncate.fio", Runs),
    ("iometer-file-access-server.fio", Runs),
    ("jesd219.fio", Runs),
    ("latency-profile.fio", Runs),
    ("null.fio", Runs),
    ("numa.fio", ParsesOnly("a second NUMA node")),
    ("poisson-rate-submission.fio", Runs),
    ("rand-zones.fio", Runs),
    ("sequence-distribution.fio", Runs),
    // fio 3.42's: FIO_BS and the device come from the command line (see
    // `GIVEN`); runs at 16m (the 100 regions need room).
    ("sprandom.fio", RunsAt("16m")),
    ("ssd-steadystate.fio", Runs),
    ("ssd-test.fio", Runs),
    ("steadystate.fio", Runs),
    ("surface-scan.fio", Runs),
    ("tiobench-example.fio", Runs),
    ("waitfor.fio", Runs),
    (
        "zbd-rand-write-trim-gc.fio",
        Refused("zonemode=zbd needs a zoned block device"),
    ),
    (
        "zbd-rand-write-zone-reset-gc.fio",
        Refused("zonemode=zbd needs a zoned block device"),
    ),
    (
        "zbd-rand-write.fio",
        Refused("zonemode=zbd needs a zoned block device"),
    ),
    (
        "zbd-seq-read.fio",
        Refused("zonemode=zbd needs a zoned block device"),
    ),
    ("zipf.fio", Runs),
];

/// What an example expects to be given, as its comments say: environment
/// variables (both tests), and for `--parse-only` the device on the command
/// line (a run gets a file of its own).
struct Given {
    example: &'static str,
    env: &'static [(&'static str, &'static str)],
    parse_args: &'static [&'static str],
}

const GIVEN: &[Given] = &[Given {
    example: "sprandom.fio",
    env: &[("FIO_BS", "4096")],
    parse_args: &["--filename=/dev/nvme0n1"],
}];

/// What `GIVEN` has for `name`.
fn given(name: &str) -> &'static Given {
    const NOTHING: Given = Given {
        example: "",
        env: &[],
        parse_args: &[],
    };
    GIVEN.iter().find(|g| g.example == name).unwrap_or(&NOTHING)
}

/// Where fio's examples are; `None` (the test skips, saying how to get
/// them) when they are not installed.
fn examples_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("DISKBENCH_FIO_EXAMPLES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/usr/share/doc/fio/examples".into());
    if dir.join("aio-read.fio").is_file() {
        return Some(dir);
    }
    testbed::skip(format!(
        "fio's example job files are not in {} (Debian: apt-get install fio-examples; \
         or set DISKBENCH_FIO_EXAMPLES to the examples/ directory of a fio checkout)",
        dir.display()
    ));
    None
}

/// The examples of the table this fio version ships, with their paths.
fn listed(dir: &std::path::Path) -> Vec<(&'static str, Outcome, String)> {
    let (present, missing): (Vec<_>, Vec<_>) = EXAMPLES
        .iter()
        .partition(|(name, _)| dir.join(name).is_file());
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(|(n, _)| *n).collect();
        eprintln!("not shipped by this fio version: {}", names.join(", "));
    }
    present
        .into_iter()
        .map(|(name, o)| (name, o, dir.join(name).display().to_string()))
        .collect()
}

#[test]
fn every_other_example_is_refused_with_what_it_needs() {
    let Some(dir) = examples_dir() else { return };
    let listed: Vec<&str> = EXAMPLES.iter().map(|(n, _)| *n).collect();
    let mut others = 0;
    for entry in std::fs::read_dir(&dir).expect("the examples directory") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if !name.ends_with(".fio") || listed.contains(&name.as_str()) {
            continue;
        }
        others += 1;
        let out = diskbench()
            .args(["fio", "--parse-only"])
            .arg(dir.join(&name))
            .output()
            .expect("diskbench runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{name} should be refused: {stderr}"
        );
        assert!(
            [
                "needs",
                "does not carry out",
                "does not run this engine",
                "is not set"
            ]
            .iter()
            .any(|why| stderr.contains(why)),
            "{name}: {stderr:?} should name what it needs"
        );
    }
    assert!(
        others > 0,
        "no example outside the table in {}",
        dir.display()
    );
}

#[test]
fn each_example_parses_or_is_refused_with_its_reason() {
    let Some(dir) = examples_dir() else { return };
    let examples = listed(&dir);
    let (mut parsing, mut refused) = (0, 0);
    for (name, outcome, path) in &examples {
        let given = given(name);
        let out = diskbench()
            .envs(given.env.iter().copied())
            .args(["fio", "--parse-only"])
            .args(given.parse_args)
            .arg(path)
            .output()
            .expect("diskbench runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        match outcome {
            Runs | RunsAt(_) | ParsesOnly(_) => {
                assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
                parsing += 1;
            }
            Refused(why) => {
                assert_eq!(
                    out.status.code(),
                    Some(1),
                    "{name} should be refused: {stderr}"
                );
                assert!(
                    stderr.contains(why),
                    "{name}: {stderr:?} should say {why:?}"
                );
                assert!(!stderr.contains("panicked"), "{name}: {stderr}");
                refused += 1;
            }
        }
    }
    eprintln!(
        "fio examples in scope: {}, parsing: {parsing}, refused: {refused}",
        examples.len()
    );
}

#[test]
fn the_examples_that_parse_run_shortened() {
    let Some(examples) = examples_dir() else {
        return;
    };
    let dir = real_dir();
    let runs = |o: &Outcome| matches!(o, Runs | RunsAt(_));
    for (name, outcome, path) in listed(&examples).iter().filter(|(_, o, _)| runs(o)) {
        let size = match outcome {
            RunsAt(size) => format!("--size={size}"),
            _ => "--size=1m".to_string(),
        };
        let text = std::fs::read_to_string(path).expect("example");
        // An absolute path (a device, /tmp/data) becomes a file of the work
        // directory; relative names go into it.
        let names_device = text
            .lines()
            .any(|l| l.trim_start().starts_with("filename=/"));
        let work = tempfile::tempdir_in(dir.path()).expect("a work dir");
        let target = match names_device {
            true => format!("--filename={}", work.path().join("named").display()),
            false => format!("--directory={}", work.path().display()),
        };
        let out = diskbench()
            .envs(given(name).env.iter().copied())
            .args(["fio", &size, "--runtime=1", "--startdelay=0", &target])
            .args(["--output-format=json", path])
            // Logs named without a directory (write_bw_log) land in the work dir.
            .current_dir(work.path())
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .expect("diskbench runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name} ({outcome:?}): {stderr}");
        let doc = json_of(&out);
        let jobs = doc["jobs"].as_array().expect("jobs");
        assert!(!jobs.is_empty(), "{name}: no job ran");
    }
}
