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
