//! A one-line progress display on stderr, shown only when stderr is a
//! terminal so logs and pipes stay clean.

use runner::Progress;
use std::io::{IsTerminal, Write};

pub fn bar() -> Option<runner::ProgressFn> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    Some(Box::new(|p: &Progress| {
        let elapsed = p.elapsed.as_secs_f64();
        let line = match p.planned {
            Some(total) => {
                let total = total.as_secs_f64().max(0.001);
                let done = (elapsed / total).min(1.0);
                let filled = (done * 24.0) as usize;
                format!(
                    "{:<24} [{}{}] {:>5.1}/{:.0} s",
                    p.label,
                    "#".repeat(filled),
                    "-".repeat(24 - filled),
                    elapsed.min(total),
                    total
                )
            }
            None => format!("{:<24} {:>6.1} s, {} I/Os", p.label, elapsed, p.ios),
        };
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        if p.planned.is_some_and(|t| p.elapsed >= t) {
            let _ = write!(err, "\r\x1b[2K");
        }
        let _ = err.flush();
    }))
}

/// Clears the progress line before results are printed.
pub fn clear() {
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K");
    }
}
