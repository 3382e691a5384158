//! Where on the filesystem a job's I/O goes: the file or device it names,
//! or the directory its files will be made in. The disk counters look up
//! the device under it and the preflight checks the free space and the
//! kind of filesystem there, so both take it from here.

use model::JobSpec;
use std::path::{Path, PathBuf};

/// The place a job's I/O goes, for finding its device: the file or block
/// device it names (its directory while the file does not exist yet), or
/// the directory it creates files in. `None` for the null engine.
pub(crate) fn job_path(spec: &JobSpec) -> Option<PathBuf> {
    if spec.engine.touches_no_files() {
        return None;
    }
    Some(match &spec.target {
        model::FileTarget::Named(p) if p.exists() => p.clone(),
        model::FileTarget::Named(p) => parent_dir(p),
        model::FileTarget::Generated { directory, .. } => directory.clone(),
    })
}

/// The directory a file will be made in (`.` for a bare name).
pub(crate) fn parent_dir(p: &Path) -> PathBuf {
    match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
