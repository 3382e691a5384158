//! Command lines that must parse, and what they must parse to: the project's
//! fio comparison (`--name=vs ...`, the line it runs in both), the fio
//! sample in the root `fixtures/`, and
//! fio's rules for global options, several jobs and flags.

mod common;
use common::parse;
use diskbench_fio::OutputFormat;
use model::{EngineKind, FileTarget, JobSpec, RwMode};
use std::path::PathBuf;
use std::time::Duration;

/// The block sizes fio's job line shows for a job that gave none or
/// `bs=4k`: 4096B-4096B for reads, writes and trims.
fn bs_4k_as_given() -> Option<model::block_sizes::BsAsGiven> {
    Some(model::block_sizes::BsAsGiven {
        sizes: model::direction::PerDir {
            read: (4096, 4096),
            write: (4096, 4096),
        },
        trim: (4096, 4096),
    })
}

fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn vs_fio_benchmark_line() {
    let args = parse(
        "--name=vs --filename=/tmp/x --rw=randread --bs=4k --iodepth=32 --ioengine=io_uring \
         --size=1g --runtime=5 --time_based=1 --direct=1 --output-format=json",
    );
    let mut want = JobSpec::new("vs");
    want.bs_as_given = bs_4k_as_given();
    want.target = FileTarget::Named(PathBuf::from("/tmp/x"));
    want.rw = RwMode::RandRead;
    want.bs_bytes = 4096;
    want.iodepth = 32;
    want.engine = EngineKind::IoUring;
    want.size_bytes = Some(1 << 30);
    want.runtime = Some(Duration::from_secs(5));
    want.time_based = true;
    want.direct = true;
    want.options = opts(&[
        ("name", "vs"),
        ("filename", "/tmp/x"),
        ("rw", "randread"),
        ("bs", "4k"),
        ("iodepth", "32"),
        ("ioengine", "io_uring"),
        ("size", "1g"),
        ("runtime", "5"),
        ("time_based", "1"),
        ("direct", "1"),
    ]);
    assert_eq!(args.jobs, vec![want]);
    assert_eq!(args.output_format, vec![OutputFormat::Json]);
    assert_eq!(args.output, None);
    assert!(!args.allow_destructive);
    assert!(args.global_options.is_empty());
}

/// The command line behind `fixtures/fio-3.33-randrw.json`: the
/// options echo exactly as fio's `job options` there (the bare
/// `--time_based` does not show).
#[test]
fn sample_randrw_line_echoes_like_fio() {
    let args = parse(
        "--name=randrw-75 --filename=/mnt/data/f --size=256m --rw=randrw --rwmixread=75 --bs=4k \
         --iodepth=16 --numjobs=1 --ioengine=io_uring --direct=1 --runtime=3 --time_based \
         --output-format=json",
    );
    let job = &args.jobs[0];
    assert_eq!(
        job.options,
        opts(&[
            ("name", "randrw-75"),
            ("filename", "/mnt/data/f"),
            ("size", "256m"),
            ("rw", "randrw"),
            ("rwmixread", "75"),
            ("bs", "4k"),
            ("iodepth", "16"),
            ("numjobs", "1"),
            ("ioengine", "io_uring"),
            ("direct", "1"),
            ("runtime", "3"),
        ])
    );
    assert_eq!(job.rw, RwMode::RandRw);
    assert_eq!(job.rwmix_read_pct, 75);
    assert!(job.time_based);
    assert_eq!(job.size_bytes, Some(256 << 20));
}

#[test]
fn fio_defaults() {
    let job = parse("--name=d --size=1m").jobs.remove(0);
    let mut want = JobSpec::new("d");
    want.bs_as_given = bs_4k_as_given();
    want.size_bytes = Some(1 << 20);
    want.options = opts(&[("name", "d"), ("size", "1m")]);
    assert_eq!(job, want);
    assert_eq!(job.rw, RwMode::Read);
    assert_eq!(job.bs_bytes, 4096);
    assert_eq!((job.iodepth, job.numjobs, job.loops), (1, 1, 1));
    assert_eq!(job.engine, EngineKind::Sync);
    assert!(!job.direct && job.invalidate && job.randrepeat);
    assert_eq!(job.rwmix_read_pct, 50);
    assert_eq!(
        job.target,
        FileTarget::Generated {
            directory: PathBuf::from("."),
            nrfiles: 1,
            shared: None
        }
    );
}

#[test]
fn globals_before_name_apply_to_every_job() {
    let args = parse(
        "--directory=/mnt/data --size=128m --direct=1 --ioengine=libaio --runtime=2 \
         --name=seq --rw=read --bs=16k \
         --name=rand --rw=randwrite --bs=16k --numjobs=2 --iodepth=8",
    );
    assert_eq!(args.jobs.len(), 2);
    for job in &args.jobs {
        assert_eq!(job.size_bytes, Some(128 << 20));
        assert!(job.direct);
        assert_eq!(job.engine, EngineKind::Libaio);
        assert_eq!(job.runtime, Some(Duration::from_secs(2)));
        assert_eq!(job.bs_bytes, 16 << 10);
        assert!(
            matches!(&job.target, FileTarget::Generated { directory, .. }
            if directory == &PathBuf::from("/mnt/data"))
        );
    }
    let (seq, rand) = (&args.jobs[0], &args.jobs[1]);
    assert_eq!(
        (seq.name.as_str(), seq.rw, seq.numjobs),
        ("seq", RwMode::Read, 1)
    );
    assert_eq!(
        (rand.rw, rand.numjobs, rand.iodepth),
        (RwMode::RandWrite, 2, 8)
    );
    // The second job does not inherit the first job's options.
    assert_eq!(seq.iodepth, 1);
    let globals = opts(&[
        ("directory", "/mnt/data"),
        ("size", "128m"),
        ("direct", "1"),
        ("ioengine", "libaio"),
        ("runtime", "2"),
    ]);
    assert_eq!(args.global_options, globals);
    let mut seq_opts = globals.clone();
    seq_opts.extend(opts(&[("name", "seq"), ("rw", "read"), ("bs", "16k")]));
    assert_eq!(seq.options, seq_opts);
}

#[test]
fn name_global_is_a_global_section_for_the_jobs_after_it() {
    // fio's own example: `fio --name=global --rw=randread --size=128m --name=job1 --name=job2`
    let args = parse("--name=global --rw=randread --size=128m --name=job1 --name=job2");
    assert_eq!(args.jobs.len(), 2);
    assert!(args.jobs.iter().all(|j| j.rw == RwMode::RandRead));
    // A global section only affects the jobs below it.
    let args = parse("--size=1m --name=a --name=global --bs=8k --name=b");
    assert_eq!(args.jobs[0].bs_bytes, 4096);
    assert_eq!(args.jobs[1].bs_bytes, 8192);
    assert_eq!(args.global_options, opts(&[("size", "1m"), ("bs", "8k")]));
}

#[test]
fn bare_flags() {
    let args = parse("--name=f --size=1m --runtime=10 --time_based --group_reporting --thread");
    let job = &args.jobs[0];
    assert!(job.time_based && job.group_reporting);
    assert_eq!(
        job.options,
        opts(&[("name", "f"), ("size", "1m"), ("runtime", "10")])
    );
    let job = parse("--name=f --size=1m --time_based=0 --group_reporting=1")
        .jobs
        .remove(0);
    assert!(!job.time_based && job.group_reporting);
    assert_eq!(job.options[2], ("time_based".to_string(), "0".to_string()));
}

#[test]
fn space_separated_values_and_single_dash() {
    let args = parse("--name vs --bs 8k -iodepth=4 --filename /dev/null --output out.json");
    let job = &args.jobs[0];
    assert_eq!((job.bs_bytes, job.iodepth), (8192, 4));
    assert_eq!(job.options[1], ("bs".to_string(), "8k".to_string()));
    assert_eq!(args.output, Some(PathBuf::from("out.json")));
}

#[test]
fn aliases_echo_under_fio_names() {
    let job = parse("--name=a --readwrite=rw --blocksize=64k --size=1m")
        .jobs
        .remove(0);
    assert_eq!(job.rw, RwMode::ReadWrite);
    assert_eq!(job.bs_bytes, 64 << 10);
    assert_eq!(job.options[1].0, "rw");
    assert_eq!(job.options[2].0, "bs");
}

#[test]
fn later_options_override_earlier_ones() {
    let job = parse("--name=a --size=1m --rw=randrw --rwmixread=80 --rwmixwrite=30")
        .jobs
        .remove(0);
    assert_eq!(job.rwmix_read_pct, 70);
    let job = parse("--name=a --size=1m --direct=1 --buffered=1")
        .jobs
        .remove(0);
    assert!(!job.direct);
    let job = parse("--direct=1 --name=a --size=1m --buffered=1 --direct=1")
        .jobs
        .remove(0);
    assert!(job.direct);
}

#[test]
fn filename_directory_and_nrfiles() {
    let job = parse("--name=a --directory=/mnt --filename=f")
        .jobs
        .remove(0);
    assert_eq!(job.target, FileTarget::Named(PathBuf::from("/mnt/f")));
    assert_eq!(
        job.size_bytes, None,
        "a named file's size is taken from the file"
    );
    let job = parse("--name=a --directory=/mnt --nrfiles=4 --size=4m")
        .jobs
        .remove(0);
    assert_eq!(
        job.target,
        FileTarget::Generated {
            directory: PathBuf::from("/mnt"),
            nrfiles: 4,
            shared: None
        }
    );
    // fio ignores nrfiles when a filename is given.
    let job = parse("--name=a --filename=/dev/sdb --nrfiles=4")
        .jobs
        .remove(0);
    assert_eq!(job.target, FileTarget::Named(PathBuf::from("/dev/sdb")));
    let job = parse(r"--name=a --filename=/dev/dsk/foo@3,0\:c")
        .jobs
        .remove(0);
    assert_eq!(
        job.target,
        FileTarget::Named(PathBuf::from("/dev/dsk/foo@3,0:c"))
    );
}

#[test]
fn times_sizes_and_numbers() {
    let job = parse(
        "--name=a --size=1.5g --offset=1m --runtime=2m --ramp_time=500ms --loops=3 \
         --randrepeat=0 --randseed=0x10 --fsync=32 --fdatasync=8 --end_fsync=1 --invalidate=0",
    )
    .jobs
    .remove(0);
    assert_eq!(job.size_bytes, Some(3 << 29));
    assert_eq!(job.offset_bytes, 1 << 20);
    assert_eq!(job.runtime, Some(Duration::from_secs(120)));
    assert_eq!(job.ramp_time, Duration::from_millis(500));
    assert_eq!((job.loops, job.randseed), (3, 16));
    assert!(!job.randrepeat && !job.invalidate && job.end_fsync);
    assert_eq!((job.fsync_every, job.fdatasync_every), (32, 8));
    // runtime=0 is fio's "no limit".
    let job = parse("--name=a --size=1m --runtime=0").jobs.remove(0);
    assert_eq!(job.runtime, None);
}

#[test]
fn run_options() {
    let args =
        parse("--output-format=normal,json --allow-destructive --name=a --filename=/dev/sdb");
    assert_eq!(
        args.output_format,
        vec![OutputFormat::Normal, OutputFormat::Json]
    );
    assert!(args.allow_destructive);
    assert!(args.jobs[0].options.iter().all(|(k, _)| !k.contains('-')));
    let args = parse("--name=a --filename=/dev/sdb --allow-destructive=0");
    assert!(!args.allow_destructive);
    assert_eq!(args.output_format, vec![OutputFormat::Normal]);
}

#[test]
fn null_engine_with_size() {
    let job = parse("--name=n --ioengine=null --size=1g --iodepth=64")
        .jobs
        .remove(0);
    assert_eq!(job.engine, EngineKind::Null);
}

#[test]
fn iodepth_batch_submit_defaults_to_one_and_takes_its_alias() {
    let jobs = |args: &[&str]| {
        diskbench_fio::parse_args(args.iter().map(|s| s.to_string()))
            .unwrap()
            .jobs
    };
    assert_eq!(jobs(&["--name=a", "--size=1m"])[0].iodepth_batch_submit, 1);
    assert_eq!(
        jobs(&["--name=a", "--size=1m", "--iodepth_batch=0"])[0].iodepth_batch_submit,
        0
    );
    assert_eq!(
        jobs(&["--name=a", "--size=1m", "--iodepth_batch_submit=8"])[0].iodepth_batch_submit,
        8
    );
}
