//! Why a run or a job failed, as data: what kind of failure it was (which
//! decides the exit code), the message the user reads, and the facts it was
//! made from (operation, file, offset, errno) when there are any.
//!
//! The runner's typed error (`runner::RunError`) is turned into a
//! [`Failure`] in one place; the CLI takes the exit code from its
//! [`FailureKind`] and the reports write the JSON error object from it, so
//! the exit code, the message and the JSON cannot tell different stories.

use serde::{Deserialize, Serialize};

/// The three ways a command can fail, each with its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailureKind {
    /// Bad input: an option, a path, a size the user can fix (exit 2).
    Usage,
    /// The system failed: an I/O error, a full disk, a job's floor missed (exit 1).
    Runtime,
    /// A signal stopped the run; what was measured is kept (exit 130).
    Interrupted,
}

impl FailureKind {
    /// The process exit code: 2 usage, 1 runtime, 130 interrupted (128 +
    /// SIGINT; the CLI reports 143 instead when SIGTERM was the signal).
    pub fn exit_code(self) -> u8 {
        match self {
            FailureKind::Usage => 2,
            FailureKind::Runtime => 1,
            FailureKind::Interrupted => 130,
        }
    }

    /// The name in the JSON error object: `usage`, `runtime`, `interrupted`.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Usage => "usage",
            FailureKind::Runtime => "runtime",
            FailureKind::Interrupted => "interrupted",
        }
    }
}

/// One failure, as the JSON error object (`diskbench.failure`) holds it.
/// `message` is exactly the text printed on stderr and kept as `error`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    /// The job it happened in, when it was one job's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// The operation that failed (`read`, `write`, `open`, `fsync`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The byte offset in `path` of the I/O that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// The I/O's length in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub len: Option<u64>,
    /// The operating system's error number (`EIO` = 5, `ENOSPC` = 28, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errno: Option<i32>,
}

impl Failure {
    /// A failure known only by its kind and message (bad input found by a
    /// parser, before anything ran).
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            job: None,
            op: None,
            path: None,
            offset: None,
            len: None,
            errno: None,
        }
    }

    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::new(FailureKind::Usage, message)
    }

    pub fn runtime(message: impl Into<String>) -> Failure {
        Failure::new(FailureKind::Runtime, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_exit_code_and_name() {
        let all = [
            (FailureKind::Usage, 2, "usage"),
            (FailureKind::Runtime, 1, "runtime"),
            (FailureKind::Interrupted, 130, "interrupted"),
        ];
        for (kind, code, name) in all {
            assert_eq!((kind.exit_code(), kind.name()), (code, name));
            assert_eq!(serde_json::to_value(kind).unwrap(), name);
        }
    }

    #[test]
    fn unknown_facts_are_left_out_of_the_json() {
        let f = Failure::usage("bs=1000 is not aligned");
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"kind": "usage", "message": "bs=1000 is not aligned"})
        );
    }
}
