use thiserror::Error;

/// Why a run stopped. The CLI maps `Usage` to exit code 2, `Runtime` to 1 and
/// `Interrupted` to 130; in every case the results measured so far are kept.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum RunError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Runtime(String),
    #[error("interrupted")]
    Interrupted,
}
