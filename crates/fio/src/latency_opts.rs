//! `latency_target`, `latency_window`, `latency_percentile` and
//! `latency_run`: the job searches, while it runs, for the deepest queue
//! (up to `iodepth`) whose latency stays under the target, window by window
//! (see `model::latency_target`; the search is the runner's). fio reads
//! both times in microseconds when they have no unit.

use crate::error::FioError;
use crate::options::Key;
use crate::pattern;
use crate::values::Given;
use model::JobSpec;

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let lt = &mut spec.latency_target;
    match o.key {
        Key::LatencyTarget => lt.target = pattern::duration_us(o.scope, o.name, o.text)?,
        Key::LatencyWindow => lt.window = pattern::duration_us(o.scope, o.name, o.text)?,
        Key::LatencyPercentile => lt.percentile = percentile(o)?,
        Key::LatencyRun => lt.keep_running = o.boolean()?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// A share of the I/Os from 0 to 100, as fio bounds it.
fn percentile(o: &Given) -> Result<f64, FioError> {
    match o.text.trim().parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(o.invalid(
            "use a percentage of the I/Os from 0 to 100 that must meet latency_target, e.g. 99.9",
        )),
    }
}

/// What `--parse-only` shows of these: each one set away from fio's default.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let (lt, d) = (&job.latency_target, model::LatencyTarget::default());
    let micros = crate::spell::format_micros;
    if lt.target != d.target {
        opts.push(("latency_target", Some(micros(lt.target))));
    }
    if lt.window != d.window {
        opts.push(("latency_window", Some(micros(lt.window))));
    }
    if lt.percentile != d.percentile {
        opts.push(("latency_percentile", Some(lt.percentile.to_string())));
    }
    if lt.keep_running {
        opts.push(("latency_run", Some("1".to_string())));
    }
}
