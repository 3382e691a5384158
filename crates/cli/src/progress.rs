//! The live view: one progress line on stderr, shown only when stderr is a
//! terminal so logs and pipes stay clean, drawn as often as fio's `--eta`
//! options say. The line itself is `report::progress::render`'s.

use runner::Progress;
use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// When and how often the line is drawn: fio's `--eta` (`auto`: only on a
/// terminal), `--eta-interval` and `--eta-newline`.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub show: fio::Eta,
    pub interval: Duration,
    /// Start a new line this often instead of redrawing the same one.
    pub newline: Option<Duration>,
}

impl Settings {
    /// On a terminal, or never.
    pub fn shown(on: bool) -> Settings {
        Settings {
            show: if on { fio::Eta::Auto } else { fio::Eta::Never },
            interval: Duration::ZERO,
            newline: None,
        }
    }
}

/// The progress callback, or `None` when it is not to be shown (stderr is
/// not a terminal and `--eta=always` was not given, or `--eta=never`). Off
/// a terminal the line is written whole each time, without escape codes.
pub fn bar(prefix: Option<String>, settings: Settings) -> Option<runner::ProgressFn> {
    let terminal = std::io::stderr().is_terminal();
    let shown = match settings.show {
        fio::Eta::Auto => terminal,
        fio::Eta::Always => true,
        fio::Eta::Never => false,
    };
    if !shown {
        return None;
    }
    // When the line was last drawn, and last ended with a newline.
    let last = Mutex::new((None::<Instant>, Instant::now()));
    Some(Box::new(move |p: &Progress| {
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if last.0.is_some_and(|t| now - t < settings.interval) {
            return;
        }
        last.0 = Some(now);
        let newline = match settings.newline {
            Some(every) if now - last.1 >= every => {
                last.1 = now;
                true
            }
            _ => !terminal,
        };
        let line = report::progress::render(
            prefix.as_deref(),
            &p.label,
            p.elapsed,
            p.planned,
            p.ios,
            p.seconds,
        );
        let mut err = std::io::stderr().lock();
        let _ = match (terminal, newline) {
            (true, false) => write!(err, "\r\x1b[2K{line}"),
            (true, true) => write!(err, "\r\x1b[2K{line}\n"),
            (false, _) => writeln!(err, "{line}"),
        };
        let _ = err.flush();
    }))
}

/// Clears the progress line before results are printed.
pub fn clear() {
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K");
    }
}
