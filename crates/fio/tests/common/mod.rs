//! Helpers shared by the option tests: a command line parsed, or the error
//! it must give.
#![allow(dead_code)]

use diskbench_fio::{parse_args, FioArgs, FioError};

/// `line`, split on whitespace, which must parse.
pub fn parse(line: &str) -> FioArgs {
    parse_args(line.split_whitespace().map(String::from))
        .unwrap_or_else(|e| panic!("`{line}` should parse: {e}"))
}

/// The error of `line`, which must not parse.
pub fn parse_error(line: &str) -> FioError {
    match parse_args(line.split_whitespace().map(String::from)) {
        Ok(args) => panic!("`{line}` should fail, parsed to {:?}", args.jobs),
        Err(e) => e,
    }
}

/// `job` printed as `--parse-only` prints it (`job_line`) parses back to
/// the same job (the echoed `job options` aside); `opts` names the case.
pub fn assert_round_trip(job: &model::JobSpec, opts: &str) {
    let line = diskbench_fio::job_line(job, false);
    let mut again = parse(&line).jobs[0].clone();
    let mut want = job.clone();
    again.options.clear();
    want.options.clear();
    assert_eq!(again, want, "{opts}\n -> {line}");
}
