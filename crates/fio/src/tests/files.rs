//! fio's job-file syntax: sections, comments, includes, variables, keywords,
//! bare flags, and the errors for everything else.

use super::*;
use crate::FioError;
use model::{EngineKind, FileTarget, RwMode};
use std::time::Duration;

fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// fio's `global options` show what ran: the command line's globals are
/// applied after a file's, so `--runtime=2` before a file whose [global]
/// says runtime=5 ran 2 seconds, and the echo says 2.
#[test]
fn command_line_globals_override_a_files_in_the_global_options() {
    let d = Dir::new();
    let f = d.file("a.fio", "[global]\nruntime=5\nrw=read\n[job1]\n");
    let args = ok(&["--runtime=2", "--size=256m", &f]);
    assert_eq!(args.jobs[0].runtime, Some(Duration::from_secs(2)));
    assert_eq!(
        args.global_options,
        opts(&[("rw", "read"), ("runtime", "2"), ("size", "256m")])
    );
}

#[test]
fn global_and_job_sections() {
    let d = Dir::new();
    let f = d.file(
        "a.fio",
        "[global]\nioengine=null\nsize=1m\n[job1]\nrw=randread\n[job2]\nbs=8k\n",
    );
    let args = ok(&[&f]);
    assert_eq!(names(&args), [["job1", "job2"]]);
    assert_eq!(args.jobs.len(), 2);
    let (j1, j2) = (&args.jobs[0], &args.jobs[1]);
    assert_eq!((j1.rw, j1.bs_bytes), (RwMode::RandRead, 4096));
    assert_eq!((j2.rw, j2.bs_bytes), (RwMode::Read, 8192));
    assert!(args.jobs.iter().all(|j| j.engine == EngineKind::Null));
    assert_eq!(
        args.global_options,
        opts(&[("ioengine", "null"), ("size", "1m")])
    );
    assert_eq!(
        j1.options,
        opts(&[("ioengine", "null"), ("size", "1m"), ("rw", "randread")])
    );
}

#[test]
fn several_globals_add_up_and_apply_below_only() {
    // As fio 3.33: the second [global] keeps the first's options.
    let d = Dir::new();
    let f = d.file(
        "a.fio",
        "[global]\nioengine=null\nsize=1m\n[a]\n[global]\nbs=8k\n[b]\n",
    );
    let args = ok(&[&f]);
    assert_eq!(args.jobs[0].bs_bytes, 4096);
    assert_eq!(args.jobs[1].bs_bytes, 8192);
    assert_eq!(args.jobs[1].engine, EngineKind::Null);
}

#[test]
fn globals_stay_in_their_file() {
    let d = Dir::new();
    let g = d.file("g.fio", "[global]\nioengine=null\nsize=1m\n");
    let j = d.file("j.fio", "[a]\n");
    err_at(&[&g, &j], &j, 1, &["job 'a' needs size="]);
}

#[test]
fn comments_and_whitespace() {
    let d = Dir::new();
    let text = "; whole line\n# another\n[ a ] ; after a header\n  ioengine = null  \n\
                \tsize=1m ; after a value\n  ;indented comment\nbs=8k#no space\n\
                filename=/tmp/x#y\r\nruntime=1\r\ntime_based\r\n\n";
    let f = d.file("a.fio", text);
    let job = &ok(&[&f]).jobs[0];
    assert_eq!(job.name, "a");
    assert_eq!(job.size_bytes, Some(1 << 20));
    assert_eq!(job.bs_bytes, 8192);
    assert!(job.time_based);
    // fio cuts a value at the first ';' or '#', even inside a path.
    assert_eq!(job.target, FileTarget::Named("/tmp/x".into()));
    let bom = d.file("bom.fio", "\u{feff}[a]\r\nioengine=null\r\nsize=1m\r\n");
    assert_eq!(ok(&[&bom]).jobs[0].name, "a");
}

#[test]
fn indented_options_as_in_adventures_in_storageland() {
    let d = Dir::new();
    let f = d.file(
        "s.fio",
        "[seq-read]\n rw=read\n size=40g\n directory=/a/fio\n blocksize=16k\n direct=1\n \
         runtime=300\n ioengine=libaio\n time_based\n",
    );
    let job = &ok(&[&f]).jobs[0];
    assert_eq!((job.bs_bytes, job.size_bytes), (16384, Some(40 << 30)));
    assert!(job.direct && job.time_based);
    assert_eq!(job.runtime, Some(Duration::from_secs(300)));
}

#[test]
fn bare_flags_and_flag_values() {
    let d = Dir::new();
    let f = d.file(
        "a.fio",
        "[a]\nioengine=null\nsize=1m\nruntime=1\ntime_based\ngroup_reporting\nthread\n[b]\n\
         ioengine=null\nsize=1m\ntime_based=0\nstonewall=1\n",
    );
    let args = ok(&[&f]);
    assert!(args.jobs[0].time_based && args.jobs[0].group_reporting);
    assert!(!args.jobs[1].time_based);
    assert_eq!(args.groups.len(), 2);
    // A bare flag is not echoed, as fio does not echo it.
    assert!(!args.jobs[0].options.iter().any(|(k, _)| k == "time_based"));
}

#[test]
fn name_renames_and_duplicate_sections_are_two_jobs() {
    let d = Dir::new();
    let f = d.file(
        "a.fio",
        "[global]\nioengine=null\nsize=1m\n[a]\nname=zz\n[a]\n[a]\n",
    );
    let args = ok(&[&f]);
    assert_eq!(names(&args), [["zz", "a", "a"]]);
}

#[test]
fn includes_resolve_from_the_including_file() {
    let d = Dir::new();
    d.file("sub/glob.fio", "ioengine=null\nsize=1m\n");
    d.file(
        "sub/deeper/job.fio",
        "iodepth=3\ninclude more.fio ; relative to deeper/\n",
    );
    d.file("sub/deeper/more.fio", "bs=8k\n");
    let main = d.file(
        "sub/main.fio",
        "[global]\ninclude glob.fio\n[a]\ninclude deeper/job.fio\n[b]\n",
    );
    let args = ok(&[&main]);
    let (a, b) = (&args.jobs[0], &args.jobs[1]);
    assert_eq!((a.iodepth, a.bs_bytes), (3, 8192));
    assert_eq!((b.iodepth, b.bs_bytes), (1, 4096));
    assert!(args.jobs.iter().all(|j| j.engine == EngineKind::Null));
    let abs = d.file("abs.fio", "iodepth=5\n");
    let main2 = d.file(
        "sub/main2.fio",
        &format!("[a]\nioengine=null\nsize=1m\ninclude {abs}\n"),
    );
    assert_eq!(ok(&[&main2]).jobs[0].iodepth, 5);
}

#[test]
fn include_errors() {
    let d = Dir::new();
    let f = d.file("a.fio", "[a]\nioengine=null\n\ninclude missing.fio\n");
    err_at(&[&f], &f, 4, &["missing.fio", "No such file"]);
    let f = d.file("top.fio", "include x.fio\n[a]\n");
    err_at(&[&f], &f, 1, &["'include x.fio' comes before any section"]);
    let f = d.file("bare.fio", "[a]\ninclude\n");
    err_at(&[&f], &f, 2, &["'include' needs a file name"]);
    let inc = d.file("sect.fio", "bs=8k\n[b]\n");
    let f = d.file("b.fio", "[a]\ninclude sect.fio\n");
    err_at(&[&f], &inc, 2, &["an included file may not hold sections"]);
    let bad = d.file("badinc.fio", "ioengine=null\nfrobnicate=1\n");
    let f = d.file("c.fio", "[a]\ninclude badinc.fio\n");
    err_at(&[&f], &bad, 2, &["unknown option 'frobnicate'"]);
}

#[test]
fn include_loops_are_named() {
    let d = Dir::new();
    let l1 = d.file(
        "loop1.fio",
        "[a]\nioengine=null\nsize=1m\ninclude loop2.fio\n",
    );
    let l2 = d.file("loop2.fio", "bs=8k\ninclude loop1.fio\n");
    let msg = err_at(
        &[&l1],
        &l2,
        2,
        &["include loop", "loop1.fio -> ", "loop2.fio -> "],
    );
    assert!(msg.ends_with("remove one of the include lines"), "{msg}");
    let me = d.file("self.fio", "bs=8k\ninclude self.fio\n");
    let f = d.file("s.fio", "[a]\ninclude self.fio\n");
    err_at(&[&f], &me, 2, &["include loop"]);
}

#[test]
fn environment_variables() {
    let d = Dir::new();
    let f = d.file(
        "a.fio",
        "[random-writers]\nioengine=null\nrw=randwrite\nsize=${SIZE}\nnumjobs=${NUMJOBS}\n",
    );
    // fio's HOWTO example: SIZE=64m NUMJOBS=4 fio jobfile.fio
    let args = parse_env(&[&f], &[("SIZE", "64m"), ("NUMJOBS", "4")]).unwrap();
    assert_eq!(
        (args.jobs[0].size_bytes, args.jobs[0].numjobs),
        (Some(64 << 20), 4)
    );
    assert!(args.jobs[0]
        .options
        .contains(&("size".into(), "64m".into())));
    let e = parse_env(&[&f], &[("SIZE", "64m")]).unwrap_err();
    assert_eq!(e.origin().map(|o| o.line), Some(5));
    let msg = e.to_string();
    assert!(msg.contains("numjobs=${NUMJOBS}"), "{msg}");
    assert!(
        msg.contains("environment variable 'NUMJOBS' is not set"),
        "{msg}"
    );
}

#[test]
fn keywords_and_arithmetic() {
    let d = Dir::new();
    let f = d.file(
        "a.fio",
        "[a]\nioengine=null\nbs=$pagesize*2\niodepth=$ncpus+1\nsize=$mb_memory\n\
         runtime=(2*500)\nramp_time=$ncpus\nnumjobs=(1+1)\n",
    );
    let job = &ok(&[&f]).jobs[0];
    assert_eq!(job.bs_bytes, 8192);
    assert_eq!(job.iodepth, 3);
    // $mb_memory is a number: as a size, bytes (as in fio).
    assert_eq!(job.size_bytes, Some(24105));
    assert_eq!(job.runtime, Some(Duration::from_millis(1)));
    assert_eq!(job.ramp_time, Duration::from_secs(2));
    assert_eq!(job.numjobs, 2);
    assert!(job.options.contains(&("bs".into(), "8192".into())));
    let f = d.file("b.fio", "[a]\nioengine=null\nsize=1m\nbs=$ncpus*4k\n");
    err_at(&[&f], &f, 4, &["bs=$ncpus*4k", "'k' in an expression"]);
}

#[test]
fn value_errors_name_file_line_and_job() {
    let d = Dir::new();
    let f = d.file("a.fio", "[global]\nioengine=null\nsize=1m\n[j]\nbs=zz\n");
    err_at(
        &[&f],
        &f,
        5,
        &["job 'j': bad value for bs", "'zz' is not a size"],
    );
    let f = d.file("g.fio", "[global]\niodepth=0\n[j]\n");
    err_at(&[&f], &f, 2, &["global options: iodepth=0"]);
    let f = d.file("v.fio", "[j]\nioengine=null\nsize=1m\nbs=4k-8k\n");
    err_at(
        &[&f],
        &f,
        4,
        &["bs=4k-8k", "give a range as bsrange=4k-64k"],
    );
    let f = d.file("m.fio", "[j]\nioengine=null\nsize\n");
    err_at(&[&f], &f, 3, &["option 'size' needs a value"]);
    let f = d.file("e.fio", "[j]\nioengine=null\nsize=\n");
    err_at(&[&f], &f, 3, &["option 'size' needs a value"]);
}

#[test]
fn cross_option_errors_point_at_the_section() {
    let d = Dir::new();
    let f = d.file("a.fio", "[global]\nrw=read\n\n[needs-size]\nbs=4k\n");
    err_at(&[&f], &f, 4, &["job 'needs-size' needs size="]);
    let f = d.file("b.fio", "[j]\nsize=1m\ndirect=1\nbs=1000\n");
    err_at(&[&f], &f, 1, &["direct=1 needs bs to be a multiple of 512"]);
}

#[test]
fn name_errors_name_file_line_and_suggest() {
    let d = Dir::new();
    let f = d.file("a.fio", "[j]\nioengine=null\nsize=1m\niodpeth=4\n");
    let msg = err_at(&[&f], &f, 4, &["unknown option 'iodpeth'"]);
    assert!(msg.ends_with("did you mean 'iodepth'?"), "{msg}");
    let f = d.file("b.fio", "[j]\n nice=10\n");
    err_at(
        &[&f],
        &f,
        2,
        &["option 'nice' is a fio option diskbench does not carry out yet"],
    );
    let f = d.file("c.fio", "[j]\noutput-format=json\n");
    err_at(&[&f], &f, 2, &["'output-format' is a command-line option"]);
    let f = d.file("d.fio", "[j]\nSIZE=1m\n");
    err_at(&[&f], &f, 2, &["unknown option 'SIZE'"]);
}

#[test]
fn syntax_errors() {
    let d = Dir::new();
    let f = d.file("a.fio", "; comment\nioengine=null\n[a]\n");
    err_at(
        &[&f],
        &f,
        2,
        &["'ioengine=null' comes before any section", "[global]"],
    );
    let f = d.file("b.fio", "[a\nsize=1m\n");
    err_at(&[&f], &f, 1, &["needs a closing ']'"]);
    let f = d.file("c.fio", "[]\n");
    err_at(&[&f], &f, 1, &["'[]' names no section"]);
    let f = d.file("d.fio", "[a] size=1m\n");
    err_at(&[&f], &f, 1, &["'size=1m' after the section header [a]"]);
    let f = d.file("e.fio", "[a]\n=5\n");
    err_at(&[&f], &f, 2, &["'=5' has no option name"]);
}

#[test]
fn unreadable_and_empty_files() {
    let d = Dir::new();
    let missing = d.path().join("nope.fio").display().to_string();
    let e = parse(&[&missing]).unwrap_err();
    assert!(matches!(e, FioError::JobFile { .. }), "{e:?}");
    assert!(e.to_string().contains("No such file"), "{e}");
    let dir = d.path().display().to_string();
    assert!(parse(&[&dir])
        .unwrap_err()
        .to_string()
        .contains("is a directory"));
    let bin = d.path().join("bin.fio");
    std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
    let bin = bin.display().to_string();
    assert!(parse(&[&bin])
        .unwrap_err()
        .to_string()
        .contains("not valid UTF-8"));
    let empty = d.file("empty.fio", "; nothing\n");
    let global = d.file("global.fio", "[global]\nsize=1m\n");
    let e = parse(&[&empty, &global]).unwrap_err();
    assert_eq!(e, FioError::NoJobInFiles(format!("{empty}, {global}")));
    assert!(e.to_string().contains("needs a [jobname] section"), "{e}");
}

/// `filename=a:b:c` names three files, as in fio: the first is the target,
/// the others follow it, each under `directory=`; `\:` keeps a colon in a name.
#[test]
fn several_files_in_one_filename() {
    let args = ok(&[
        "--name=a",
        "--size=3m",
        "--directory=/tmp/d",
        "--filename=x:y\\:1:z",
    ]);
    let job = &args.jobs[0];
    assert_eq!(job.target, FileTarget::Named("/tmp/d/x".into()));
    let also: Vec<std::path::PathBuf> = vec!["/tmp/d/y:1".into(), "/tmp/d/z".into()];
    assert_eq!(job.file_options.also_named, also);
    assert_eq!(job.files_per_clone(), 3);
}
