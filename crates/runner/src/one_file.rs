//! Making, laying out and opening one test file: the steps the run's
//! layout (`files`) and a worker's later reopening or remaking of its files
//! (`fileset`: `openfiles`, `create_on_open`, `unlink_each_loop`) share.
//! A file diskbench creates gets its mark (a `user.diskbench` xattr) so a
//! later run knows it may write it again; a file that will be read is
//! filled with real random data first, so reads reach real blocks, not
//! holes; one that will only be written gets what `fallocate=` asks.

use crate::error::{IoError, RunError};
use engine::sys;
use model::fileopts::Fallocate;
use model::{FadviseHint, JobSpec};
use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The size of each write that lays a file out.
const LAYOUT_CHUNK: usize = 1 << 20;

/// The posix_fadvise advice of `fadvise_hint`, as fio gives it: with `1`,
/// random for random patterns and sequential for the others.
pub(crate) fn advice_for(spec: &JobSpec) -> Option<sys::Advice> {
    match spec.fadvise_hint {
        FadviseHint::None => None,
        FadviseHint::Workload if spec.rw.is_random() => Some(sys::Advice::Random),
        FadviseHint::Workload | FadviseHint::Sequential => Some(sys::Advice::Sequential),
        FadviseHint::Random => Some(sys::Advice::Random),
        FadviseHint::Normal => Some(sys::Advice::Normal),
    }
}

/// Creates a test file of `len` bytes: real random data when it will be read,
/// else what `fallocate=` asks (see [`preallocate`]).
pub(crate) fn create_file(
    path: &Path,
    len: u64,
    will_read: bool,
    how: model::fileopts::Fallocate,
    stop: &AtomicBool,
) -> Result<(), RunError> {
    let f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| io_err("create", path, e))?;
    // Where the filesystem has no user xattrs the file stays unmarked, and a
    // later run must be given --allow-overwrite to write it again.
    let _ = engine::xattr::mark(&f, crate::TOOL_VERSION);
    if will_read {
        drop(f);
        lay_out(path, 0, len, stop)
    } else {
        preallocate(&f, path, len, how)
    }
}

/// Writes random data over `from..to`, syncs it, and drops it from the cache,
/// so later reads reach the disk and read real blocks, not holes.
pub(crate) fn lay_out(path: &Path, from: u64, to: u64, stop: &AtomicBool) -> Result<(), RunError> {
    let mut f = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| io_err("open", path, e))?;
    f.seek(SeekFrom::Start(from))
        .map_err(|e| seek_error("seek in", path, e))?;
    let mut buf = vec![0u8; LAYOUT_CHUNK];
    let mut at = from;
    while at < to {
        if stop.load(Ordering::Relaxed) {
            return Err(RunError::Interrupted);
        }
        let n = ((to - at) as usize).min(LAYOUT_CHUNK);
        engine::fill_random(&mut buf[..n], at ^ 0x5851_f42d_4c95_7f2d);
        f.write_all(&buf[..n]).map_err(|e| {
            let what = format!(
                "laying out {}: write of {n} bytes at offset {at}",
                path.display()
            );
            IoError::new("write", path, e).saying(what).at(at)
        })?;
        at += n as u64;
    }
    f.sync_data().map_err(|e| io_err("fdatasync", path, e))?;
    let _ = sys::drop_cache(&f);
    Ok(())
}

pub(crate) fn open_for_io(
    path: &Path,
    direct: bool,
    sync: model::fileopts::SyncWrites,
    write: bool,
) -> Result<File, RunError> {
    let mut opts = OpenOptions::new();
    opts.read(true).write(write);
    let sync_flag = match sync {
        model::fileopts::SyncWrites::None => 0,
        model::fileopts::SyncWrites::Sync => libc::O_SYNC,
        model::fileopts::SyncWrites::Dsync => libc::O_DSYNC,
    };
    let direct_flag = if direct { libc::O_DIRECT } else { 0 };
    if direct || sync_flag != 0 {
        opts.custom_flags(direct_flag | sync_flag);
    }
    opts.open(path).map_err(|e| match e.raw_os_error() {
        Some(libc::EINVAL) if direct => RunError::Usage(format!(
            "{}: the filesystem does not support direct I/O (O_DIRECT): use direct=0",
            path.display()
        )),
        Some(libc::EROFS) | Some(libc::EACCES) | Some(libc::EPERM) => {
            let what = format!(
                "cannot open {} for {}",
                path.display(),
                if write { "writing" } else { "reading" }
            );
            IoError::new("open", path, e)
                .saying(what)
                .fix("choose a writable place or a read-only job")
                .into()
        }
        _ => io_err("open", path, e),
    })
}

/// Does to a file that is about to be written what `fallocate=` asks, up
/// to `len` bytes. fio's `native` falls back to nothing where the
/// filesystem cannot allocate; the others fail with the reason.
pub(crate) fn preallocate(f: &File, path: &Path, len: u64, how: Fallocate) -> Result<(), RunError> {
    let done = match how {
        Fallocate::None => Ok(()),
        Fallocate::Native => match sys::fallocate(f, false, 0, len) {
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::ENOSYS)) => Ok(()),
            other => other,
        },
        Fallocate::Posix => sys::allocate(f, len),
        Fallocate::Keep => sys::fallocate(f, true, 0, len),
        Fallocate::Truncate => match f.metadata() {
            Ok(m) if m.len() >= len => Ok(()),
            _ => f.set_len(len),
        },
    };
    done.map_err(|e| {
        let fix = match e.raw_os_error() {
            Some(libc::ENOSPC) => "free some space or lower size=/filesize=",
            _ => "use fallocate=none to let the writes allocate the blocks",
        };
        let what = format!(
            "fallocate={}: cannot reserve {len} bytes for {}",
            how.fio_name(),
            path.display()
        );
        IoError::new("fallocate", path, e)
            .saying(what)
            .fix(fix)
            .into()
    })
}

pub(crate) fn io_err(op: &'static str, path: &Path, e: io::Error) -> RunError {
    IoError::new(op, path, e).into()
}

/// An `lseek` that failed, said as what it was for ("size of", "seek in").
pub(crate) fn seek_error(what: &str, path: &Path, e: io::Error) -> RunError {
    let what = format!("{what} {}", path.display());
    IoError::new("lseek", path, e).saying(what).into()
}

/// A `stat` that failed for another reason than a missing file: the
/// message is the path and the OS error.
pub(crate) fn stat_error(path: &Path, e: io::Error) -> RunError {
    let what = path.display().to_string();
    IoError::new("stat", path, e).saying(what).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preallocation_modes() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let len = 1 << 20;
        let made = |how: Fallocate| {
            let path = dir.path().join(how.fio_name());
            let f = File::create(&path).unwrap();
            preallocate(&f, &path, len, how).unwrap();
            let m = f.metadata().unwrap();
            (m.len(), m.blocks() * 512)
        };
        assert_eq!(made(Fallocate::None), (0, 0));
        assert_eq!(made(Fallocate::Truncate), (len, 0));
        let (size, allocated) = made(Fallocate::Keep);
        assert_eq!(size, 0);
        assert!(allocated >= len);
        for how in [Fallocate::Native, Fallocate::Posix] {
            let (size, allocated) = made(how);
            assert_eq!(size, len);
            assert!(allocated >= len, "{how:?}");
        }
    }
}
