//! What the runner has to tell the user that is not part of a result: a
//! test directory a killed diskbench left and this run removed, a test
//! directory that could not be removed (said when a `Workspace` is
//! dropped, where nothing can be returned), a `verify_dump` file that
//! could not be written (said on a worker's thread, mid-run).
//!
//! The runner never prints (the binary decides where words go), so these
//! notices go to the sink the program installed with [`set_sink`]: the
//! `diskbench` binary prints each on stderr the moment it is said, as
//! before. A program that installed none (a library user, a test) finds
//! them with [`take`].

use std::sync::{Mutex, OnceLock};

static SINK: OnceLock<fn(&str)> = OnceLock::new();
static PENDING: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Where the notices go from now on; the first sink set stays.
pub fn set_sink(sink: fn(&str)) {
    let _ = SINK.set(sink);
}

/// The notices said while no sink was set, oldest first.
pub fn take() -> Vec<String> {
    std::mem::take(&mut *PENDING.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Says `text` to the sink, or keeps it for [`take`].
pub(crate) fn say(text: String) {
    match SINK.get() {
        Some(sink) => sink(&text),
        None => PENDING.lock().unwrap_or_else(|e| e.into_inner()).push(text),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn without_a_sink_the_notices_wait_to_be_taken_in_order() {
        super::say("notice test: one".into());
        super::say("notice test: two".into());
        // Other tests may say things meanwhile; only these two are ours.
        let taken = super::take();
        let ours: Vec<&str> = (taken.iter())
            .map(String::as_str)
            .filter(|t| t.starts_with("notice test: "))
            .collect();
        assert_eq!(ours, ["notice test: one", "notice test: two"]);
        assert!(super::take()
            .iter()
            .all(|t| !t.starts_with("notice test: ")));
    }
}
