//! Whatever the command line, `parse_args` answers with jobs or an error,
//! never a panic: both on arbitrary strings and on plausible-looking fio
//! options that reach the value checks. Positional arguments are job files;
//! `-` (standard input) is left out so that no test waits on a terminal.
//! The job-file parser gets the same treatment in `never_panics_files.rs`.

use diskbench_fio::parse_args;
use proptest::prelude::*;

const NAMES: &[&str] = &[
    "name",
    "rw",
    "readwrite",
    "rwmixread",
    "rwmixwrite",
    "bs",
    "blocksize",
    "size",
    "offset",
    "filename",
    "directory",
    "nrfiles",
    "numjobs",
    "iodepth",
    "ioengine",
    "direct",
    "buffered",
    "invalidate",
    "fsync",
    "fdatasync",
    "end_fsync",
    "runtime",
    "time_based",
    "ramp_time",
    "loops",
    "randrepeat",
    "randseed",
    "group_reporting",
    "thread",
    "output-format",
    "output",
    "allow-destructive",
    "verify",
    "iodpeth",
    "",
];

const VALUES: &[&str] = &[
    "",
    "0",
    "1",
    "100",
    "101",
    "4k",
    "4k,8k",
    "1g",
    "50%",
    "1000",
    "0x10",
    "-1",
    "randrw",
    "trim",
    "io_uring",
    "null",
    "json",
    "normal,json",
    "a:b",
    "\\:",
    "-",
    "global",
    "5s",
    "18446744073709551616",
    "1.5",
    "yes",
];

fn plausible_arg() -> impl Strategy<Value = String> {
    (
        prop::sample::select(NAMES),
        prop::option::of(prop::sample::select(VALUES)),
        any::<bool>(),
    )
        .prop_map(|(name, value, double_dash)| {
            let dashes = if double_dash { "--" } else { "-" };
            match value {
                Some(v) => format!("{dashes}{name}={v}"),
                None => format!("{dashes}{name}"),
            }
        })
}

proptest! {
    #[test]
    fn arbitrary_strings(args in prop::collection::vec(any::<String>(), 0..8)) {
        prop_assume!(!args.iter().any(|a| a == "-"));
        let _ = parse_args(args);
    }

    #[test]
    fn plausible_options(
        start_job in any::<bool>(),
        rest in prop::collection::vec(plausible_arg(), 0..12),
    ) {
        // Half the cases start a valid job, so the value checks are reached.
        let mut args: Vec<String> = Vec::new();
        if start_job {
            args.extend(["--name=p".to_string(), "--size=1m".to_string()]);
        }
        args.extend(rest);
        match parse_args(args) {
            Ok(parsed) => {
                prop_assert!(!parsed.jobs.is_empty());
                for job in &parsed.jobs {
                    prop_assert!(job.bs_bytes > 0 && job.iodepth > 0 && job.numjobs > 0);
                    prop_assert!(job.rwmix_read_pct <= 100);
                }
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
    }
}
