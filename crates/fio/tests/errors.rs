//! Command lines that must be refused, and what the user is told: each
//! message names the option (and job) and says what to do instead.

mod common;
use common::parse_error as error;
use diskbench_fio::{parse_args, FioError};

/// The error message for `line`, checked to contain every one of `parts`.
fn message(line: &str, parts: &[&str]) -> String {
    let msg = error(line).to_string();
    for part in parts {
        assert!(
            msg.contains(part),
            "`{line}`: {msg:?} should contain {part:?}"
        );
    }
    msg
}

#[test]
fn options_without_a_job() {
    assert_eq!(error("--rw=read --size=1g"), FioError::NoJob);
    assert_eq!(error(""), FioError::NoJob);
    assert_eq!(error("--name=global --size=1g"), FioError::NoJob);
    message("--bs=4k", &["no job given", "--name=NAME"]);
}

#[test]
fn positional_arguments_are_job_files() {
    message(
        "no-such-dir/job.fio",
        &["job file 'no-such-dir/job.fio'", "No such file"],
    );
    message(
        "--name=a --size=1m \u{2013}bs=8k",
        &["typographic dash", "--bs=8k"],
    );
    message(
        "--name=a --time_based 1",
        &["'1' after --time_based", "--time_based=1"],
    );
}

#[test]
fn unknown_option_suggests_the_closest() {
    let e = error("--name=a --iodpeth=4");
    assert_eq!(
        e,
        FioError::Unknown {
            option: "iodpeth".into(),
            suggestion: Some("iodepth".into())
        }
    );
    assert_eq!(
        e.to_string(),
        "unknown option 'iodpeth'; did you mean 'iodepth'?"
    );
    message("--name=a --time-based", &["did you mean 'time_based'?"]);
    message(
        "--output_format=json --name=a",
        &["did you mean 'output-format'?"],
    );
    let msg = message("--name=a --frobnicate=1", &["unknown option 'frobnicate'"]);
    assert!(!msg.contains("did you mean"), "{msg}");
}

#[test]
fn known_fio_options_not_carried_out() {
    for option in [
        "window_size=4k",
        "zonecapacity=1m",
        "nice=5",
        "write_barrier=1",
        "idle-prof=system",
        "crctest",
    ] {
        let name = option.split('=').next().unwrap();
        let msg = message(
            &format!("--name=a --size=1m --{option}"),
            &[&format!(
                "option '{name}' is a fio option diskbench does not carry out yet"
            )],
        );
        assert!(!msg.contains("unknown"), "{msg}");
    }
}

#[test]
fn missing_values() {
    message(
        "--name=a --bs",
        &["option 'bs' needs a value", "--bs=VALUE"],
    );
    message("--name=a --bs= --size=1m", &["option 'bs' needs a value"]);
    message("--name= --size=1m", &["option 'name' needs a value"]);
    message(
        "--name=a --filename --size=1m",
        &["option 'filename' needs a value"],
    );
    message(
        "--name=a --size=1m --output",
        &["option 'output' needs a value"],
    );
}

#[test]
fn zero_counts() {
    message(
        "--name=a --size=1m --bs=0",
        &["job 'a'", "bs=0", "at least 1 byte"],
    );
    message(
        "--name=a --size=1m --iodepth=0",
        &["job 'a'", "iodepth=0", "at least 1"],
    );
    message(
        "--name=a --size=1m --numjobs=0",
        &["numjobs=0", "numjobs=1 or more"],
    );
    message(
        "--name=a --size=1m --nrfiles=0",
        &["nrfiles=0", "at least one file"],
    );
    message(
        "--name=a --size=1m --loops=0",
        &["loops=0: that would run nothing"],
    );
    message(
        "--iodepth=0 --name=a --size=1m",
        &["global options: iodepth=0"],
    );
}

/// A time-based job without a runtime would never end (fio 3.33 drops
/// time_based then; diskbench refuses rather than run something else).
#[test]
fn time_based_needs_a_runtime() {
    message(
        "--name=a --size=1m --runtime=0 --time_based",
        &[
            "job 'a'",
            "runtime=0",
            "never end",
            "runtime=30s",
            "drop time_based",
        ],
    );
    message(
        "--runtime=0 --name=a --size=1m --time_based",
        &["runtime=0", "never end"],
    );
    message(
        "--name=a --size=1m --time_based",
        &["time_based", "never end", "runtime=30s"],
    );
    // runtime=0 alone stays fio's "no limit": the job ends with its size.
    assert_eq!(
        common::parse("--name=a --size=1m --runtime=0").jobs[0].runtime,
        None
    );
}

#[test]
fn percentages() {
    message(
        "--name=a --size=1m --rwmixread=101",
        &["rwmixread=101", "between 0 and 100"],
    );
    message(
        "--name=a --size=1m --rwmixwrite=150",
        &["rwmixwrite=150", "between 0 and 100"],
    );
    message(
        "--name=a --size=1m --rwmixread=-5",
        &["bad value for rwmixread", "whole number"],
    );
}

#[test]
fn bad_sizes_times_and_booleans() {
    message(
        "--name=a --size=1x",
        &[
            "job 'a': bad value for size",
            "'1x' is not a size",
            "4k, 1m, 1g",
        ],
    );
    message(
        "--name=a --size=1m --bs=big",
        &["bad value for bs", "'big' is not a size"],
    );
    message(
        "--name=a --size=1m --runtime=5y",
        &["bad value for runtime", "not a duration"],
    );
    message(
        "--name=a --size=1m --direct=maybe",
        &["bad value for direct", "not a boolean"],
    );
    message(
        "--name=a --size=1m --time_based=sure",
        &["bad value for time_based", "not a boolean"],
    );
    message(
        "--name=a --size=1m --iodepth=lots",
        &["bad value for iodepth", "not a whole number"],
    );
    message(
        "--name=a --size=1m --iodepth=99999999999",
        &["iodepth=99999999999", "too large"],
    );
    message(
        "--name=a --filename=/dev/sdb --allow-destructive=please",
        &["--allow-destructive=please: 'please' is not a boolean"],
    );
}

#[test]
fn rw_modes() {
    message(
        "--name=a --size=1m --rw=trimm",
        &[
            "not an I/O pattern",
            "randtrimwrite",
            "did you mean 'trim'?",
        ],
    );
    // A trim size of its own (bs=4k,8k,16k) is carried out now; rates are not.
    message(
        "--name=a --size=1m --rw=trim --rate=1m",
        &["rw=trim together with rate", "not supported yet"],
    );
    message(
        "--name=a --size=1m --rw=randomread",
        &["not an I/O pattern", "did you mean 'randread'?"],
    );
    message(
        "--name=a --size=1m --rw=randread:8k",
        &["rw=randread:8k", "a count of I/Os"],
    );
}

#[test]
fn block_size_ranges_point_at_bsrange_and_bssplit() {
    // `bs=4k,8k` (per direction) is carried out; a range in bs is not fio's syntax.
    message(
        "--name=a --size=1m --bs=4k-16k",
        &["bs=4k-16k", "bsrange=4k-64k", "bssplit=4k/60:64k/40"],
    );
}

#[test]
fn unsupported_engines_list_the_supported_ones() {
    message(
        "--name=a --size=1m --ioengine=splice",
        &["ioengine=splice", "sync, psync, io_uring, libaio, null"],
    );
    message(
        "--name=a --size=1m --ioengine=iouring",
        &["did you mean 'io_uring'?"],
    );
}

#[test]
fn direct_needs_512_byte_alignment() {
    let e = error("--name=a --size=1m --direct=1 --bs=1000");
    assert_eq!(
        e.to_string(),
        "job 'a': direct=1 needs bs to be a multiple of 512 bytes, got bs=1000: \
         use e.g. bs=4k, or direct=0"
    );
    message(
        "--name=a --size=1m --direct=1 --offset=1000",
        &["offset to be a multiple of 512", "offset=512"],
    );
    // Buffered I/O has no alignment rule.
    parse_args(["--name=a", "--size=1m", "--bs=1000"].map(String::from)).expect("buffered");
}

#[test]
fn size_is_needed_without_a_file() {
    assert_eq!(
        error("--name=x --rw=read"),
        FioError::MissingSize { job: "x".into() }
    );
    message(
        "--name=x --rw=read",
        &["job 'x' needs size= (or filename= of an existing file/device)"],
    );
    message("--name=x --directory=/tmp", &["job 'x' needs size="]);
    message("--name=x --size=0", &["job 'x' needs size="]);
    message(
        "--name=n --ioengine=null --filename=/dev/null",
        &["ioengine=null", "give size="],
    );
    message(
        "--name=a --size=50%",
        &["size=50% (a percentage", "not supported yet"],
    );
    message(
        "--name=a --size=4k --nrfiles=2",
        &["size=4k", "each file would hold less than one block"],
    );
}

#[test]
fn filename_forms_not_supported_yet() {
    message(
        "--name=a --filename=/tmp/a::/tmp/b",
        &["an empty name", "filename=/tmp/a:/tmp/b", "\\:"],
    );
    message(
        "--name=a --size=1m --directory=/a:/b",
        &["several directories"],
    );
    message("--name=a --filename=-", &["standard input or output"]);
}

#[test]
fn output_formats() {
    message(
        "--output-format=xml --name=a --size=1m",
        &[
            "--output-format=xml",
            "normal, json, json+, terse or ndjson",
        ],
    );
    message(
        "--output-format=jsn --name=a --size=1m",
        &["did you mean 'json'?"],
    );
}

#[test]
fn the_first_error_in_the_line_wins() {
    // Name-level errors come before value checks.
    assert!(matches!(
        error("--name=a --iodepth=0 --iodpeth=4"),
        FioError::Unknown { .. }
    ));
}
