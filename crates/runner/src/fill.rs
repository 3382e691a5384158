//! fio's `fill_device` (`fill_fs`): a job that writes until its filesystem
//! is full. Its size, unless given, is one block more than the free space
//! of the filesystem its files go to when the group starts; the write that
//! finds the filesystem full ends the job without an error
//! (`worker/errors.rs`). A job that reads has its files laid out over the
//! free space (whole blocks), then reads them, as fio's does. A block device keeps its own size: it has no free
//! space to fill, and writing past its end gives no ENOSPC.

use crate::error::RunError;
use crate::job_path::parent_dir;
use model::errors::{ErrorType, ENOSPC};
use model::fileopts::Fallocate;
use model::{FileTarget, JobSpec};

/// The job as it runs: with `fill_device` and no size, sized to the free
/// space. A job that expects to fill the filesystem (`fill_device`, or one
/// that continues past ENOSPC) gets no preallocation of the files it only
/// writes, which would fail for want of space before the first write (as
/// fio goes on when its fallocate fails): the writes allocate the blocks.
pub(crate) fn sized(spec: &JobSpec) -> Result<JobSpec, RunError> {
    let mut spec = spec.clone();
    let fills = spec.fill_device || spec.errors.continues(ErrorType::Write, ENOSPC);
    if fills && !spec.lays_out_data() {
        spec.file_options.fallocate = Fallocate::None;
    }
    if !spec.fill_device || spec.size_bytes.is_some() {
        return Ok(spec);
    }
    let dir = match &spec.target {
        FileTarget::Named(p) if p.metadata().is_ok_and(|m| !m.is_file()) => return Ok(spec),
        FileTarget::Named(p) => parent_dir(p),
        FileTarget::Generated { directory, .. } => directory.clone(),
    };
    let (free, _) = engine::sys::free_space(&dir).map_err(|e| {
        let message = format!(
            "job '{}': fill_device=1 sizes the job to the free space of {}, which could not be \
             read ({e}): give size=",
            spec.name,
            dir.display()
        );
        RunError::place(&dir, message, e.raw_os_error())
    })?;
    // A writer: one block past the free space, so that the last write
    // finds the filesystem full, as fio's does (it counts that write in
    // total_ios). A reader: its file laid out over the free space, then
    // read (fio 3.33: 8 MiB read on a tmpfs of 8 MiB).
    let bs = spec.bs_bytes.max(1);
    let blocks = match spec.lays_out_data() {
        true => free / bs,
        false => free / bs + 1,
    };
    spec.size_bytes = Some(blocks * bs);
    Ok(spec)
}
