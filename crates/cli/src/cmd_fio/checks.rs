//! Where `diskbench fio` says its trust checks ("buffered I/O on 1.0 MiB
//! with 23.5 GiB of RAM", "measured for only 92 ms", "the device was kept
//! at QD 5.5 of 128", what the job file asks that diskbench carries out
//! differently) and the line that says where the run was kept.
//!
//! fio's stderr holds errors and fio's own warnings, nothing else, and
//! scripts and test suites take any other byte there for a failed run (fio's
//! own suite fails a job whose stderr is not empty). So by default the
//! checks go only into the result: the JSON's `diskbench.warnings` and the
//! history, where `diskbench show` says them again. They are printed on
//! stderr, after fio's output, when asked: `--diskbench-checks` or
//! `DISKBENCH_CHECKS=1` (names no fio option or variable can take).
//!
//! "saved as run N in PATH" is diskbench's own line too: it is said with
//! the checks, or when stderr is a terminal (a person reading, who needs the
//! run's number for `diskbench show`); a pipe or a file gets fio's silence.
//! A save that fails is an error and is always said.

use std::io::IsTerminal;

/// The flag that prints the checks on stderr.
pub const FLAG: &str = "--diskbench-checks";
/// The environment variable that does the same (any value but empty or `0`).
pub const ENV: &str = "DISKBENCH_CHECKS";

/// For `diskbench fio --help`.
pub const HELP: &str = "
Checks (diskbench's own, kept in the result: the JSON's diskbench.warnings, the history):
  --diskbench-checks          also print them on stderr after the output, with
                              the line saying where the run was saved
                              (or set DISKBENCH_CHECKS=1); without it stderr holds
                              only what fio's would: errors and fio's warnings
";

/// Whether the checks were asked for, by `FLAG` (taken out of `args`, so the
/// fio parser never sees it) or by `ENV`.
pub fn take(args: &mut Vec<String>) -> bool {
    let before = args.len();
    args.retain(|a| a != FLAG);
    let by_flag = args.len() != before;
    by_flag || asked_by_env(std::env::var_os(ENV).as_deref())
}

/// `DISKBENCH_CHECKS`' value: set, and neither empty nor `0`.
fn asked_by_env(value: Option<&std::ffi::OsStr>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether the lines saying where the run was kept are left out.
pub fn quiet_saves(checks: bool) -> bool {
    !checks && !std::io::stderr().is_terminal()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn the_flag_comes_out_of_the_fio_arguments() {
        let mut args: Vec<String> = ["--name=a", FLAG, "--size=1m"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(take(&mut args));
        assert_eq!(args, ["--name=a", "--size=1m"]);
    }

    #[test]
    fn the_variable_asks_unless_empty_or_zero() {
        assert!(asked_by_env(Some(OsStr::new("1"))));
        assert!(asked_by_env(Some(OsStr::new("yes"))));
        assert!(!asked_by_env(Some(OsStr::new("0"))));
        assert!(!asked_by_env(Some(OsStr::new(""))));
        assert!(!asked_by_env(None));
    }
}
