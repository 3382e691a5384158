//! Exit codes, signal handling and the parts of printing a result that every
//! measuring command shares (warnings on stderr, the error line).

use runner::{RunError, RunOutcome};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok,
    Runtime,
    Usage,
    Interrupted,
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(match e {
            Exit::Ok => 0,
            Exit::Runtime => 1,
            Exit::Usage => 2,
            Exit::Interrupted => 130,
        })
    }
}

impl Exit {
    pub fn of(failure: &Option<RunError>) -> Exit {
        match failure {
            None => Exit::Ok,
            Some(RunError::Usage(_)) => Exit::Usage,
            Some(RunError::Runtime(_)) => Exit::Runtime,
            Some(RunError::Interrupted) => Exit::Interrupted,
        }
    }
}

/// A stop flag set by the first Ctrl-C or SIGTERM, so the run ends cleanly
/// (files removed, partial results printed); a second signal exits at once.
pub fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        flag::register_conditional_shutdown(sig, 130, Arc::clone(&stop))?;
        flag::register(sig, Arc::clone(&stop))?;
    }
    Ok(stop)
}

/// Prints the warnings and the error (if any) on stderr.
pub fn report_problems(outcome: &RunOutcome) {
    for w in &outcome.result.warnings {
        eprintln!("warning: {w}");
    }
    match &outcome.failure {
        Some(RunError::Interrupted) => {
            eprintln!("diskbench: interrupted; results so far are shown, test files removed")
        }
        Some(e) => eprintln!("diskbench: {e}"),
        None => {}
    }
}
