//! The options fio's own example job files use: aliases of fio's option
//! table, the `rw=` offset modifier, `offset_increment`, `ss_interval`,
//! `threads` and zoned lists with a zone of no size.

use super::{err_at, ok};
use model::job::{Distribution, RwStep};
use std::time::Duration;

const JOB: [&str; 3] = ["--name=j", "--filename=/tmp/x", "--size=1m"];

fn job(extra: &[&str]) -> model::JobSpec {
    let args: Vec<&str> = JOB.iter().chain(extra).copied().collect();
    ok(&args).jobs.remove(0)
}

#[test]
fn fio_aliases_name_the_same_options() {
    assert_eq!(job(&["--ratemin=1m"]).rate.min_bytes_per_sec.read, 1 << 20);
    assert_eq!(job(&["--ratecycle=500"]).rate.cycle_ms, 500);
    assert_eq!(job(&["--fileoffset=8k"]).offset_bytes, 8192);
    assert!(!job(&["--allrandrepeat=0"]).randrepeat);
}

#[test]
fn rw_offset_modifiers_are_sizes_for_sequential_and_counts_for_random() {
    let back = job(&["--rw=read:-8k"]);
    assert_eq!(back.offset_steps.rw_step, Some(RwStep::Skip(-8192)));
    assert_eq!(crate::offset_opts::rw_text(&back), "read:-8192");
    assert_eq!(
        job(&["--rw=write:4"]).offset_steps.rw_step,
        Some(RwStep::Skip(4))
    );
    let runs = job(&["--rw=randread:8"]).offset_steps.rw_step;
    assert_eq!(runs, Some(RwStep::RandomEvery(8)));
    assert_eq!(job(&["--rw=randread:1"]).offset_steps.rw_step, None);
    assert!(crate::tests::parse(&["--name=j", "--size=1m", "--rw=randread:8k"]).is_err());
}

#[test]
fn offset_increment_and_ss_interval_are_kept() {
    assert_eq!(
        job(&["--offset_increment=1m"]).offset_steps.increment,
        1 << 20
    );
    let ss = job(&["--ss=iops:5%", "--ss_dur=30s", "--ss_interval=10"]).steadystate;
    assert_eq!(ss.map(|s| s.interval), Some(Duration::from_secs(10)));
    let ss = job(&["--ss=iops:5%", "--ss_dur=30s"]).steadystate;
    assert_eq!(ss.map(|s| s.interval), Some(Duration::from_secs(1)));
}

#[test]
fn a_sub_second_ss_interval_is_refused_by_name() {
    let dir = super::Dir::new();
    let f = dir.file(
        "ss.fio",
        "[j]\nfilename=/tmp/x\nsize=1m\nss=iops:5%\nss_dur=10\nss_interval=500ms\n",
    );
    err_at(&[&f], &f, 6, &["ss_interval", "whole number of seconds"]);
}

#[test]
fn tiobench_threads_is_accepted_as_fio_ignores_it() {
    assert_eq!(job(&["--threads=4"]).numjobs, 1);
}

#[test]
fn a_zone_without_size_gets_what_the_others_leave() {
    let spec = job(&[
        "--rw=randread",
        "--random_distribution=zoned:50/5:30/15:20/",
    ]);
    let Distribution::Zoned(zones) = &spec.random.distribution.read else {
        panic!("{:?}", spec.random.distribution)
    };
    let sizes: Vec<f64> = zones.iter().map(|z| z.size).collect();
    assert_eq!(sizes, [5.0, 15.0, 80.0]);
}

#[test]
fn engines_needing_missing_hardware_say_what_is_missing_wherever_their_options_stand() {
    let dir = super::Dir::new();
    let f = dir.file(
        "rdma.fio",
        "[global]\nhostname=peer\nport=5000\n\n[client]\nioengine=rdma\nverb=write\n",
    );
    err_at(
        &[&f],
        &f,
        6,
        &["ioengine=rdma", "RDMA network adapter", "local files"],
    );
    let zoned = dir.file(
        "zbd.fio",
        "[z]\nfilename=/dev/sdz\nzonemode=zbd ; host-managed\n",
    );
    err_at(
        &[&zoned],
        &zoned,
        3,
        &["zonemode=zbd", "zoned block device"],
    );
    let e = crate::tests::parse(&["--name=h", "--http_verbose=1", "--ioengine=http"]);
    let msg = e.expect_err("http needs a server").to_string();
    assert!(msg.contains("ioengine=http needs an HTTP"), "{msg}");
}

#[test]
fn newer_fio_options_are_refused_by_name() {
    let e = crate::tests::parse(&["--name=j", "--size=1m", "--dataplacement=fdp"]);
    let msg = e.expect_err("not carried out").to_string();
    assert!(
        msg.contains("'dataplacement' is a fio option diskbench does not carry out"),
        "{msg}"
    );
    // Newer fio's log columns are carried out (see the runner's `logs`).
    let logs = job(&["--log_issue_time=1", "--log_window_value=both"]).logs;
    assert!(logs.issue_time && logs.both_values && !logs.max_value);
    assert!(job(&["--log_max_value=max"]).logs.max_value);
}

#[test]
fn exit_rules_parse_and_a_bad_exit_what_names_the_choices() {
    let rules = job(&["--exitall", "--exit_what=all", "--exitall_on_error"]).exit_rules;
    assert!(rules.exitall && rules.on_error);
    assert_eq!(rules.what, model::control::ExitWhat::All);
    let e = crate::tests::parse(&["--name=j", "--size=1m", "--exit_what=everything"]);
    let msg = e.expect_err("a bad value").to_string();
    assert!(
        msg.contains("group (the default), stonewall or all"),
        "{msg}"
    );
}

#[test]
fn sequence_distribution_parses_its_commas_as_one_sequence() {
    use model::job::Distribution;
    let j = job(&[
        "--rw=randread",
        "--random_distribution=sequence:2,0,1",
        "--random_sequence_stride=1",
    ]);
    let seq = Distribution::Sequence(vec![2, 0, 1]);
    assert_eq!(
        (&j.random.distribution.read, &j.random.distribution.write),
        (&seq, &seq)
    );
    assert!(j.random.sequence_stride);
    assert!(!job(&["--random_sequence_stride=0"]).random.sequence_stride);
    let line = crate::showcmd::job_line(&j, false);
    assert!(
        line.contains("--random_distribution=sequence:2,0,1 --random_sequence_stride"),
        "{line}"
    );
    let e = crate::tests::parse(&[
        "--name=j",
        "--size=1m",
        "--random_distribution=sequence:2,x",
    ]);
    let msg = e.expect_err("not a block").to_string();
    assert!(msg.contains("'x' is not a block index"), "{msg}");
    let long: Vec<String> = (0..65).map(|b| b.to_string()).collect();
    let long = format!("--random_distribution=sequence:{}", long.join(","));
    let e = crate::tests::parse(&["--name=j", "--size=1m", &long]);
    let msg = e.expect_err("too long").to_string();
    assert!(msg.contains("at most 64"), "{msg}");
}

#[test]
fn io_submit_mode_offload_runs_with_an_asynchronous_engine_only() {
    // inline changes nothing but the options echoed; neither does offload
    // with an asynchronous engine or the null engine, or at depth 1.
    for mode in ["inline", "offload"] {
        let engines = [
            &["--ioengine=libaio", "--iodepth=32"][..],
            &["--ioengine=null", "--iodepth=16"],
            &["--iodepth=1"],
        ];
        for extra in engines {
            let mut given = job(&[&[format!("--io_submit_mode={mode}").as_str()], extra].concat());
            given.options.retain(|(name, _)| name != "io_submit_mode");
            assert_eq!(given, job(extra), "{mode} {extra:?}");
        }
    }
    let e = crate::tests::parse(&[
        "--name=j",
        "--size=1m",
        "--ioengine=psync",
        "--iodepth=8",
        "--io_submit_mode=offload",
    ]);
    let msg = e.expect_err("a synchronous engine at depth 8").to_string();
    assert!(
        msg.contains("io_submit_mode=offload with ioengine=psync at iodepth=8")
            && msg.contains("use ioengine=libaio or io_uring"),
        "{msg}"
    );
    // serialize_overlap: within a job always; with offload, fio serializes
    // across jobs too, which only a shared (named) file makes a difference.
    assert!(job(&["--serialize_overlap=1"]).serialize_overlap);
    let offload = ["--io_submit_mode=offload", "--serialize_overlap=1"];
    assert!(job(&offload).serialize_overlap, "each job its own files");
    let shared = ["--name=j", "--size=1m", "--filename=/tmp/f", "--numjobs=2"];
    let e = crate::tests::parse(&[&shared[..], &offload].concat());
    let msg = e.expect_err("offload clones sharing a file").to_string();
    assert!(msg.contains("leave filename= out"), "{msg}");
    let e = crate::tests::parse(&["--name=j", "--size=1m", "--io_submit_mode=later"]);
    let msg = e.expect_err("a bad value").to_string();
    assert!(msg.contains("use inline (the default) or offload"), "{msg}");
}

#[test]
fn flow_options_parse_with_fios_defaults() {
    let flow = job(&["--flow=8", "--flow_id=3", "--flow_sleep=1000"]).flow;
    assert_eq!((flow.weight, flow.id, flow.sleep_us), (8, 3, 1000));
    // flow_id 0 (the global flow) and no sleep unless given.
    let flow = job(&["--flow=1"]).flow;
    assert_eq!((flow.weight, flow.id, flow.sleep_us), (1, 0, 0));
    assert_eq!(job(&[]).flow.weight, 0, "no flow unless asked");
    let e = crate::tests::parse(&["--name=j", "--size=1m", "--flow=-1"]);
    let msg = e.expect_err("a negative weight").to_string();
    assert!(msg.contains("flow"), "{msg}");
}

#[test]
fn buffer_options_parse_and_refuse_what_is_not_carried_out() {
    let d = job(&[
        "--buffer_pattern=0xdead\"ab\"",
        "--buffer_compress_percentage=40",
    ])
    .buffer_data;
    assert_eq!(d.pattern, Some(vec![0xde, 0xad, b'a', b'b']));
    assert_eq!(d.compress_pct, Some(40));
    assert!(d.refills(), "fio turns refill_buffers on with compression");
    let d = job(&["--dedupe_percentage=30", "--dedupe_mode=working_set"]).buffer_data;
    assert_eq!(d.dedupe_mode, model::data::DedupeMode::WorkingSet);
    assert!(!job(&["--scramble_buffers=0"]).buffer_data.scramble);
    let refused = |arg: &str, says: &str| {
        let e = crate::tests::parse(&["--name=j", "--size=1m", arg]);
        let msg = e.expect_err(arg).to_string();
        assert!(msg.contains(says), "{arg}: {msg}");
    };
    // A name in single quotes is a file whose bytes are the pattern.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.bin");
    std::fs::write(&file, [1, 2, 3]).unwrap();
    let from_file = format!("--buffer_pattern=0xff'{}'", file.display());
    assert_eq!(
        job(&[&from_file]).buffer_data.pattern,
        Some(vec![0xff, 1, 2, 3])
    );
    refused(
        "--buffer_pattern='/nowhere/data.bin'",
        "cannot read the pattern file",
    );
    refused("--buffer_pattern=%o", "verify_pattern's");
    refused(
        "--dedupe_mode=sometimes",
        "repeat (the default) or working_set",
    );
}

#[test]
fn pvsync2_takes_hipri_and_uncached_and_other_engines_do_not() {
    let j = job(&["--ioengine=pvsync2", "--hipri", "--uncached=1"]);
    assert_eq!(j.engine, model::EngineKind::Pvsync2);
    assert_eq!((j.uring.hipri, j.uring.uncached), (Some(true), Some(true)));
    let e = crate::tests::parse(&["--name=j", "--size=1m", "--ioengine=pvsync2", "--fixedbufs"]);
    assert!(e
        .expect_err("io_uring's")
        .to_string()
        .contains("fixedbufs is an option of the io_uring engine"));
    let e = crate::tests::parse(&[
        "--name=j",
        "--size=1m",
        "--ioengine=io_uring",
        "--uncached=1",
    ]);
    assert!(e
        .expect_err("pvsync2's")
        .to_string()
        .contains("use ioengine=pvsync2"));
}

#[test]
fn strided_zones_take_their_sizes_in_any_order_and_zbd_names_the_device() {
    let z = job(&["--zonesize=8k", "--zoneskip=16k", "--zonemode=strided"]).offset_steps;
    let zones = z.strided.expect("strided");
    assert_eq!((zones.range, zones.size, zones.skip), (8192, 8192, 16384));
    let ignored = job(&["--zonesize=8k", "--zonemode=none"]).offset_steps;
    assert_eq!(
        ignored.strided, None,
        "fio ignores the sizes with zonemode=none"
    );
    let e = crate::tests::parse(&["--name=j", "--size=1m", "--zonemode=strided"]);
    assert!(e
        .expect_err("no zonesize")
        .to_string()
        .contains("need zonesize="));
    let e = crate::tests::parse(&["--name=j", "--size=1m", "--zonemode=zbd"]);
    assert!(e
        .expect_err("zbd")
        .to_string()
        .contains("zoned block device"));
}
