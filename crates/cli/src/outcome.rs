//! Exit codes, signal handling and the parts of printing a result that every
//! measuring command shares (warnings on stderr, the error line).

use model::FailureKind;
use runner::{RunError, RunOutcome};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

/// The signal that stopped the run (0: none), for the exit status.
static STOPPED_BY: LazyLock<Arc<AtomicUsize>> = LazyLock::new(|| Arc::new(AtomicUsize::new(0)));

/// What fio exits with when SIGINT or SIGTERM stopped its jobs, whichever
/// signal it was and however many came: 128.
pub const FIO_SIGNAL_EXIT: u8 = 128;

/// Whether a second signal exits with [`FIO_SIGNAL_EXIT`] (`diskbench fio`)
/// rather than 128 + its number.
static SIGNAL_EXIT_AS_FIO: AtomicBool = AtomicBool::new(false);

/// For `diskbench fio`: a second stop signal exits as fio exits.
pub fn signal_exit_as_fio() {
    SIGNAL_EXIT_AS_FIO.store(true, Ordering::Relaxed);
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    Ok,
    Runtime,
    Usage,
    Interrupted,
    /// Stopped by SIGTERM: 143, as shells report 128 + 15.
    Terminated,
    /// An exit code of fio's own, for `diskbench fio`: the number of jobs
    /// that failed (when 2 or more did), or [`FIO_SIGNAL_EXIT`] for a run a
    /// signal stopped.
    Fio(u8),
}

impl From<Exit> for ExitCode {
    fn from(e: Exit) -> ExitCode {
        ExitCode::from(e.code())
    }
}

impl Exit {
    /// The process exit code: each failure kind's own (`FailureKind::exit_code`),
    /// 0 for success and 143 (128 + SIGTERM) for a run SIGTERM stopped.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Runtime => FailureKind::Runtime.exit_code(),
            Exit::Usage => FailureKind::Usage.exit_code(),
            Exit::Interrupted => FailureKind::Interrupted.exit_code(),
            Exit::Terminated => 128 + signal_hook::consts::SIGTERM as u8,
            Exit::Fio(n) => n,
        }
    }

    /// The exit of a command that failed this way (`None`: it did not):
    /// the one mapping from a failure to an exit code, for every command.
    pub fn of_kind(kind: Option<FailureKind>) -> Exit {
        match kind {
            None => Exit::Ok,
            Some(FailureKind::Usage) => Exit::Usage,
            Some(FailureKind::Runtime) => Exit::Runtime,
            Some(FailureKind::Interrupted)
                if STOPPED_BY.load(Ordering::Relaxed) == signal_hook::consts::SIGTERM as usize =>
            {
                Exit::Terminated
            }
            Some(FailureKind::Interrupted) => Exit::Interrupted,
        }
    }

    /// [`Exit::of_kind`] of a run's failure.
    pub fn of(failure: &Option<RunError>) -> Exit {
        Exit::of_kind(failure.as_ref().map(RunError::kind))
    }
}

/// The JSON error object (`failure`) of a command's own document: the
/// failure's kind, message and facts, as a run's `diskbench.failure` has them.
pub fn failure_json(e: &RunError) -> serde_json::Value {
    report::json::failure_value(&e.failure())
}

/// A stop flag set by the first SIGINT (Ctrl-C), SIGTERM or SIGHUP, so the
/// run ends cleanly (files removed, partial results printed and saved). A
/// second signal stops at once, with 128 + its number, but still removes
/// the test directories first (I/O still in flight goes to unlinked files).
pub fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::Signals;
    static STOP: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    if let Some(stop) = STOP.get() {
        return Ok(Arc::clone(stop));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    let flag = Arc::clone(&stop);
    std::thread::spawn(move || {
        for sig in signals.forever() {
            if flag.swap(true, Ordering::SeqCst) {
                runner::remove_test_dirs();
                if SIGNAL_EXIT_AS_FIO.load(Ordering::Relaxed) {
                    std::process::exit(FIO_SIGNAL_EXIT.into());
                }
                std::process::exit(128 + sig);
            }
            STOPPED_BY.store(sig as usize, Ordering::Relaxed);
        }
    });
    Ok(Arc::clone(STOP.get_or_init(|| stop)))
}

/// Prints the warnings and the error (if any) on stderr; the warnings about
/// the target itself were printed before the run (see `soak_loop::run`),
/// and the command's own checks by the command.
pub fn report_problems(outcome: &RunOutcome) {
    for w in &outcome.result.warnings {
        if !matches!(
            w,
            model::Warning::NotALocalDisk { .. } | model::Warning::Check { .. }
        ) {
            eprintln!("warning: {w}");
        }
    }
    report_error(outcome);
}

/// Prints a run's warnings and the command's checks (`verdicts`, but the
/// `unsaid` kinds) on stderr, each kind once on a short line naming its
/// tests (with `explain`, each test's whole text under it), then the error
/// (if any). The warnings about the target itself were printed before the run.
///
/// `said`: the warning kinds a sweep has said at an earlier point, left
/// out here (each point's are kept in full with its run) and added to.
pub fn report_findings(
    outcome: &RunOutcome,
    verdicts: &[report::sanity::Verdict],
    unsaid: &[&str],
    explain: bool,
    mut said: Option<&mut Vec<String>>,
) {
    let warnings: Vec<&model::Warning> = outcome
        .result
        .warnings
        .iter()
        .filter(|w| {
            !matches!(
                w,
                model::Warning::NotALocalDisk { .. } | model::Warning::Check { .. }
            )
        })
        .filter(|w| match said.as_deref_mut() {
            None => true,
            Some(said) if said.contains(&w.kind_name()) => false,
            Some(said) => {
                said.push(w.kind_name());
                true
            }
        })
        .collect();
    let found = report::glance::findings(&outcome.result, &warnings, verdicts, unsaid);
    eprint!("{}", report::glance::render(&found, explain));
    // Said once a command, not after each run of a soak or point of a sweep.
    static HINTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if !found.is_empty() && !explain && !HINTED.swap(true, std::sync::atomic::Ordering::Relaxed) {
        eprintln!("(--explain says what each line means, why, and the fix)");
    }
    report_error(outcome);
}

/// Prints why the run stopped early (if it did) on stderr, without the
/// warnings: `diskbench fio` keeps those in the result unless asked.
pub fn report_error(outcome: &RunOutcome) {
    match &outcome.failure {
        Some(RunError::Interrupted) => {
            eprintln!("diskbench: interrupted; results so far are shown, test files removed")
        }
        Some(e) => eprintln!("diskbench: {e}"),
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every failure kind exits with its own code, through the one mapping
    /// every command uses; a run's error exits by its kind.
    #[test]
    fn each_failure_kind_has_its_exit_code() {
        assert_eq!(Exit::of_kind(None).code(), 0);
        for kind in [
            FailureKind::Usage,
            FailureKind::Runtime,
            FailureKind::Interrupted,
        ] {
            assert_eq!(
                Exit::of_kind(Some(kind)).code(),
                kind.exit_code(),
                "{kind:?}"
            );
        }
        let codes = [
            (RunError::Usage("bad".into()), 2),
            (
                RunError::place(std::path::Path::new("/nope"), "no".into(), Some(2)),
                2,
            ),
            (
                RunError::in_job("w", RunError::Other("a worker failed".into())),
                1,
            ),
            (RunError::Interrupted, 130),
        ];
        for (error, code) in codes {
            assert_eq!(Exit::of(&Some(error)).code(), code);
        }
        assert_eq!((Exit::Terminated.code(), Exit::Usage.code()), (143, 2));
    }
}
