//! The files a run works on: found or created, laid out with real data
//! before they are read, checked for direct-I/O alignment, and removed at the
//! end when the run created them.
//!
//! Safety comes first: files the run creates live in a fresh subdirectory
//! that [`Workspace`] removes on drop (success, error or interrupt); a file
//! the user named is kept; a block device is never written without
//! `--allow-destructive`.
//!
//! `diskbench fio` keeps files as fio does ([`Workspace::keeping`]): fio
//! makes a job's files in `directory=` (the current one by default) under
//! its own names, `jobname.clone.file`, leaves them after the run, and the
//! next job or run with those names reads and rewrites them as they are
//! ("fill, then measure" scripts and fio's own two-step tests rely on it).
//! Such a file is reused without `--allow-overwrite`, whoever laid it out,
//! diskbench or fio: the name is fio's, given by the job, not one the user
//! chose. It must be a regular file; `unlink=1` removes it.

use crate::error::{IoError, RunError};
pub use crate::laid_out::LaidOut;
use crate::one_file::{
    advice_for, create_file, io_err, lay_out, preallocate, seek_error, stat_error,
};
use crate::region::Region;
use engine::sys;
use model::job::BlockSizes;
use model::{Direction, FileTarget, JobSpec, Warning};
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Test files and directories this run created; removed when dropped.
#[derive(Default)]
pub struct Workspace {
    /// fio's way ([`Workspace::keeping`]): files made in the directory
    /// itself, under fio's names, and left there.
    keep: bool,
    /// The files this run made where they are kept: a run refused as a
    /// usage error removes them, so bad input leaves nothing behind.
    created: Vec<PathBuf>,
    dirs: HashMap<PathBuf, PathBuf>,
    /// Bytes laid out with data so far in each file it created, so a file
    /// that a later job (or a later run of a soak) reads is laid out once.
    laid: HashMap<PathBuf, u64>,
    /// This run's clones that found their files missing or short, in the
    /// order they were prepared (see [`LaidOut`]).
    laid_out: Vec<LaidOut>,
}

impl Workspace {
    /// A workspace that keeps its files as fio does: each job's files are
    /// made in `directory=` itself under fio's names, an existing one is
    /// read and rewritten as it is, and nothing is removed at the end
    /// (`unlink=1` removes a job's files when it ends).
    pub fn keeping() -> Workspace {
        Workspace {
            keep: true,
            created: Vec::new(),
            dirs: HashMap::new(),
            laid: HashMap::new(),
            laid_out: Vec::new(),
        }
    }

    /// Whether files stay after the run ([`Workspace::keeping`]).
    pub fn keeps(&self) -> bool {
        self.keep
    }

    /// A run starts: the files it makes are counted afresh.
    pub(crate) fn start_run(&mut self) {
        self.created.clear();
        self.laid_out.clear();
    }

    /// The clones of this run that laid out their files, in order.
    pub(crate) fn take_laid_out(&mut self) -> Vec<LaidOut> {
        std::mem::take(&mut self.laid_out)
    }

    /// Removes the files this run made where they are kept (for a run
    /// refused as a usage error).
    pub(crate) fn remove_created(&mut self) {
        for path in self.created.drain(..) {
            let _ = fs::remove_file(&path);
            self.laid.remove(&path);
        }
    }

    /// The run's own subdirectory of `parent` (`diskbench-PID-N`, with an
    /// owner marker so a killed run's directory is cleaned by the next run),
    /// created on first use and removed with everything in it on drop; for
    /// a workspace that keeps its files, `parent` itself.
    pub fn dir_in(&mut self, parent: &Path) -> Result<PathBuf, RunError> {
        if let Some(d) = self.dirs.get(parent) {
            return Ok(d.clone());
        }
        check_directory(parent)?;
        if self.keep {
            return Ok(parent.to_path_buf());
        }
        for dir in crate::stale::clean(parent) {
            crate::notice::say(format!(
                "diskbench: removed {dir}, left by a diskbench that was killed"
            ));
        }
        let mut n = 0u32;
        loop {
            let candidate = parent.join(format!("diskbench-{}-{n}", std::process::id()));
            match fs::create_dir(&candidate) {
                Ok(()) => {
                    self.dirs.insert(parent.to_path_buf(), candidate.clone());
                    registry().push(candidate.clone());
                    crate::stale::mark(&candidate).map_err(|e| {
                        let what = format!("cannot write in {}", candidate.display());
                        IoError::new("write", &candidate, e).saying(what)
                    })?;
                    return Ok(candidate);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => n += 1,
                Err(e) if matches!(e.raw_os_error(), Some(libc::EROFS | libc::EACCES)) => {
                    let why = crate::probe::read_only_refusal(parent).unwrap_or_else(|| {
                        format!(
                            "cannot create test files in {}: {e}; choose a writable directory",
                            parent.display()
                        )
                    });
                    return Err(RunError::place(parent, why, e.raw_os_error()));
                }
                Err(e) => {
                    let what = format!("cannot create test files in {}", parent.display());
                    return Err(IoError::new("mkdir", &candidate, e)
                        .saying(what)
                        .fix("choose a writable directory")
                        .into());
                }
            }
        }
    }
}

impl Workspace {
    /// Bytes of the files this workspace holds in its subdirectory of `parent`.
    pub fn bytes_in(&self, parent: &Path) -> u64 {
        let Some(dir) = self.dirs.get(parent) else {
            return 0;
        };
        fs::read_dir(dir).map_or(0, |entries| {
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        let mut live = registry();
        for dir in self.dirs.values() {
            // A file system that failed under the run (EIO, shut down,
            // read-only) may refuse: the user must hear that files are left.
            match fs::remove_dir_all(dir) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => crate::notice::say(format!(
                    "diskbench: could not remove the test directory {}: {e}; \
                     remove it by hand (rm -r {0}) once its file system works again",
                    dir.display()
                )),
                _ => {}
            }
            live.retain(|d| d != dir);
        }
    }
}

/// Every test directory of every live [`Workspace`] in the process, so a
/// second Ctrl-C, which exits at once, can still remove them.
fn registry() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    static LIVE: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the test directories of every live workspace, for a process that
/// is about to exit without unwinding (a second signal).
pub fn remove_test_dirs() {
    for dir in registry().drain(..) {
        let _ = fs::remove_dir_all(dir);
    }
}

pub(crate) fn check_directory(dir: &Path) -> Result<(), RunError> {
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(RunError::place(
            dir,
            format!(
                "{} is not a directory: give a directory for the test files",
                dir.display()
            ),
            None,
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(RunError::place(
            dir,
            format!(
                "directory {} does not exist: create it or choose another",
                dir.display()
            ),
            e.raw_os_error(),
        )),
        Err(e) => Err(stat_error(dir, e)),
    }
}

/// One clone's files, opened for the run.
pub struct CloneFiles {
    pub paths: Vec<PathBuf>,
    pub files: Vec<File>,
    pub regions: Vec<Region>,
    /// Buffer memory alignment for direct I/O.
    pub mem_align: usize,
    /// Every file of the clone; `files` holds the first `openfiles` of them
    /// (all by default) and `paths` names them all.
    pub set: Option<crate::fileset::FileSet>,
}

/// What the user allowed beyond diskbench's own test files.
#[derive(Clone, Copy, Debug, Default)]
pub struct Allow {
    pub destructive: bool,
    pub mounted_write: bool,
    pub overwrite: bool,
}

/// Finds or creates the files of clone `clone` of `spec`, lays them out, opens them.
pub fn prepare_clone(
    spec: &JobSpec,
    clone: u32,
    ws: &mut Workspace,
    allow: Allow,
    stop: &AtomicBool,
    warnings: &mut Vec<Warning>,
) -> Result<CloneFiles, RunError> {
    let mut found = Found::default();
    match &spec.target {
        // A replayed log naming several files: each, sized to hold the
        // furthest I/O into it, as if named alone.
        FileTarget::Named(_) if spec.iolog.files.len() > 1 => {
            let sizes = spec.iolog.file_sizes(spec.bs_bytes);
            for (path, size) in spec.iolog.files.iter().zip(sizes) {
                let one = JobSpec {
                    size_bytes: Some(size),
                    ..spec.clone()
                };
                found_named(&one, path, clone, allow, stop, warnings, &mut found)?;
            }
        }
        // `filename=a:b:c`: `size` split evenly among the files, as fio
        // does, each laid out as if named alone.
        FileTarget::Named(first) if !spec.file_options.also_named.is_empty() => {
            let all = std::iter::once(first).chain(&spec.file_options.also_named);
            let n = u64::from(spec.files_per_clone());
            let one = JobSpec {
                size_bytes: spec.size_bytes.map(|size| size / n),
                ..spec.clone()
            };
            for path in all {
                found_named(&one, path, clone, allow, stop, warnings, &mut found)?;
            }
        }
        FileTarget::Named(path) => {
            found_named(spec, path, clone, allow, stop, warnings, &mut found)?
        }
        FileTarget::Generated {
            directory,
            nrfiles,
            shared,
        } => found_generated(
            spec, clone, ws, directory, *nrfiles, shared, stop, &mut found,
        )?,
    }
    if found.short.0 > 0 && !spec.file_options.create_on_open {
        ws.laid_out.push(LaidOut {
            job: spec.name.clone(),
            files: found.short.0,
            bytes: found.short.1,
        });
    }
    open_clone(spec, found, warnings)
}

/// A clone's files, found or created and laid out, not yet opened.
#[derive(Default)]
struct Found {
    paths: Vec<PathBuf>,
    /// The region each file gives the job, and each file's whole length.
    sizes: Vec<u64>,
    lens: Vec<u64>,
    /// Whether the run may remove it (it made it, or it carries the mark).
    removable: Vec<bool>,
    /// The files that were missing or shorter than the job needs, and
    /// their lengths together (see [`LaidOut`]).
    short: (u32, u64),
}

impl Found {
    /// Counts the file at `path` as laid out when it was a missing or
    /// short regular file (`before`: its metadata before it was prepared).
    fn count_short(&mut self, before: Option<fs::Metadata>, need: u64) {
        if before.is_none_or(|m| m.is_file() && m.len() < need) {
            self.short.0 += 1;
            self.short.1 += need;
        }
    }
}

/// The file the user named (`filename=`), checked and laid out.
fn found_named(
    spec: &JobSpec,
    path: &Path,
    clone: u32,
    allow: Allow,
    stop: &AtomicBool,
    warnings: &mut Vec<Warning>,
    found: &mut Found,
) -> Result<(), RunError> {
    let writes = spec.writes_data();
    // `offset_increment` of at least `size` gives each clone its own stripe.
    let step = spec.offset_steps.increment;
    let striped = step > 0 && spec.size_bytes.is_some_and(|size| step >= size);
    // verify_write_sequence=0 and verify_header_seed=0 take a chunk
    // whoever wrote it, if it is whole.
    let anyones = spec
        .verify
        .as_ref()
        .is_some_and(|v| !v.write_sequence && !v.header_seed);
    if spec.verify.is_some() && !anyones && writes && spec.numjobs > 1 && !striped {
        return Err(RunError::Usage(format!(
            "job '{}': verify with numjobs={} on one file: the clones would overwrite each \
             other's blocks and every check would fail; use numjobs=1, directory= \
             (a file per clone), an offset_increment of at least size= (a stripe per clone), \
             or verify_write_sequence=0 with verify_header_seed=0 (a chunk passes whoever \
             wrote it, if it is whole)",
            spec.name, spec.numjobs
        )));
    }
    let existed = path.exists();
    let before = fs::metadata(path).ok();
    let size = prepare_named(spec, path, allow, stop, warnings)?;
    found.count_short(before, spec.offset_bytes + size);
    let ours = !existed || crate::fileset::is_ours(path);
    found.removable.push(ours);
    if spec.file_options.unlink && !ours && clone == 0 {
        warnings.push(Warning::FileKept {
            job: spec.name.clone(),
            path: path.display().to_string(),
        });
    }
    found.lens.push(spec.offset_bytes + size);
    found.paths.push(path.to_path_buf());
    found.sizes.push(size);
    Ok(())
}

/// Makes the directories above a file diskbench makes: `filename_format`
/// may name subdirectories, which fio creates too.
pub(crate) fn make_parent(path: &Path) -> Result<(), RunError> {
    match path.parent().filter(|p| !p.exists()) {
        Some(parent) => {
            fs::create_dir_all(parent).map_err(|e| IoError::new("mkdir", parent, e).into())
        }
        None => Ok(()),
    }
}

/// Test files diskbench makes in a fresh directory of the workspace
/// (`directory=`), laid out once per workspace.
#[allow(clippy::too_many_arguments)]
fn found_generated(
    spec: &JobSpec,
    clone: u32,
    ws: &mut Workspace,
    directory: &Path,
    nrfiles: u32,
    shared: &Option<String>,
    stop: &AtomicBool,
    found: &mut Found,
) -> Result<(), RunError> {
    let reads = spec.lays_out_data();
    let only = spec.verify.as_ref().is_some_and(|v| v.only);
    if only && !ws.keep {
        return Err(RunError::Usage(format!(
            "job '{}': verify_only checks the files of an earlier run, and a job without \
             filename= gets new files: name the file the writing run used with filename=",
            spec.name
        )));
    }
    let dir = ws.dir_in(directory)?;
    let names: Vec<String> = match shared {
        Some(name) => vec![name.clone()],
        None => (0..nrfiles)
            .map(|f| spec.file_options.generated_name(&spec.name, clone, f))
            .collect(),
    };
    let lengths = crate::fileset::lengths(spec, clone, names.len());
    for (name, (need, per_file)) in names.into_iter().zip(lengths) {
        let path = dir.join(&name);
        make_parent(&path)?;
        // A file kept from an earlier run counts as laid out as far as it goes.
        let kept = match ws.keep {
            true => kept_length(spec, &path, only)?,
            false => None,
        };
        let already = ws.laid.get(&path).copied().or(kept).unwrap_or(0);
        found.count_short(fs::metadata(&path).ok(), need);
        let fallocate = spec.file_options.fallocate;
        if !path.exists() {
            // create_on_open: the job's open makes it (see `fileset`).
            if !spec.file_options.create_on_open {
                create_file(&path, need, reads, fallocate, stop)?;
                if ws.keep {
                    ws.created.push(path.clone());
                }
            }
        } else if reads && already < need {
            lay_out(&path, already, need, stop)?;
        } else if kept.is_some_and(|len| len < need) && !only {
            let f = OpenOptions::new().write(true).open(&path);
            let f = f.map_err(|e| io_err("open", &path, e))?;
            preallocate(&f, &path, need, fallocate)?;
        }
        let laid = if reads { need } else { already };
        ws.laid.insert(path.clone(), laid.max(already));
        found.lens.push(need);
        found.removable.push(true);
        found.paths.push(path);
        found.sizes.push(per_file);
    }
    Ok(())
}

/// The length of a file kept from an earlier run at one of fio's names
/// (`None`: there is none yet). It must be a regular file, since a device
/// or a link there was not laid out by fio or diskbench; `verify_only`
/// needs it to exist, since it checks what an earlier run wrote.
fn kept_length(spec: &JobSpec, path: &Path, only: bool) -> Result<Option<u64>, RunError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_file() => Ok(Some(m.len())),
        Ok(_) => Err(RunError::Usage(format!(
            "job '{}': {} is not a regular file, and the job makes its files there under \
             fio's names: move it away, or name it with filename= (a device needs \
             --allow-destructive)",
            spec.name,
            path.display()
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound && only => Err(RunError::Usage(format!(
            "job '{}': verify_only checks what an earlier run wrote, and {} does not exist: \
             run the job without verify_only first",
            spec.name,
            path.display()
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(stat_error(path, e)),
    }
}

/// Bytes the files of `spec` already hold where a workspace that keeps
/// its files finds them: room the run needs no more of.
pub(crate) fn kept_bytes(spec: &JobSpec) -> u64 {
    let FileTarget::Generated {
        directory,
        nrfiles,
        shared,
    } = &spec.target
    else {
        return 0;
    };
    let names: Vec<String> = match shared {
        Some(name) => vec![name.clone()],
        None => (0..spec.numjobs)
            .flat_map(|c| (0..*nrfiles).map(move |f| (c, f)))
            .map(|(c, f)| spec.file_options.generated_name(&spec.name, c, f))
            .collect(),
    };
    (names.iter())
        .filter_map(|n| fs::symlink_metadata(directory.join(n)).ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Opens the first `openfiles` of the clone's files, checks their direct-I/O
/// alignment or applies the buffered-I/O advice, and gives each its region.
fn open_clone(
    spec: &JobSpec,
    found: Found,
    warnings: &mut Vec<Warning>,
) -> Result<CloneFiles, RunError> {
    let Found {
        paths,
        sizes,
        lens,
        removable,
        ..
    } = found;
    let mut files = Vec::with_capacity(paths.len());
    let mut regions = Vec::with_capacity(paths.len());
    let mut mem_align = 4096usize;
    let open_at_once = spec
        .file_options
        .openfiles
        .map_or(paths.len(), |n| n as usize);
    let mut set = crate::fileset::FileSet::new(spec, paths.clone(), lens);
    set.removable = removable;
    for (i, (path, size)) in paths.iter().zip(&sizes).enumerate() {
        let blocks = size / spec.bs_bytes;
        if blocks == 0 {
            return Err(RunError::Usage(format!(
                "job '{}': {} has room for no block of bs={} bytes: raise size= or lower bs=",
                spec.name,
                path.display(),
                spec.bs_bytes
            )));
        }
        regions.push(Region {
            base: spec.offset_bytes,
            blocks,
            block_bytes: spec.bs_bytes,
        });
        // openfiles: the others are opened by the worker as their turn comes.
        if i >= open_at_once {
            continue;
        }
        let file = set.open_raw(i)?;
        if spec.direct {
            let (mem, off) = dio_alignment(&file, path);
            mem_align = mem_align.max(mem as usize);
            check_aligned(spec, path, off as u64)?;
        } else {
            if spec.invalidate {
                if let Err(e) = sys::drop_cache(&file) {
                    warnings.push(Warning::CacheNotDropped {
                        path: path.display().to_string(),
                        reason: e.to_string(),
                    });
                }
            }
            // fadvise_hint: readahead advice matters to buffered I/O only.
            if let Some(advice) = advice_for(spec) {
                sys::advise(&file, advice).map_err(|e| io_err("posix_fadvise", path, e))?;
            }
        }
        files.push(file);
    }
    Ok(CloneFiles {
        paths,
        files,
        regions,
        mem_align,
        set: Some(set),
    })
}

/// A file or device the user named: checks it, creates or extends a file as
/// fio would, and returns the size of the region to use.
fn prepare_named(
    spec: &JobSpec,
    path: &Path,
    allow: Allow,
    stop: &AtomicBool,
    warnings: &mut Vec<Warning>,
) -> Result<u64, RunError> {
    let meta = match fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(stat_error(path, e)),
    };
    let only = spec.verify.as_ref().is_some_and(|v| v.only);
    if only && meta.is_none() {
        return Err(RunError::Usage(format!(
            "job '{}': verify_only checks what an earlier run wrote, and {} does not exist: \
             run the job without verify_only first",
            spec.name,
            path.display()
        )));
    }
    // filesize: the file's length, the offset inside it (see `fileset`).
    let filesize = spec
        .file_options
        .filesize
        .map(|_| crate::fileset::lengths(spec, 0, 1)[0]);
    let Some(meta) = meta else {
        return create_named(spec, path, filesize, stop);
    };
    let ft = meta.file_type();
    if ft.is_dir() {
        return Err(RunError::Usage(format!(
            "filename={} is a directory: use directory= for a folder of test files",
            path.display()
        )));
    }
    let len = if ft.is_block_device() {
        let mut f = File::open(path).map_err(|e| io_err("open", path, e))?;
        let len = f
            .seek(SeekFrom::End(0))
            .map_err(|e| seek_error("size of", path, e))?;
        if spec.writes_data() {
            crate::guard::check_device_write(path, &f, len, allow.destructive, allow.mounted_write)
                .map_err(|why| RunError::Usage(format!("job '{}' refused: {why}", spec.name)))?;
        }
        len
    } else {
        meta.len()
    };
    let available = len.saturating_sub(spec.offset_bytes);
    let size = filesize.map_or(spec.size_bytes.unwrap_or(available), |f| f.1);
    if only && size > available {
        return Err(RunError::Usage(format!(
            "job '{}': verify_only: {} holds {available} bytes after offset=, fewer than size={size}: \
             give the size the writing run used",
            spec.name,
            path.display()
        )));
    }
    let changes_file = spec.writes_data() || size > available;
    if ft.is_file() && changes_file && !allow.overwrite {
        refuse_unless_ours(spec, path)?;
    }
    if size > available {
        if ft.is_block_device() {
            return Err(RunError::Usage(format!(
                "job '{}': size={} with offset={} goes past the end of {} ({} bytes)",
                spec.name,
                size,
                spec.offset_bytes,
                path.display(),
                len
            )));
        }
        no_creation(spec, path, "is too short for the job")?;
        let need = spec.offset_bytes + size;
        if spec.lays_out_data() {
            lay_out(path, len, need, stop)?;
        } else {
            let f = OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(|e| io_err("open", path, e))?;
            preallocate(&f, path, need, spec.file_options.fallocate)?;
        }
    } else if spec.rw.reads() && ft.is_file() && meta.blocks() * 512 < size / 10 * 9 {
        warnings.push(Warning::SparseFile {
            path: path.display().to_string(),
            allocated_bytes: meta.blocks() * 512,
            size_bytes: size,
        });
    }
    Ok(size)
}

/// A named file that does not exist yet: created as fio would, with the
/// job's size (or `filesize`), in a directory that must exist.
fn create_named(
    spec: &JobSpec,
    path: &Path,
    filesize: Option<(u64, u64)>,
    stop: &AtomicBool,
) -> Result<u64, RunError> {
    no_creation(spec, path, "does not exist")?;
    let size = match filesize {
        Some((_, region)) => region,
        None => spec.size_bytes.ok_or_else(|| {
            RunError::Usage(format!(
                "job '{}': {} does not exist and no size= is given: give size= to create it",
                spec.name,
                path.display()
            ))
        })?,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        check_directory(parent)?;
    }
    // create_on_open: the job's open makes it, empty.
    if !spec.file_options.create_on_open {
        let (reads, how) = (spec.lays_out_data(), spec.file_options.fallocate);
        create_file(path, spec.offset_bytes + size, reads, how, stop)?;
    }
    Ok(size)
}

/// Changing a file diskbench did not create (its mark is missing) needs
/// `--allow-overwrite`.
fn refuse_unless_ours(spec: &JobSpec, path: &Path) -> Result<(), RunError> {
    let ours = File::open(path).is_ok_and(|f| engine::xattr::is_marked(&f));
    if !ours {
        let how = if spec.writes_data() {
            "writing to it would destroy what it holds"
        } else {
            "laying out size= would append to it"
        };
        return Err(RunError::Usage(format!(
            "job '{}' refused: {} is a file diskbench did not create, and {how}; \
             pass --allow-overwrite if you mean it, or name a new file (diskbench creates and marks it)",
            spec.name,
            path.display()
        )));
    }
    Ok(())
}

/// `allow_file_create=0`: a file that must be created or extended is an
/// error, as in fio ("file creation disallowed").
fn no_creation(spec: &JobSpec, path: &Path, what: &str) -> Result<(), RunError> {
    if spec.file_options.allow_file_create {
        return Ok(());
    }
    Err(RunError::Usage(format!(
        "job '{}': {} {what}, and allow_file_create=0 forbids creating or extending it: \
         name an existing file of the job's size, or drop allow_file_create=0",
        spec.name,
        path.display()
    )))
}

/// `(memory, offset)` alignment for O_DIRECT: statx DIOALIGN, else the
/// device's logical block size, else 512.
fn dio_alignment(file: &File, path: &Path) -> (u32, u32) {
    if let Some(a) = sys::dio_alignment(file) {
        return a;
    }
    let is_dev = file
        .metadata()
        .map(|m| m.file_type().is_block_device())
        .unwrap_or(false);
    if is_dev {
        if let Ok(lbs) = sys::logical_block_size(file) {
            return (lbs, lbs);
        }
    }
    let lbs = crate::probe::logical_block_size_of(path).unwrap_or(512) as u32;
    (lbs, lbs)
}

/// Every block size the job can issue, in either direction it does, must be
/// a multiple of the direct I/O alignment, and so must the offset: one
/// misaligned size (`bs=R,W`, a `bssplit` entry, a `bsrange` step) would
/// otherwise fail with EINVAL in the middle of the run.
fn check_aligned(spec: &JobSpec, path: &Path, align: u64) -> Result<(), RunError> {
    let misaligned = |what: &str, value: u64| {
        RunError::Usage(format!(
            "job '{}': {what}={value} is not a multiple of {align} bytes, the direct I/O \
             alignment of {}: use a multiple of {align}, or direct=0",
            spec.name,
            path.display()
        ))
    };
    if !spec.offset_bytes.is_multiple_of(align) {
        return Err(misaligned("offset", spec.offset_bytes));
    }
    let dirs = [
        (Direction::Read, spec.rw.reads()),
        (Direction::Write, spec.rw.uses_write_side()),
    ];
    for (dir, used) in dirs {
        if !used {
            continue;
        }
        let sizes = spec.block_sizes_of(dir);
        let what = match (&sizes, dir) {
            (BlockSizes::Split(_), _) => "bssplit size",
            (_, _) if spec.block_sizes.is_none() => "bs",
            (
                BlockSizes::Range {
                    min_bytes,
                    max_bytes,
                },
                _,
            ) if min_bytes != max_bytes => "bsrange size",
            (_, Direction::Read) => "bs (reads)",
            (_, Direction::Write) => "bs (writes)",
        };
        // A range's sizes are multiples of its smallest; its largest is one too.
        let firsts = match &sizes {
            BlockSizes::Range {
                min_bytes,
                max_bytes,
            } => vec![*min_bytes, *max_bytes],
            BlockSizes::Split(_) => sizes.sizes(),
        };
        if let Some(bad) = firsts.into_iter().find(|size| !size.is_multiple_of(align)) {
            return Err(misaligned(what, bad));
        }
    }
    Ok(())
}
