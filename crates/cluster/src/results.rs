//! How a pod hands its runs to the collector: through its log, the one
//! channel every cluster keeps and every user may read (`pods/log`). The
//! pod prints its runs, one JSON document per line, between two marker
//! lines; whatever else the log holds (the run's table, warnings) is for
//! people reading `kubectl logs` and is skipped.
//!
//! The end marker carries the command's exit code, so a log cut short (a
//! pod killed mid-print) is told from a run that saved nothing.

pub const BEGIN: &str = "=== diskbench runs begin ===";
pub const END_PREFIX: &str = "=== diskbench runs end: exit ";
const END_SUFFIX: &str = " ===";

/// The block a pod prints: the marker, each run's JSON on one line, the end.
pub fn block(runs: &[String], exit_code: u8) -> String {
    let mut out = format!("{BEGIN}\n");
    for r in runs {
        out.push_str(r);
        out.push('\n');
    }
    out.push_str(&format!("{END_PREFIX}{exit_code}{END_SUFFIX}\n"));
    out
}

/// What a pod's log held.
#[derive(Debug, Default, PartialEq)]
pub struct PodRuns {
    /// Each run's JSON, as printed.
    pub runs: Vec<String>,
    /// The command's exit code; `None` when the block never ended.
    pub exit_code: Option<u8>,
    /// Whether the block began at all.
    pub found: bool,
}

/// Reads the block out of a whole log (the last one, if a log held more).
pub fn parse(log: &str) -> PodRuns {
    let mut out = PodRuns::default();
    let mut inside = false;
    for line in log.lines() {
        let line = line.trim_end_matches('\r');
        if line == BEGIN {
            out = PodRuns {
                found: true,
                ..PodRuns::default()
            };
            inside = true;
        } else if let Some(rest) = line.strip_prefix(END_PREFIX) {
            if inside {
                out.exit_code = rest.trim_end_matches(END_SUFFIX).parse().ok();
                inside = false;
            }
        } else if inside && line.starts_with('{') {
            out.runs.push(line.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_read_back_from_a_log_with_other_lines_around_them() {
        let log = format!(
            "target: /data\nseq read  1200 MB/s\n{}warning: tmpfs\n",
            block(&["{\"a\":1}".into(), "{\"b\":2}".into()], 0)
        );
        let got = parse(&log);
        assert_eq!(got.runs, ["{\"a\":1}", "{\"b\":2}"]);
        assert_eq!(got.exit_code, Some(0));
        assert!(got.found);
    }

    #[test]
    fn a_log_cut_short_has_no_exit_code() {
        let got = parse(&format!("{BEGIN}\n{{\"a\":1}}\n"));
        assert_eq!(got.runs.len(), 1);
        assert_eq!(got.exit_code, None);
        let none = parse("diskbench: error\n");
        assert!(!none.found);
    }

    #[test]
    fn the_exit_code_of_a_failed_command_is_kept() {
        assert_eq!(parse(&block(&[], 2)).exit_code, Some(2));
    }
}
