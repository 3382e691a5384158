//! Groups (`stonewall`, `wait_for`, `new_group`), the command line together
//! with job files, `--section` and `--parse-only`.

use super::*;
use crate::{showcmd, FioError};
use std::time::Duration;

const NULL_1M: &str = "[global]\nioengine=null\nsize=1m\n";

#[test]
fn stonewall_starts_a_group_as_fio_numbers_them() {
    // fio 3.33 gives groupids a0 b0 c1 d1 g2 h2 for this file (new_group
    // and wait_for: see below).
    let d = Dir::new();
    let f = d.file(
        "g.fio",
        &format!("{NULL_1M}[a]\n[b]\n[c]\nstonewall\n[d]\n[g]\nwait_for_previous\n[h]\n"),
    );
    let args = ok(&[&f]);
    assert_eq!(
        names(&args),
        [vec!["a", "b"], vec!["c", "d"], vec!["g", "h"]]
    );
    assert_eq!(args.jobs.len(), 6);
    assert!(args.warnings.is_empty());
    // On the first job, stonewall changes nothing.
    let f = d.file("first.fio", &format!("{NULL_1M}[a]\nstonewall\n[b]\n"));
    assert_eq!(names(&ok(&[&f])), [["a", "b"]]);
    // In [global], every job gets its own group (fio: 0, 1, 2).
    let f = d.file("all.fio", &format!("{NULL_1M}stonewall\n[a]\n[b]\n[c]\n"));
    assert_eq!(names(&ok(&[&f])), [["a"], ["b"], ["c"]]);
}

#[test]
fn stonewall_on_the_command_line() {
    let args = ok(&[
        "--ioengine=null",
        "--size=1m",
        "--name=a",
        "--name=b",
        "--stonewall",
        "--name=c",
    ]);
    assert_eq!(names(&args), [vec!["a"], vec!["b", "c"]]);
}

#[test]
fn groups_continue_across_files() {
    // fio 3.33: a in group 0, b (stonewall, in the next file) in group 1.
    let d = Dir::new();
    let f1 = d.file("1.fio", "[a]\nioengine=null\nsize=1m\n");
    let f2 = d.file("2.fio", "[b]\nioengine=null\nsize=1m\nstonewall\n");
    assert_eq!(names(&ok(&[&f1, &f2])), [["a"], ["b"]]);
}

#[test]
fn wait_for_is_a_group_boundary_with_a_warning() {
    let d = Dir::new();
    let f = d.file(
        "w.fio",
        &format!("{NULL_1M}[a]\nnumjobs=2\n[x]\n[b]\nwait_for=a\n[c]\n"),
    );
    let args = ok(&[&f]);
    assert_eq!(names(&args), [vec!["a", "x"], vec!["b", "c"]]);
    assert_eq!(args.warnings.len(), 1);
    assert!(
        args.warnings[0].contains("job 'b' has wait_for=a"),
        "{:?}",
        args.warnings
    );
    // Waiting for a job of an earlier group needs no new boundary.
    let f = d.file(
        "w2.fio",
        &format!("{NULL_1M}[a]\n[b]\nstonewall\n[c]\nwait_for=a\n"),
    );
    let args = ok(&[&f]);
    assert_eq!(names(&args), [vec!["a"], vec!["b", "c"]]);
    assert!(args.warnings.is_empty());
}

#[test]
fn wait_for_errors_as_fio() {
    let d = Dir::new();
    let f = d.file("u.fio", &format!("{NULL_1M}[a]\n[c]\nwait_for=aa\n"));
    let msg = err_at(&[&f], &f, 6, &["job 'c': wait_for=aa", "no job named 'aa'"]);
    assert!(msg.contains("did you mean 'a'?"), "{msg}");
    let f = d.file("fwd.fio", &format!("{NULL_1M}[a]\nwait_for=b\n[b]\n"));
    err_at(&[&f], &f, 5, &["no job named 'b' comes before this one"]);
    let f = d.file("dup.fio", &format!("{NULL_1M}[a]\n[a]\n[b]\nwait_for=a\n"));
    err_at(&[&f], &f, 7, &["several jobs are named 'a'"]);
}

#[test]
fn new_group_splits_the_reporting_not_the_run() {
    // fio 3.33 gives groupids a0 b1 c1 d2 e3 for this file: b and e start a
    // reporting group while running with the jobs before them; on a (the
    // first job) and d (stonewall) a group starts anyway.
    let d = Dir::new();
    let f = d.file(
        "n.fio",
        &format!(
            "{NULL_1M}[a]\nnew_group\n[b]\nnew_group\n[c]\n[d]\nstonewall\nnew_group\n\
             [e]\nnew_group\n"
        ),
    );
    let args = ok(&[&f]);
    assert_eq!(names(&args), [vec!["a", "b", "c"], vec!["d", "e"]]);
    let split: Vec<Vec<bool>> = args
        .groups
        .iter()
        .map(|g| g.iter().map(|j| j.new_group).collect())
        .collect();
    assert_eq!(split, [vec![false, true, false], vec![false, true]]);
}

#[test]
fn command_line_options_override_the_files() {
    // fio 3.33 lets the file win (`fio --size=16m` on size=1g does 1 GiB);
    // diskbench lets the command line win, so that it can shorten a job file.
    let d = Dir::new();
    let f = d.file(
        "s.fio",
        "[global]\nruntime=300\n[seq-read]\nrw=read\nsize=40g\ndirectory=/a/fio\ndirect=0\n",
    );
    let args = ok(&[
        "--size=16m",
        "--runtime=1",
        "--time_based",
        "--directory=/tmp",
        "--direct=1",
        &f,
    ]);
    let job = &args.jobs[0];
    assert_eq!(job.size_bytes, Some(16 << 20));
    assert_eq!(job.runtime, Some(Duration::from_secs(1)));
    assert!(job.time_based && job.direct);
    assert_eq!(
        job.target,
        model::FileTarget::Generated {
            directory: "/tmp".into(),
            nrfiles: 1,
            shared: None
        }
    );
    // The file's options, then the command line's, echoed in that order.
    let keys: Vec<&str> = job.options.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "runtime",
            "rw",
            "size",
            "directory",
            "direct",
            "size",
            "runtime",
            "directory",
            "direct"
        ]
    );
    assert_eq!(args.global_options[0], ("size".into(), "16m".into()));
    // Where the file name stands among the options does not matter.
    let later = ok(&[&f, "--size=16m", "--directory=/tmp"]);
    assert_eq!(later.jobs[0].size_bytes, Some(16 << 20));
}

#[test]
fn command_line_jobs_come_first_and_keep_their_options() {
    // fio 3.33: `fio --name=cl ... g.fio --name=cl2 ...` runs cl, cl2, then the file's jobs.
    let d = Dir::new();
    let f = d.file("g.fio", &format!("{NULL_1M}[a]\n[b]\nstonewall\n"));
    let args = ok(&[
        "--ioengine=null",
        "--name=cl",
        "--size=2m",
        &f,
        "--name=cl2",
        "--size=3m",
        "--bs=8k",
    ]);
    assert_eq!(names(&args), [vec!["cl", "cl2", "a"], vec!["b"]]);
    // Options inside a command-line job stay in that job.
    assert_eq!(args.jobs[2].size_bytes, Some(1 << 20));
    assert_eq!(args.jobs[2].bs_bytes, 4096);
}

#[test]
fn sections_pick_jobs() {
    let d = Dir::new();
    let f = d.file(
        "s.fio",
        &format!("{NULL_1M}[a]\nbogus=1\n[b]\nbs=8k\n[c]\nstonewall\n[d]\n"),
    );
    // As fio: skipped sections are not read (a's bad option does not count),
    // [global] always applies, and the groups follow the jobs kept.
    let args = ok(&["--section=b", "--section", "d", &f]);
    assert_eq!(names(&args), [["b", "d"]]);
    assert_eq!(args.jobs[0].bs_bytes, 8192);
    // Command-line jobs are picked by name too.
    let args = ok(&[
        "--section=cl",
        "--ioengine=null",
        "--name=cl",
        "--size=1m",
        &f,
    ]);
    assert_eq!(names(&args), [["cl"]]);
    let e = parse(&["--section=bb", &f]).unwrap_err();
    assert_eq!(
        e,
        FioError::NoSuchSection {
            name: "bb".into(),
            suggestion: Some("b".into())
        }
    );
    assert!(e.to_string().contains("did you mean 'b'?"), "{e}");
    // An include inside a skipped section is not read either.
    let f = d.file(
        "i.fio",
        &format!("{NULL_1M}[a]\ninclude missing.fio\n[b]\n"),
    );
    assert_eq!(names(&ok(&["--section=b", &f])), [["b"]]);
}

#[test]
fn parse_only_prints_what_runs_and_reads_back_the_same() {
    let d = Dir::new();
    let f = d.file(
        "p.fio",
        "[global]\nioengine=null\nsize=1m\n[a]\nrw=randrw\nrwmixread=70\nnumjobs=2\n\
         [b]\nstonewall\nfilename=/tmp/a b\nruntime=1500ms\ntime_based\nbs=$pagesize\n",
    );
    let args = ok(&["--parse-only", &f]);
    assert!(args.parse_only);
    let text = showcmd(&args.groups);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert_eq!(lines[0], "# group 0");
    assert_eq!(
        lines[1],
        "--name=a --rw=randrw --rwmixread=70 --bs=4k --size=1m --directory=. \
         --ioengine=null --iodepth=1 --numjobs=2 --direct=0"
    );
    assert_eq!(lines[2], "# group 1");
    assert!(
        lines[3].starts_with("--name=b --stonewall --rw=read"),
        "{text}"
    );
    assert!(lines[3].contains("--filename='/tmp/a b'"), "{text}");
    assert!(lines[3].contains("--runtime=1500ms --time_based"), "{text}");
    // The printed command line gives the same jobs and groups again.
    let again_args: Vec<String> = lines
        .iter()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| shell_words(l))
        .collect();
    let again = parse_with(again_args, &crate::expand::Env::fixed(&[], SYS)).unwrap();
    assert_eq!(names(&again), names(&args));
    for (x, y) in again.jobs.iter().zip(&args.jobs) {
        let (mut x, mut y) = (x.clone(), y.clone());
        x.options.clear();
        y.options.clear();
        assert_eq!(x, y);
    }
}

/// Splits a line the way a shell would, for the quoting `showcmd` uses.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => words.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    words.push(cur);
    words.retain(|w| !w.is_empty());
    words
}
