//! The figures of the run under way, served for Prometheus at
//! `http://ADDR/metrics` (`--metrics-listen ADDR` on `run` and `fio`, soaks
//! included), so a soak of hours on many machines can be watched on one
//! dashboard (`contrib/grafana/diskbench.json`) while the history keeps the
//! results.
//!
//! The figures come from the runner's live hook, the one the history uses
//! to keep a run while it goes on (the cli's `live`): a run watched this way
//! hands the runner one hook made of both (`runner::fan_out`) and asks for
//! each second's latencies too (`RunOptions::live_latency`). The soak loop
//! says when a run starts and ends, and what its verdicts are. The address
//! is bound before anything runs, so a port in use or a bad address is a
//! usage error, not a run without its metrics.
//!
//! This crate serves and keeps numbers; it prints nothing (what the user
//! should hear, such as a label shown under another's name, comes back in
//! [`Metrics::warnings`]) and runs no I/O but its own socket.

mod exposition;
mod http;
mod state;
#[cfg(test)]
mod tests;

use model::{RunResult, SoakRef};
use report::soak::JobVerdict;
use runner::{LiveFn, LiveUpdate};
use state::{Identity, State};
use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// An address given to listen on that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not an address to listen on ({why}): give HOST:PORT, e.g. 127.0.0.1:9464")]
pub struct BadListen {
    pub text: String,
    pub why: String,
}

/// Why the server could not start; a usage error that names the fix.
#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error(
        "cannot serve metrics on {addr} (--metrics-listen): {source}; stop what listens there, \
         or give another address, e.g. --metrics-listen 127.0.0.1:0 for any free port"
    )]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the metrics server's thread: {0}")]
    Thread(std::io::Error),
}

/// `HOST:PORT`, `[IPv6]:PORT`, or `:PORT` for every interface, as
/// Prometheus' exporters take it.
pub fn parse_listen(text: &str) -> Result<SocketAddr, BadListen> {
    let full = match text.strip_prefix(':') {
        Some(port) => format!("0.0.0.0:{port}"),
        None => text.to_string(),
    };
    let bad = |why: String| BadListen {
        text: text.to_string(),
        why,
    };
    let mut addrs = full.to_socket_addrs().map_err(|e| bad(e.to_string()))?;
    addrs
        .next()
        .ok_or_else(|| bad("it names no address".into()))
}

/// The running server and the figures it serves.
pub struct Metrics {
    state: Arc<Mutex<State>>,
    addr: SocketAddr,
    warnings: Vec<String>,
}

impl Metrics {
    /// Binds `addr` and serves from now on, for `command` (`run`, `fio`)
    /// labelled with the user's `labels`. The error (a usage error) names
    /// the address, what went wrong and the fix.
    pub fn start(
        addr: SocketAddr,
        command: &'static str,
        labels: &BTreeMap<String, String>,
    ) -> Result<Metrics, MetricsError> {
        let listener =
            TcpListener::bind(addr).map_err(|source| MetricsError::Bind { addr, source })?;
        let addr = listener.local_addr().unwrap_or(addr);
        let (labels, warnings) = label_names(labels);
        let identity = Identity { command, labels };
        let started = dates::now_ms() as f64 / 1000.0;
        let state = Arc::new(Mutex::new(State::new(identity, started)));
        let served = Arc::clone(&state);
        http::serve(listener, exposition::CONTENT_TYPE, move || {
            lock(&served).render(Instant::now())
        })
        .map_err(MetricsError::Thread)?;
        Ok(Metrics {
            state,
            addr,
            warnings,
        })
    }

    /// Where it listens (the port chosen when 0 was asked).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What the user should be told about the labels, one sentence each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
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
/// name (`disk-type`, `disk.type`) keep the first, and the other is said
/// in the warnings returned beside them.
fn label_names(labels: &BTreeMap<String, String>) -> (Vec<(String, String)>, Vec<String>) {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut warnings = Vec::new();
    for (key, value) in labels {
        let name = exposition::user_label_name(key);
        match out.iter().find(|(n, _)| *n == name) {
            Some(_) => warnings.push(format!(
                "--label {key} is {name} in the metrics, as an earlier label is: only the \
                 first is shown there"
            )),
            None => out.push((name, value.clone())),
        }
    }
    (out, warnings)
}
