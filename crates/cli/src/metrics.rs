//! `--metrics-listen ADDR` on `run` and `fio` (soaks included): the figures
//! of the run under way, served for Prometheus at `http://ADDR/metrics`, so
//! a soak of hours on many machines can be watched on one dashboard
//! (`contrib/grafana/diskbench.json`) while the history keeps the results.
//!
//! The figures come from the runner's live hook, the one the history uses
//! to keep a run while it goes on (`crate::live`): a run watched this way
//! hands the runner one hook made of both (`runner::fan_out`) and asks for
//! each second's latencies too (`RunOptions::live_latency`). The soak loop
//! says when a run starts and ends, and what its verdicts are. The address
//! is bound before anything runs, so a port in use or a bad address is a
//! usage error, not a run without its metrics.

mod exposition;
mod http;
mod state;
#[cfg(test)]
mod tests;

use crate::history::TagArgs;
use clap::Args;
use model::{RunResult, SoakRef};
use report::soak::JobVerdict;
use runner::{LiveFn, LiveUpdate};
use state::{Identity, State};
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// The metrics flag of a measuring command.
#[derive(Args, Clone, Debug, Default)]
pub struct MetricsArgs {
    /// Serve the live figures for Prometheus at http://ADDR/metrics while the runs go on,
    /// e.g. 127.0.0.1:9464 (:9464 for every interface; port 0 picks a free one, said on stderr)
    #[arg(long, value_name = "ADDR", value_parser = parse_listen)]
    pub metrics_listen: Option<SocketAddr>,
}

/// `HOST:PORT`, `[IPv6]:PORT`, or `:PORT` for every interface, as
/// Prometheus' exporters take it.
pub fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    let full = match text.strip_prefix(':') {
        Some(port) => format!("0.0.0.0:{port}"),
        None => text.to_string(),
    };
    let bad = |why: String| {
        format!(
            "'{text}' is not an address to listen on ({why}): give HOST:PORT, e.g. 127.0.0.1:9464"
        )
    };
    let mut addrs = full.to_socket_addrs().map_err(|e| bad(e.to_string()))?;
    addrs
        .next()
        .ok_or_else(|| bad("it names no address".into()))
}

/// The running server and the figures it serves.
pub struct Metrics {
    state: Arc<Mutex<State>>,
}

impl MetricsArgs {
    /// Binds the address and serves from now on, for `command` (`run`,
    /// `fio`) labelled with `tags`' labels; `None` without the flag. The
    /// error (a usage error) names the address, what went wrong and the fix.
    pub fn start(&self, command: &'static str, tags: &TagArgs) -> Result<Option<Metrics>, String> {
        let Some(addr) = self.metrics_listen else {
            return Ok(None);
        };
        let listener = TcpListener::bind(addr).map_err(|e| {
            format!(
                "cannot serve metrics on {addr} (--metrics-listen): {e}; stop what listens there, \
                 or give another address, e.g. --metrics-listen 127.0.0.1:0 for any free port"
            )
        })?;
        let addr = listener.local_addr().unwrap_or(addr);
        let identity = Identity {
            command,
            labels: label_names(&tags.labels()),
        };
        let started = dates::now_ms() as f64 / 1000.0;
        let state = Arc::new(Mutex::new(State::new(identity, started)));
        let served = Arc::clone(&state);
        http::serve(listener, exposition::CONTENT_TYPE, move || {
            lock(&served).render(Instant::now())
        })
        .map_err(|e| format!("cannot start the metrics server's thread: {e}"))?;
        eprintln!("diskbench: live metrics at http://{addr}/metrics");
        Ok(Some(Metrics { state }))
    }
}

/// The figures stay usable after a panic elsewhere: they are only numbers.
fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

impl Metrics {
    /// The live hook of one run (see `RunOptions::live`).
    pub fn hook(&self) -> LiveFn {
        let state = Arc::clone(&self.state);
        Box::new(move |u: &LiveUpdate| lock(&state).update(u, Instant::now()))
    }

    /// Run `soak.run` of a soak (or a single run) starts.
    pub fn run_started(&self, soak: Option<&SoakRef>, planned_runs: Option<u32>) {
        let (id, run) = soak.map_or((None, 1), |s| (Some(s.id.as_str()), s.run));
        lock(&self.state).run_started(id, run, planned_runs);
    }

    /// A run ended with `result`; `verdicts` are the soak's so far.
    pub fn run_finished(&self, result: &RunResult, verdicts: &[JobVerdict]) {
        lock(&self.state).run_finished(result, verdicts);
    }
}

/// `--label` keys as label names, each once: two keys that give the same
/// name (`disk-type`, `disk.type`) keep the first, and the other is said.
fn label_names(labels: &std::collections::BTreeMap<String, String>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (key, value) in labels {
        let name = exposition::user_label_name(key);
        match out.iter().find(|(n, _)| *n == name) {
            Some(_) => eprintln!(
                "diskbench: warning: --label {key} is {name} in the metrics, as an earlier \
                 label is: only the first is shown there"
            ),
            None => out.push((name, value.clone())),
        }
    }
    out
}
