//! fio's command line: whatever the arguments, `fio::parse_args`
//! answers with jobs or an error, never a panic.
//!
//! The input is split into arguments on NUL bytes when it holds any, else on
//! white space (so the seeds can be plain command lines); each argument is
//! read as UTF-8 with replacement characters, as `std::env::args` would not
//! allow otherwise. Positional arguments are job files and are read: inputs
//! naming standard input (`-`) or a device, `/proc` or `/sys` file are
//! skipped (see `common`).

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts: Vec<&[u8]> = if data.contains(&0) {
        data.split(|&b| b == 0).collect()
    } else {
        data.split(|b| b.is_ascii_whitespace())
            .filter(|p| !p.is_empty())
            .collect()
    };
    let args: Vec<String> = parts
        .iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    if !args.iter().all(|a| common::safe_as_job_file(a)) {
        return;
    }
    match fio::parse_args(args) {
        Ok(parsed) => {
            assert!(!parsed.jobs.is_empty(), "Ok without a job");
            for job in &parsed.jobs {
                assert!(job.bs_bytes > 0 && job.iodepth > 0 && job.numjobs > 0);
                assert!(job.rwmix_read_pct <= 100);
            }
            let _ = fio::showcmd(&parsed.groups);
        }
        Err(e) => assert!(!e.to_string().is_empty(), "an error without a message"),
    }
});
