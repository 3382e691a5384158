//! What can go wrong while setting up or using a test's surroundings (a
//! throttled loop device, a PostgreSQL server, a cluster), as one type the
//! tests can print, skip with, or panic on. Each message says what was
//! being done and what the system answered; [`TestbedError::Unavailable`]
//! is the one a test skips on: this machine lacks something, and the
//! message says what and how to get it.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum TestbedError {
    /// This machine cannot hold the thing asked for (no root, no tool, no
    /// cluster); the message names what is missing.
    #[error("{0}")]
    Unavailable(String),

    #[error("testbed name {0:?}: use letters, digits, - and _")]
    BadName(String),

    /// A file, directory or program could not be used: what was being
    /// done, then the system's error.
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },

    /// The system's error alone, where the call says enough.
    #[error(transparent)]
    Os(#[from] std::io::Error),

    /// A tool ran and refused: what it was asked, then what it said.
    #[error("{what}: {said}")]
    Refused { what: String, said: String },

    /// A file of the kernel's read back in a form not understood.
    #[error("{path}: unexpected {text:?}")]
    Unexpected { path: String, text: String },

    /// A tool's own message, whole (what `kubectl apply` printed).
    #[error("{0}")]
    Said(String),

    #[error("the bucket thread panicked")]
    BucketPanicked,
}

impl TestbedError {
    pub(crate) fn unavailable(reason: impl Into<String>) -> TestbedError {
        TestbedError::Unavailable(reason.into())
    }

    /// An `io::Error` met while doing `what`.
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> TestbedError {
        let what = what.into();
        move |source| TestbedError::Io { what, source }
    }

    pub(crate) fn refused(what: impl Into<String>, said: impl Into<String>) -> TestbedError {
        TestbedError::Refused {
            what: what.into(),
            said: said.into(),
        }
    }
}

/// Tests that gather their own failures as text (a closure returning
/// a String error) can use `?` on the testbed's.
impl From<TestbedError> for String {
    fn from(e: TestbedError) -> String {
        e.to_string()
    }
}
