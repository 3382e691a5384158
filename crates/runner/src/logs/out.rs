//! One log file of one clone, per fio's `per_job_logs`.
//!
//! With `per_job_logs=1` (fio's default) each clone writes its own
//! `NAME_kind.N.log`. With `per_job_logs=0` every clone (and every job)
//! that names the same log writes `NAME_kind.log`; fio 3.33 writes each
//! clone's lines there in one piece when it ends, so the file holds one
//! clone's lines after another, never interleaved. diskbench does the same:
//! a clone writes to a private `NAME_kind.log.N.part` as it runs (memory
//! stays flat however long the job) and appends it to the shared file under
//! a lock when it ends.
//!
//! One difference: fio 3.33 appends to a shared file left by an earlier run
//! (two runs in one directory give a file with both, which plots as
//! nonsense); diskbench empties it when the first clone of this run opens it,
//! as it does the per-clone files (each run of a soak too).

use super::packed::{Entry, Packer};
use crate::error::IoError;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const BUFFER_BYTES: usize = 1 << 20;

/// The shared files this run has opened (the first opener empties one);
/// held while a clone appends its lines.
static SHARED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

pub(crate) struct Out {
    /// The file the lines end up in.
    path: PathBuf,
    /// `per_job_logs=0`: the clone's private file, appended to `path` at the end.
    part: Option<PathBuf>,
    pub(crate) w: BufWriter<File>,
    /// `log_store_compressed`: entries are packed, not written as lines.
    packer: Option<Packer>,
}

impl Out {
    /// `PREFIX_KIND.N.log`, or `PREFIX_KIND.log` shared by the clones.
    #[cfg(test)]
    pub(crate) fn open(
        prefix: &str,
        kind: &str,
        thread_number: u32,
        shared: bool,
    ) -> Result<Out, IoError> {
        Out::open_as(prefix, kind, thread_number, shared, None)
    }

    /// `PREFIX_KIND.N.log`, or `PREFIX_KIND.log` shared by the clones; with
    /// `packer` (`log_store_compressed`) the same name with fio's `.fz`
    /// after it, holding packed entries.
    pub(crate) fn open_as(
        prefix: &str,
        kind: &str,
        thread_number: u32,
        shared: bool,
        packer: Option<Packer>,
    ) -> Result<Out, IoError> {
        let fz = if packer.is_some() { ".fz" } else { "" };
        let (path, part) = match shared {
            false => (
                PathBuf::from(format!("{prefix}_{kind}.{thread_number}.log{fz}")),
                None,
            ),
            true => {
                let path = PathBuf::from(format!("{prefix}_{kind}.log{fz}"));
                let part = PathBuf::from(format!("{prefix}_{kind}.log{fz}.{thread_number}.part"));
                (path, Some(part))
            }
        };
        let cannot = |p: &Path, e: io::Error| {
            IoError::new("create", p, e)
                .saying(format!("cannot create the log {}", p.display()))
                .fix("run from a writable directory")
        };
        if part.is_some() {
            start_shared(&path).map_err(|e| cannot(&path, e))?;
        }
        let file_path = part.as_ref().unwrap_or(&path);
        let f = File::create(file_path).map_err(|e| cannot(file_path, e))?;
        Ok(Out {
            w: BufWriter::with_capacity(BUFFER_BYTES, f),
            path,
            part,
            packer,
        })
    }

    /// One line: `time, value[, value1], direction, bs[, offset], priority[,
    /// issue time]` as text (the priority column as `prio_col` gives it), or
    /// packed.
    pub(crate) fn entry(&mut self, e: &Entry, prio_col: &str) -> io::Result<()> {
        if let Some(p) = &mut self.packer {
            return p.push(e, &mut self.w);
        }
        let w = &mut self.w;
        write!(w, "{}, {}", e.ms, e.value)?;
        if let Some(v) = e.value1 {
            write!(w, ", {v}")?;
        }
        write!(w, ", {}, {}", e.dir, e.bs)?;
        if let Some(offset) = e.offset {
            write!(w, ", {offset}")?;
        }
        write!(w, ", {prio_col}")?;
        if let Some(ns) = e.issued {
            write!(w, ", {ns}")?;
        }
        writeln!(w)
    }

    /// The file the lines end up in.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes, and hands a shared log's lines over to the shared file.
    pub(crate) fn finish(mut self) -> Result<(), IoError> {
        let written = |p: &Path, e: io::Error| {
            IoError::new("write", p, e).saying(format!("writing {}", p.display()))
        };
        let part_path = self.part.clone();
        let packed = match &mut self.packer {
            Some(p) => p.flush(&mut self.w),
            None => Ok(()),
        };
        packed
            .and_then(|()| self.w.flush())
            .map_err(|e| written(part_path.as_ref().unwrap_or(&self.path), e))?;
        let Some(part) = part_path else {
            return Ok(());
        };
        drop(self.w);
        let appended = (|| {
            let _held = SHARED.lock().unwrap_or_else(|e| e.into_inner());
            let mut to = OpenOptions::new()
                .append(true)
                .create(true)
                .open(&self.path)?;
            io::copy(&mut File::open(&part)?, &mut to)?;
            to.flush()
        })();
        let removed = fs::remove_file(&part);
        appended.map_err(|e| written(&self.path, e))?;
        removed.map_err(|e| {
            IoError::new("unlink", &part, e).saying(format!("removing {}", part.display()))
        })
    }
}

/// A new run: its shared logs will be emptied when first opened.
pub(crate) fn new_run() {
    SHARED.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Empties `path` the first time this run opens it as a shared log.
fn start_shared(path: &Path) -> io::Result<()> {
    let key = std::path::absolute(path)?;
    let mut opened = SHARED.lock().unwrap_or_else(|e| e.into_inner());
    if !opened.contains(&key) {
        File::create(path)?;
        opened.push(key);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_logs_hold_each_clones_lines_in_one_piece() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("s").display().to_string();
        std::fs::write(format!("{prefix}_bw.log"), "left from an earlier run\n").unwrap();
        let mut a = Out::open(&prefix, "bw", 1, true).unwrap();
        let mut b = Out::open(&prefix, "bw", 2, true).unwrap();
        for i in 0..3 {
            writeln!(a.w, "a{i}").unwrap();
            writeln!(b.w, "b{i}").unwrap();
        }
        b.finish().unwrap();
        a.finish().unwrap();
        let text = std::fs::read_to_string(format!("{prefix}_bw.log")).unwrap();
        assert_eq!(text, "b0\nb1\nb2\na0\na1\na2\n");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "the .part files are removed");
    }

    #[test]
    fn per_clone_logs_are_numbered() {
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("p").display().to_string();
        let mut o = Out::open(&prefix, "clat_hist", 7, false).unwrap();
        writeln!(o.w, "x").unwrap();
        o.finish().unwrap();
        let text = std::fs::read_to_string(format!("{prefix}_clat_hist.7.log")).unwrap();
        assert_eq!(text, "x\n");
    }
}
