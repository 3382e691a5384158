//! What fio's normal output says about a run's files before the results:
//! which job clones found their files missing or short and laid them out
//! (`NAME: Laying out IO file (1 file / 4MiB)`). A run that reuses the files
//! an earlier one left says nothing, and scripts read the difference. The
//! runner prints nothing: it returns these in `RunOutcome::laid_out`.

/// A job clone whose files were missing or shorter than it needs when it
/// was prepared, so they were made or extended: fio says so in its normal
/// output, `NAME: Laying out IO file (1 file / 4MiB)`, and scripts that read
/// it see whether a run laid out its files or reused them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaidOut {
    pub job: String,
    /// How many of the clone's files, and their whole length together
    /// (not only the part added).
    pub files: u32,
    pub bytes: u64,
}
