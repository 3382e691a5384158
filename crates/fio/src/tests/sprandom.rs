//! `sprandom` and its options (see `sprandom_opts`): fio 3.42's example
//! parses, the values fio refuses are refused, and so is every option that
//! would pick offsets or bound the job beside the pass.

use super::*;
use model::job::SpRandom;

const JOB: [&str; 6] = [
    "--name=p",
    "--filename=/tmp/x",
    "--size=16m",
    "--rw=randwrite",
    "--norandommap=1",
    "--sprandom=1",
];

fn job(extra: &[&str]) -> model::JobSpec {
    job_of(&JOB, extra)
}

fn refused(extra: &[&str]) -> String {
    refusal(&JOB, extra)
}

#[test]
fn fio_3_42s_example_parses_with_fios_defaults_under_it() {
    // The options of fio's examples/sprandom.fio, in a job file.
    let dir = Dir::new();
    let f = dir.file(
        "spr.fio",
        "[global]\nioengine=libaio\nrw=randwrite\nbs=${FIO_BS}\nblockalign=${FIO_BS}\n\
         direct=1\nnorandommap=1\niodepth=64\n[preconditioning]\nsprandom=1\nspr_op=0.15\n\
         spr_num_regions=100\n",
    );
    let args = parse_env(
        &["--filename=/dev/x", "--size=1g", &f],
        &[("FIO_BS", "4096")],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let spr = args.jobs[0].sprandom;
    assert_eq!(
        spr,
        SpRandom {
            enabled: true,
            ..SpRandom::default()
        }
    );
    assert_eq!(
        (spr.over_provisioning, spr.regions, spr.cache_bytes),
        (0.15, 100, 0)
    );
    let j = job(&["--spr_op=0.28", "--spr_num_regions=400", "--spr_cs=4m"]).sprandom;
    assert_eq!(
        (j.over_provisioning, j.regions, j.cache_bytes),
        (0.28, 400, 4 << 20)
    );
    // --parse-only's echo gives the same job back.
    let line = crate::showcmd::job_line(&job(&["--spr_op=0.28", "--spr_cs=4m"]), false);
    assert!(
        line.contains("--sprandom=1 --spr_op=0.28 --spr_cs=4194304"),
        "{line}"
    );
    // The spr_* options alone shape nothing, as in fio.
    let plain = ok(&["--name=p", "--size=1m", "--spr_op=0.2"])
        .jobs
        .remove(0);
    assert!(!plain.sprandom.enabled);
}

#[test]
fn values_fio_refuses_are_refused() {
    for op in ["0", "1", "1.5", "-0.1", "abc"] {
        let msg = refused(&[&format!("--spr_op={op}")]);
        assert!(msg.contains("between 0 and 1"), "{op}: {msg}");
    }
    let msg = refused(&["--spr_num_regions=0"]);
    assert!(msg.contains("at least one region"), "{msg}");
    let msg = refused(&["--random_generator=tausworthe"]);
    assert!(msg.contains("random_generator=lfsr"), "{msg}");
    assert!(job(&["--random_generator=lfsr"]).sprandom.enabled);
    let msg = refused(&["--rw=randrw"]);
    assert!(
        msg.contains("rw=randrw") && msg.contains("use rw=randwrite"),
        "{msg}"
    );
    let msg = refused(&["--norandommap=0"]);
    assert!(msg.contains("add norandommap=1"), "{msg}");
}

#[test]
fn one_job_on_one_file_only() {
    let msg = refused(&["--numjobs=2"]);
    assert!(
        msg.contains("numjobs=2") && msg.contains("use numjobs=1"),
        "{msg}"
    );
    let msg = parse(&[
        "--name=p",
        "--size=16m",
        "--nrfiles=2",
        "--rw=randwrite",
        "--norandommap=1",
        "--sprandom=1",
    ])
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("nrfiles=2") && msg.contains("one device or file"),
        "{msg}"
    );
}

#[test]
fn options_that_would_pick_offsets_or_bound_the_job_are_named() {
    for (extra, names) in [
        ("--bsrange=4k-8k", "bsrange/bssplit"),
        ("--blockalign=8k", "blockalign"),
        ("--random_distribution=zipf:1.2", "random_distribution"),
        ("--percentage_random=50", "percentage_random"),
        ("--rw=randwrite:8", "rw offset modifier"),
        ("--io_size=1g", "io_size"),
        ("--loops=2", "loops"),
    ] {
        let msg = refused(&[extra]);
        assert!(
            msg.contains(names) && msg.contains("drop"),
            "{extra}: {msg}"
        );
    }
    let msg = refused(&["--time_based", "--runtime=10"]);
    assert!(msg.contains("time_based"), "{msg}");
    // blockalign equal to bs, as the example has it, is no other pattern.
    assert!(job(&["--blockalign=4k"]).sprandom.enabled);
}

#[test]
fn norandommap_left_out_is_set_as_fio_sets_it() {
    let without: Vec<&str> = JOB
        .iter()
        .copied()
        .filter(|o| !o.starts_with("--norandommap"))
        .collect();
    let spec = job_of(&without, &[]);
    assert!(spec.sprandom.enabled);
    assert!(spec.random.norandommap);
}
