//! fio's `exitall`, `exit_what` and `exitall_on_error` end to end: one job
//! ending ends the others of its reporting group (`new_group` splits one
//! off the jobs it runs with), with `exit_what=stonewall` every running
//! job, and with `exit_what=all` the later groups too.

mod common;
use common::*;

fn run(args: &[&str]) -> serde_json::Value {
    let dir = real_dir();
    let out = diskbench()
        .args(["fio", "--output-format=json", "--size=1m"])
        .arg(format!("--directory={}", dir.path().display()))
        .args(args)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("diskbench runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    json_of(&out)
}

/// Each job's name and runtime in milliseconds.
fn runtimes(doc: &serde_json::Value) -> Vec<(String, u64)> {
    let jobs = doc["jobs"].as_array().expect("jobs");
    jobs.iter()
        .map(|j| {
            let name = j["jobname"].as_str().expect("jobname").to_string();
            (name, j["job_runtime"].as_u64().expect("job_runtime"))
        })
        .collect()
}

/// A job of 20 I/Os 10 ms apart (about 0.2 s) beside a 20-second one.
const SHORT_AND_LONG: [&str; 8] = [
    "--name=short",
    "--number_ios=20",
    "--thinktime=10ms",
    "--name=long",
    "--time_based",
    "--runtime=20",
    "--rate_iops=200",
    "--name=later",
];

#[test]
fn exitall_ends_the_group_when_one_job_ends() {
    let mut args = vec!["--exitall"];
    args.extend(SHORT_AND_LONG);
    args.extend(["--stonewall", "--time_based", "--runtime=1"]);
    let jobs = runtimes(&run(&args));
    let names: Vec<&str> = jobs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["short", "long", "later"],
        "the next group still runs"
    );
    assert!(jobs[1].1 < 5_000, "long should end with short: {jobs:?}");
}

#[test]
fn exit_what_all_starts_no_later_group() {
    let mut args = vec!["--exitall", "--exit_what=all"];
    args.extend(SHORT_AND_LONG);
    args.extend(["--stonewall", "--time_based", "--runtime=1"]);
    let jobs = runtimes(&run(&args));
    let names: Vec<&str> = jobs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["short", "long"], "{jobs:?}");
}

#[test]
fn without_exitall_the_jobs_run_their_own_course() {
    let args = [
        "--name=short",
        "--number_ios=20",
        "--name=long",
        "--number_ios=300",
    ];
    let args: Vec<&str> = args.into_iter().chain(["--rate_iops=200"]).collect();
    let jobs = runtimes(&run(&args));
    assert!(jobs[1].1 >= 1_000, "300 I/Os at 200/s take 1.5 s: {jobs:?}");
}

/// exitwhat.fio's first half, shortened: `slow` (50 reads 2 ms apart, about
/// 0.1 s) with `exitall` and `exit_what=WHAT`, and beside it `fast` (256
/// reads at 500/s, about 0.5 s) in a reporting group of its own
/// (`new_group`, no `stonewall`: the two run at the same time).
fn slow_and_fast(what: &str) -> String {
    format!(
        "[global]\nfilesize=1m\nbs=4k\n\
         [slow]\nrw=read\nthinktime=2000\nnumber_ios=50\nexitall=1\nexit_what={what}\n\
         [fast]\nnew_group=1\nrw=randread\nrate_iops=500\n"
    )
}

#[test]
fn new_group_reports_apart_while_running_together_as_fio_does() {
    for (what, fast_whole) in [("group", true), ("stonewall", false)] {
        let dir = real_dir();
        std::fs::write(dir.path().join("j.fio"), slow_and_fast(what)).unwrap();
        let ours = groups_and_ios(&fio_ok_in(dir.path(), "j.fio"));
        // fio 3.33: groupid 0 and 1; exit_what=group ends slow's reporting
        // group only, so fast does its 256 reads; stonewall ends fast too.
        let check = |jobs: &[(String, u64, u64, u64)], who: &str| {
            let names: Vec<(&str, u64)> = jobs.iter().map(|j| (j.0.as_str(), j.1)).collect();
            assert_eq!(names, [("slow", 0), ("fast", 1)], "{who}, {what}");
            assert_eq!(jobs[0].2, 50, "{who}, {what}: {jobs:?}");
            assert_eq!(jobs[1].2 == 256, fast_whole, "{who}, {what}: {jobs:?}");
        };
        check(&ours, "diskbench");
        let Some(theirs) = real_fio_json(dir.path(), &["j.fio"]) else {
            return;
        };
        check(&groups_and_ios(&theirs), "fio");
    }
}
