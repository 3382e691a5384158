//! `--debug=parse`: fio traces each option it reads, one line each
//! (`handle_option=NAME, ptr=VALUE`), and says what its steady-state
//! criterion was set to (`set steady state IOPS threshold to 10.000000`,
//! `... threshold to 0.100000%`, `... BW threshold to 12`, `... latency
//! threshold to 5000 nsec`). Tools and fio's own steady-state test read
//! those lines on stdout; they are made here from the options as parsed,
//! and the binary prints them (with fio's `parse PID` prefix).

use crate::error::Scope;
use crate::FioArgs;
use model::SteadyMetric;

/// The trace lines of `args`: the global options, then each job's own.
pub fn parse_trace(args: &FioArgs) -> Vec<String> {
    let mut lines = Vec::new();
    let globals = args.global_options.iter();
    let own = args.jobs.iter().flat_map(|j| {
        let inherited = args.global_options.len().min(j.options.len());
        j.options[inherited..].iter()
    });
    for (name, value) in globals.chain(own) {
        lines.push(format!("handle_option={name}, ptr={value}"));
        if name == "steadystate" {
            if let Some(line) = steady_line(value) {
                lines.push(line);
            }
        }
    }
    lines
}

/// fio's words for a steady-state criterion (`iops:10`, `bw_slope:0.1%`).
fn steady_line(value: &str) -> Option<String> {
    let (metric, v, percent) =
        crate::jobs::steady_criterion(&Scope::Global, "steadystate", value).ok()?;
    if percent {
        return Some(format!("set steady state threshold to {v:.6}%"));
    }
    Some(match metric {
        SteadyMetric::Iops | SteadyMetric::IopsSlope => {
            format!("set steady state IOPS threshold to {v:.6}")
        }
        SteadyMetric::Bw | SteadyMetric::BwSlope => {
            format!("set steady state BW threshold to {}", v as i64)
        }
        SteadyMetric::Lat | SteadyMetric::LatSlope => {
            format!("set steady state latency threshold to {} nsec", v as i64)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_state_criteria_in_fios_words() {
        let line = |v| steady_line(v).unwrap();
        assert_eq!(
            line("iops:10"),
            "set steady state IOPS threshold to 10.000000"
        );
        assert_eq!(line("iops:.1%"), "set steady state threshold to 0.100000%");
        assert_eq!(line("bw:10%"), "set steady state threshold to 10.000000%");
        assert_eq!(line("bw:12"), "set steady state BW threshold to 12");
        assert_eq!(steady_line("nonsense"), None);
    }
}
