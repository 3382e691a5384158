//! fio's error options (`continue_on_error`, `ignore_error`, `error_dump`),
//! `fill_device`, `dedupe_global`, and the options that change only how
//! fio goes about the work (`create_serialize`, `verify_async`).

use super::{job_of, refusal};
use model::errors::{ErrorType, EIO, ENOSPC};

const JOB: [&str; 3] = ["--name=j", "--filename=/tmp/x", "--size=1m"];

fn job(extra: &[&str]) -> model::JobSpec {
    job_of(&JOB, extra)
}

fn refused(extra: &[&str]) -> String {
    refusal(&JOB, extra)
}

#[test]
fn continue_on_error_takes_fios_names() {
    for (text, read, write, verify) in [
        ("none", false, false, false),
        ("0", false, false, false),
        ("read", true, false, false),
        ("write", false, true, false),
        ("io", true, true, false),
        ("verify", false, false, true),
        ("all", true, true, true),
        ("1", true, true, true),
    ] {
        let p = job(&[&format!("--continue_on_error={text}")]).errors;
        assert_eq!(p.continue_on, [read, write, verify], "{text}");
        // Without ignore_error: fio's non-fatal errors only.
        assert_eq!(p.continues(ErrorType::Write, EIO), write, "{text}");
        assert!(!p.continues(ErrorType::Write, ENOSPC), "{text}");
    }
    let e = refused(&["--continue_on_error=sometimes"]);
    assert!(e.contains("none, read, write, io, verify, all"), "{e}");
}

#[test]
fn ignore_error_lists_errors_per_type_by_name_or_number() {
    let p = job(&["--ignore_error=EAGAIN,ENOSPC:122"]).errors;
    assert_eq!(p.ignore[0], Some(vec![11]));
    assert_eq!(p.ignore[1], Some(vec![28, 122]));
    assert_eq!(p.ignore[2], None);
    // A list given continues past its errors, with no continue_on_error
    // (as fio 3.33 does), and only past them.
    assert!(p.continues(ErrorType::Write, ENOSPC));
    assert!(!p.continues(ErrorType::Write, EIO));
    assert!(!p.continues(ErrorType::Verify, 84));
    // enospc-pressure.fio's: writes only.
    let p = job(&["--continue_on_error=write", "--ignore_error=,ENOSPC"]).errors;
    assert!(p.continues(ErrorType::Write, ENOSPC));
    assert!(!p.continues(ErrorType::Read, ENOSPC));
    for bad in [
        "--ignore_error=,ENOSPCX",
        "--ignore_error=,0",
        "--ignore_error=a,b,c,d",
    ] {
        let e = refused(&[bad]);
        assert!(e.contains("ignore_error"), "{bad}: {e}");
    }
}

#[test]
fn error_dump_fill_device_and_its_alias() {
    assert!(job(&[]).errors.dump);
    assert!(!job(&["--error_dump=0"]).errors.dump);
    assert!(job(&["--fill_device=1"]).fill_device);
    assert!(job(&["--fill_fs=1"]).fill_device);
    assert!(!job(&["--fill_fs=0"]).fill_device);
}

#[test]
fn how_fio_goes_about_the_work_is_accepted() {
    job(&[
        "--create_serialize=0",
        "--verify_async=4",
        "--verify=crc32c",
        "--rw=write",
    ]);
    assert!(refused(&["--verify_async=many"]).contains("verify_async"));
}

#[test]
fn dedupe_global_is_kept_and_alone_changes_no_data() {
    let d = job(&[
        "--dedupe_global=1",
        "--dedupe_percentage=50",
        "--dedupe_mode=working_set",
    ])
    .buffer_data;
    assert!(d.dedupe_global && d.shares_working_set());
    // Alone it is not buffer data that verify= would overwrite.
    let alone = job(&["--dedupe_global=1", "--verify=crc32c", "--rw=write"]);
    assert!(alone.buffer_data.is_default());
}

#[test]
fn create_on_open_reads_with_an_asynchronous_engine_only() {
    let reads = ["--create_on_open=1", "--rw=randrw"];
    for engine in ["libaio", "io_uring", "posixaio"] {
        let spec = job(&[reads[0], reads[1], &format!("--ioengine={engine}")]);
        assert!(spec.file_options.create_on_open, "{engine}");
    }
    let e = refused(&[reads[0], reads[1], "--ioengine=psync"]);
    assert!(e.contains("create_on_open") && e.contains("libaio"), "{e}");
}

#[test]
fn verify_write_sequence_and_header_seed_are_kept() {
    let v = |extra: &str| {
        job(&["--verify=crc32c", "--rw=write", extra])
            .verify
            .expect("verify")
            .write_sequence
    };
    assert!(v("--verify_write_sequence=1"));
    assert!(!v("--verify_write_sequence=0"));
    let spec = job(&["--verify=crc32c", "--rw=write", "--verify_header_seed=0"]);
    assert!(!spec.verify.expect("verify").header_seed);
}

#[test]
fn atomic_is_an_option_of_pvsync2_libaio_and_io_uring() {
    for engine in ["pvsync2", "libaio", "io_uring"] {
        let spec = job(&["--atomic=1", "--rw=write", &format!("--ioengine={engine}")]);
        assert!(spec.uring.atomic(), "{engine}");
    }
    assert!(!job(&["--atomic=0", "--ioengine=psync"]).uring.atomic());
    let e = refused(&["--atomic=1", "--ioengine=psync"]);
    assert!(e.contains("engine does not support atomic writes"), "{e}");
}
