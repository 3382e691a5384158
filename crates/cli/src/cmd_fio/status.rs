//! fio's `--status-interval=T`: every T of measuring, the output so far,
//! whole, in each format asked (a whole JSON document each time, so a
//! script can split the stream into documents and parse each), or the
//! `ndjson` stream's lines, printed from the runner's live hook. The run so
//! far and the lines are `report::status`'s.

use fio::OutputFormat;
use model::RunResult;
use report::status::{Live, SoFar};
use runner::LiveUpdate;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The live hook that prints the documents on stdout, or with `--output`
/// keeps them in `kept`, which goes to the file before the results.
/// `formats` are the output formats with the terse version.
pub fn watcher(
    interval: Duration,
    formats: (Vec<OutputFormat>, u32),
    kept: Option<Arc<Mutex<String>>>,
) -> crate::soak_loop::Watch {
    let interval_ms = (interval.as_millis() as u64).max(1);
    let state = Mutex::new(SoFar::default());
    Arc::new(move |u: &LiveUpdate| {
        let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
        let live = Live {
            group: u.group,
            jobs: u.jobs,
            groupids: u.groupids,
            points: u.points,
        };
        let Some(result) = s.add(u.result, live, interval_ms) else {
            return;
        };
        let text = documents(&result, &formats.0, formats.1, u.group);
        if let Some(kept) = &kept {
            kept.lock()
                .unwrap_or_else(|e| e.into_inner())
                .push_str(&text);
            return;
        }
        let mut out = std::io::stdout().lock();
        // A closed stdout ends the run elsewhere (the final print); nothing to do here.
        let _ = out.write_all(text.as_bytes());
        let _ = out.flush();
    })
}

/// The run so far in each format; `ndjson` gives the running group's jobs.
fn documents(result: &RunResult, formats: &[OutputFormat], terse: u32, group: u32) -> String {
    let mut text = String::new();
    for format in formats {
        match format {
            OutputFormat::Normal => text.push_str(&report::fio_normal::render(result)),
            OutputFormat::Json => text.push_str(&format!("{}\n", report::json::render(result))),
            OutputFormat::JsonPlus => {
                text.push_str(&format!("{}\n", report::json_plus::render(result)))
            }
            OutputFormat::Terse => text.push_str(&report::terse::render(result, terse)),
            OutputFormat::Ndjson => {
                text.push_str(&report::status::ndjson_lines(result, Some(group)))
            }
        }
    }
    text
}
