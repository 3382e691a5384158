//! The file options in the runner: each file's length (`filesize`) and the
//! [`FileSet`] a worker keeps so it can open a file later (`openfiles`, `create_on_open`),
//! make its files again between loops (`unlink_each_loop`) and remove them
//! at the end (`unlink`).
//!
//! Removal obeys the safety rule of `files`: diskbench removes only files it
//! created. A file the user named is removed by `unlink` only when this run
//! created it or it carries diskbench's mark (an earlier run created it);
//! otherwise it is kept and a warning says so, where fio would delete it.

use crate::draw::Rng;
use crate::error::{IoError, RunError};
use engine::sys;
use model::fileopts::Fallocate;
use model::{Direction, FileTarget, JobSpec};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// `(file length, bytes of I/O space)` of each of a clone's `n` files.
/// Without `filesize`: `size` split evenly, after `offset`. With it: each
/// file's own length (drawn from the range, a multiple of the smallest
/// block size, never below the range's bottom), `offset` inside it, as fio.
pub(crate) fn lengths(spec: &JobSpec, clone: u32, n: usize) -> Vec<(u64, u64)> {
    let offset = spec.offset_bytes;
    let Some(range) = spec.file_options.filesize else {
        let per_file = spec.size_bytes.unwrap_or(0) / n.max(1) as u64;
        return vec![(offset + per_file, per_file); n];
    };
    let step = smallest_block(spec).max(1);
    let seed = match spec.repeatable_seed() {
        Some(seed) => seed,
        None => {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            now.map_or(0, |d| d.as_nanos() as u64) ^ u64::from(std::process::id())
        }
    };
    let mut rng = Rng::new(seed ^ (u64::from(clone) << 32) ^ 0xf11e_5123);
    (0..n)
        .map(|_| {
            let span = range.max_bytes - range.min_bytes;
            let len = match span {
                0 => range.min_bytes,
                _ => {
                    let drawn = range.min_bytes + rng.below(span + 1);
                    (drawn / step * step).max(range.min_bytes)
                }
            };
            (len, len.saturating_sub(offset))
        })
        .collect()
}

/// The smallest block size the job uses: drawn file lengths are multiples of it.
fn smallest_block(spec: &JobSpec) -> u64 {
    [
        (spec.rw.reads(), Direction::Read),
        (spec.rw.uses_write_side(), Direction::Write),
    ]
    .into_iter()
    .filter(|d| d.0)
    .map(|d| spec.block_sizes_of(d.1).min_bytes())
    .min()
    .unwrap_or(spec.bs_bytes)
}

/// Blocks of one pass over the files: with `filesize`, `size` (when given)
/// bounds the I/O of a pass, as in fio (filesize=256k, nrfiles=4, size=512k
/// does 512 KiB, half of each file).
pub(crate) fn pass_blocks(spec: &JobSpec, blocks: u64) -> u64 {
    match (spec.file_options.filesize, spec.size_bytes) {
        (Some(_), Some(size)) => blocks.min((size / spec.bs_bytes).max(1)),
        // The creating file-operation engines: one block per file, and
        // `size` bounds how many are made (see `opfiles`).
        (None, Some(size)) if spec.engine.is_file_op() => blocks.min((size / spec.bs_bytes).max(1)),
        _ => blocks,
    }
}

/// The blocks a job issues after its ramp, `per_pass` a pass: `loops`
/// passes, or `None` for a time-based job, which loops until its runtime.
/// One time-based job is bound by its size all the same, as fio 3.33 runs
/// it: one that only reads, with `verify=`, on an asynchronous engine
/// (libaio, io_uring, posixaio) reads one pass and ends (2 MiB of 512 B
/// randread for 2 s: 4,096 reads in 90 ms; with psync, 1.1 million reads
/// in 2 s). A randread that checks what an earlier time-based randwrite
/// wrote then reads the offsets of the writer's first pass, all written,
/// where reading on for the runtime would reach blocks the writer, drawing
/// with repeats (`norandommap`), never did.
pub(crate) fn io_budget(spec: &JobSpec, per_pass: u64, asynchronous: bool) -> Option<u64> {
    let one_verified_pass =
        spec.verify.is_some() && spec.rw.reads() && !spec.rw.writes() && asynchronous;
    match spec.time_based {
        false => Some(per_pass * u64::from(spec.loops.max(1))),
        true if one_verified_pass => Some(per_pass),
        true => None,
    }
}

/// Creates `path` empty and marks it as diskbench's, unless it exists.
/// Returns whether it was created.
pub(crate) fn create_empty(path: &Path) -> Result<bool, RunError> {
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(f) => {
            let _ = engine::xattr::mark(&f, crate::TOOL_VERSION);
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(IoError::new("create", path, e)
            .fix("choose a writable place")
            .into()),
    }
}

/// Whether diskbench may remove a file the user named: it carries the mark
/// of a file diskbench created.
pub(crate) fn is_ours(path: &Path) -> bool {
    File::open(path).is_ok_and(|f| engine::xattr::is_marked(&f))
}

/// Everything needed to open, make again or remove a clone's files after
/// the run has started.
pub struct FileSet {
    pub(crate) job: String,
    pub(crate) paths: Vec<PathBuf>,
    /// Each file's length as created (for `unlink_each_loop`).
    pub(crate) lens: Vec<u64>,
    /// Whether diskbench may remove each file (it created it).
    pub(crate) removable: Vec<bool>,
    pub(crate) direct: bool,
    /// `sync=`: the files are opened O_SYNC or O_DSYNC.
    pub(crate) sync: model::fileopts::SyncWrites,
    pub(crate) write: bool,
    pub(crate) reads: bool,
    pub(crate) invalidate: bool,
    pub(crate) advice: Option<sys::Advice>,
    pub(crate) fallocate: Fallocate,
    pub(crate) create_on_open: bool,
}

impl FileSet {
    pub(crate) fn new(spec: &JobSpec, paths: Vec<PathBuf>, lens: Vec<u64>) -> FileSet {
        let n = paths.len();
        FileSet {
            job: spec.name.clone(),
            paths,
            lens,
            removable: vec![matches!(spec.target, FileTarget::Generated { .. }); n],
            direct: spec.direct,
            sync: spec.file_options.sync,
            write: spec.writes_data(),
            reads: spec.lays_out_data(),
            invalidate: spec.invalidate,
            advice: crate::one_file::advice_for(spec),
            fallocate: spec.file_options.fallocate,
            create_on_open: spec.file_options.create_on_open,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.paths.len()
    }

    /// Opens file `i` for the job's I/O, as the files of the first window
    /// were opened (created empty first with `create_on_open`).
    pub(crate) fn open(&self, i: usize) -> Result<File, RunError> {
        let path = &self.paths[i];
        let f = self.open_raw(i)?;
        if !self.direct {
            if self.invalidate {
                let _ = sys::drop_cache(&f);
            }
            if let Some(advice) = self.advice {
                sys::advise(&f, advice).map_err(|e| IoError::new("posix_fadvise", path, e))?;
            }
        }
        Ok(f)
    }

    /// [`Self::open`] without the cache and readahead advice.
    pub(crate) fn open_raw(&self, i: usize) -> Result<File, RunError> {
        let path = &self.paths[i];
        if self.create_on_open {
            create_empty(path)?;
        }
        crate::one_file::open_for_io(path, self.direct, self.sync, self.write)
    }

    /// `unlink_each_loop`: removes file `i` and makes it again as it was
    /// made before the first loop (with `create_on_open`, the next open
    /// makes it).
    pub(crate) fn recreate(&self, i: usize, stop: &AtomicBool) -> Result<(), RunError> {
        let path = &self.paths[i];
        if !self.removable[i] {
            return Err(RunError::Usage(format!(
                "job '{}': unlink_each_loop=1 would remove {}, which diskbench did not create; \
                 name a new file (diskbench creates it) or drop unlink_each_loop",
                self.job,
                path.display()
            )));
        }
        remove(path)?;
        if self.create_on_open {
            return Ok(());
        }
        crate::one_file::create_file(path, self.lens[i], self.reads, self.fallocate, stop)
    }

    /// `unlink=1`: removes the files diskbench may remove.
    pub(crate) fn unlink(&self) -> Result<(), RunError> {
        for (path, _) in self.paths.iter().zip(&self.removable).filter(|p| *p.1) {
            remove(path)?;
        }
        Ok(())
    }

    /// fsync of a file that is not open (`end_fsync` with `openfiles`):
    /// opened, synced and closed again, as fio does.
    pub(crate) fn fsync_closed(&self, i: usize) -> Result<(), RunError> {
        let path = &self.paths[i];
        let f = OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.sync_all().map(|()| f));
        f.map(drop)
            .map_err(|e| IoError::new("fsync", path, e).into())
    }
}

/// Removes a file; one already gone (another clone's `unlink`) is fine.
fn remove(path: &Path) -> Result<(), RunError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(IoError::new("unlink", path, e).into())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::fileopts::SizeRange;

    fn job(lo: u64, hi: u64) -> JobSpec {
        let mut spec = JobSpec::new("j");
        spec.rw = model::RwMode::Write;
        spec.file_options.filesize = Some(SizeRange {
            min_bytes: lo,
            max_bytes: hi,
        });
        spec
    }

    #[test]
    fn drawn_lengths_stay_in_the_range_on_block_multiples_and_differ() {
        let spec = job(10 << 10, 30 << 10);
        let lens = lengths(&spec, 0, 64);
        for &(len, region) in &lens {
            assert!((10 << 10..=30 << 10).contains(&len), "{len}");
            assert!(len.is_multiple_of(4096) || len == 10 << 10, "{len}");
            assert_eq!(region, len);
        }
        let distinct: std::collections::BTreeSet<u64> = lens.iter().map(|l| l.0).collect();
        assert!(distinct.len() > 3, "{distinct:?}");
        assert_eq!(
            lens,
            lengths(&spec, 0, 64),
            "randrepeat: the same lengths again"
        );
        assert_ne!(lens, lengths(&spec, 1, 64), "each clone draws its own");
    }

    #[test]
    fn a_fixed_filesize_is_exact_and_holds_the_offset() {
        let mut spec = job(100 << 10, 100 << 10);
        spec.offset_bytes = 16 << 10;
        assert_eq!(lengths(&spec, 0, 2), vec![(100 << 10, 84 << 10); 2]);
        let mut plain = JobSpec::new("p");
        plain.size_bytes = Some(1 << 20);
        plain.offset_bytes = 4096;
        assert_eq!(
            lengths(&plain, 0, 4),
            vec![(4096 + (256 << 10), 256 << 10); 4]
        );
    }

    #[test]
    fn only_a_verified_read_on_an_asynchronous_engine_is_bound_by_size_when_time_based() {
        let mut spec = JobSpec::new("r");
        spec.rw = model::RwMode::RandRead;
        spec.loops = 3;
        assert_eq!(
            io_budget(&spec, 10, true),
            Some(30),
            "size-based: its loops"
        );
        spec.time_based = true;
        assert_eq!(io_budget(&spec, 10, true), None, "no verify: its runtime");
        spec.verify = Some(Default::default());
        assert_eq!(io_budget(&spec, 10, true), Some(10), "one pass, not loops");
        assert_eq!(io_budget(&spec, 10, false), None, "psync: its runtime");
        spec.rw = model::RwMode::RandRw;
        assert_eq!(io_budget(&spec, 10, true), None, "it writes too");
    }

    #[test]
    fn size_bounds_a_pass_only_with_filesize() {
        let mut spec = job(256 << 10, 256 << 10);
        spec.size_bytes = Some(512 << 10);
        assert_eq!(pass_blocks(&spec, 256), 128);
        spec.file_options.filesize = None;
        assert_eq!(pass_blocks(&spec, 256), 256);
    }
}
