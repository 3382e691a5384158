//! fio's `atomic=1`: every write with RWF_ATOMIC (untorn: after a power
//! failure the device holds all of it or none). The kernel takes such a
//! write only on O_DIRECT, from a file or device that has atomic writes,
//! of a size that is a power of two between its atomic write units (statx
//! STATX_WRITE_ATOMIC). Anything else would fail every write with EINVAL
//! or EOPNOTSUPP, so the job is refused before its first I/O, naming what
//! it needs and the figures the file has.

use crate::error::RunError;
use model::{Direction, JobSpec};
use std::path::Path;

/// Checks that the clone's files (laid out) take the job's atomic writes.
pub(crate) fn check(spec: &JobSpec, paths: &[impl AsRef<Path>]) -> Result<(), RunError> {
    if !spec.uring.atomic() || !spec.rw.writes() {
        return Ok(());
    }
    let refuse = |path: &Path, what: String| {
        let message = format!(
            "job '{}': atomic=1 writes with RWF_ATOMIC (untorn writes, Linux 6.11+), {what}",
            spec.name
        );
        Err(RunError::place(path, message, None))
    };
    for path in paths.iter().map(AsRef::as_ref) {
        if !spec.direct {
            return refuse(
                path,
                "which the kernel takes on O_DIRECT writes only: add direct=1".into(),
            );
        }
        let units = engine::sys::atomic_write(path).map_err(|e| {
            RunError::place(
                path,
                format!("statx of {}: {e}", path.display()),
                e.raw_os_error(),
            )
        })?;
        let sysfs = match crate::probe::queue_attr(path, "atomic_write_unit_max_bytes") {
            Some((file, Some(v))) => format!("; {} is {v}", file.display()),
            _ => String::new(),
        };
        let figures = format!(
            "statx STATX_WRITE_ATOMIC gives atomic write units of {} to {} bytes{sysfs}",
            units.unit_min, units.unit_max
        );
        if units.unit_max == 0 {
            return refuse(
                path,
                format!(
                    "which needs a file or device with atomic write support, and {} has none \
                     ({figures}): use a device that has it (NVMe or SCSI with atomic write \
                     units, or a filesystem over one that offers them), or drop atomic",
                    path.display()
                ),
            );
        }
        let sizes = spec.block_sizes_of(Direction::Write).sizes();
        let fits = |bs: u64| {
            bs.is_power_of_two()
                && bs >= u64::from(units.unit_min)
                && bs <= u64::from(units.unit_max)
        };
        if let Some(bs) = sizes.into_iter().find(|&bs| !fits(bs)) {
            return refuse(
                path,
                format!(
                    "which takes a write of a power of two between the atomic write units of \
                     {}, and this job writes blocks of {bs} bytes ({figures}): use a bs in \
                     that range",
                    path.display()
                ),
            );
        }
    }
    Ok(())
}
