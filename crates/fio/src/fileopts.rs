//! fio's file-handling options: `filesize`, `fallocate`, `unlink`,
//! `unlink_each_loop`, `create_on_open`, `allow_file_create`, `create_only`,
//! `openfiles`, `sync_file_range` and `filename_format` (see
//! `model::fileopts`).
//!
//! Each value is read as it is applied; the combinations that cannot work
//! are refused once the job is complete ([`finish`]), each with the option
//! and the fix, rather than run differently from what was asked:
//! - a job that reads cannot create its files on open or remove them
//!   between loops (the next reads would find no data; fio stops with an
//!   I/O error or ENOENT);
//! - io_uring registers the job's files with its ring when it starts, so it
//!   cannot follow a file being closed and another opened in its place
//!   (`openfiles` below `nrfiles`, `unlink_each_loop` with several loops);
//! - diskbench creates its test files in a fresh directory of its own, so
//!   `allow_file_create=0` can only work with `filename=`.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::values;
use crate::values::Given;
use model::fileopts::{Fallocate, FileOptions, SizeRange, SyncFileRange};
use model::units::format_size;
use model::{EngineKind, FileTarget, JobSpec};
use std::path::{Path, PathBuf};

/// A file named in a job: fio prefixes it with `directory`, if given.
pub(crate) fn in_directory(directory: Option<&str>, file: &str) -> PathBuf {
    match directory {
        Some(dir) => Path::new(dir).join(file.trim_start_matches('/')),
        None => PathBuf::from(file),
    }
}

/// Applies one of the file options (the keys listed in `jobs::apply_more`).
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<(), FioError> {
    let f = &mut spec.file_options;
    match o.key {
        Key::FileSize => f.filesize = filesize(o.scope, o.name, o.text)?,
        Key::Fallocate => {
            f.fallocate = Fallocate::parse(o.text.trim())
                .ok_or_else(|| o.invalid(format!("use {}", Fallocate::NAMES)))?
        }
        Key::Unlink => f.unlink = o.boolean()?,
        Key::UnlinkEachLoop => f.unlink_each_loop = o.boolean()?,
        Key::CreateOnOpen => f.create_on_open = o.boolean()?,
        Key::AllowFileCreate => f.allow_file_create = o.boolean()?,
        Key::CreateOnly => f.create_only = o.boolean()?,
        // fio: 0 is "not given", every file open.
        Key::OpenFiles => f.openfiles = Some(o.int_u32()?).filter(|&n| n > 0),
        Key::SyncFileRange => f.sync_file_range = sync_file_range(o.scope, o.name, o.text)?,
        Key::FilenameFormat => f.filename_format = Some(filename_format(o)?),
        Key::Sync => {
            f.sync = model::fileopts::SyncWrites::parse(o.text.trim())
                .ok_or_else(|| o.invalid(format!("use {}", model::fileopts::SyncWrites::NAMES)))?
        }
        other => unreachable!("{other:?} is not a file option"),
    }
    Ok(())
}

/// `filename_format=`: a name, or a path below the job's directory. The
/// files diskbench makes live in a fresh directory of its own, removed
/// after the run, so a format that leaves it (absolute, or through `..`)
/// is refused, as is an empty one.
fn filename_format(o: &Given) -> Result<String, FioError> {
    let text = o.text.trim();
    let path = std::path::Path::new(text);
    if text.is_empty() {
        return Err(o.invalid("give a name such as $jobname.$jobnum.$filenum"));
    }
    if path.is_absolute()
        || path
            .components()
            .any(|c| c == std::path::Component::ParentDir)
    {
        return Err(o.invalid(
            "diskbench makes its files in a fresh directory below directory= and removes \
             them after the run, so the format stays inside it: give a relative name \
             without '..' (e.g. sub/$jobname.$filenum), or name a file of your own with \
             filename=",
        ));
    }
    Ok(text.to_string())
}

/// `filesize=SIZE` or `LOW-HIGH` (also `LOW:HIGH`); 0 means not given.
fn filesize(scope: &Scope, name: &str, text: &str) -> Result<Option<SizeRange>, FioError> {
    let (lo, hi) = match text.split_once(['-', ':']) {
        Some((lo, hi)) => (
            values::size(scope, name, lo)?,
            values::size(scope, name, hi)?,
        ),
        None => {
            let one = values::size(scope, name, text)?;
            (one, one)
        }
    };
    if lo > hi {
        return Err(FioError::invalid(
            scope,
            name,
            text,
            format!(
                "the range goes down: give the smaller size first, e.g. filesize={}-{}",
                format_size(hi),
                format_size(lo)
            ),
        ));
    }
    Ok((hi > 0).then_some(SizeRange {
        min_bytes: lo,
        max_bytes: hi,
    }))
}

/// `wait_before,write,wait_after:N`: the flags, then every how many writes
/// (1 when left out, 0 for never, as fio reads them).
fn sync_file_range(
    scope: &Scope,
    name: &str,
    text: &str,
) -> Result<Option<SyncFileRange>, FioError> {
    let (flags, every) = text.split_once(':').unwrap_or((text, "1"));
    let mut r = SyncFileRange::default();
    for flag in flags.split(',').map(str::trim) {
        match flag {
            "wait_before" => r.wait_before = true,
            "write" => r.write = true,
            "wait_after" => r.wait_after = true,
            _ => {
                return Err(FioError::invalid(
                    scope,
                    name,
                    text,
                    "the flags are wait_before, write and wait_after, joined by ',', then ':' \
                     and every how many writes, e.g. sync_file_range=wait_before,write:8",
                ))
            }
        }
    }
    r.every = values::int_u32(scope, name, every)?;
    Ok((r.every > 0).then_some(r))
}

/// Checks across options, once the job is complete (its target included).
pub(crate) fn finish(spec: &mut JobSpec) -> Result<(), FioError> {
    let scope = Scope::Job(spec.name.clone());
    let nrfiles = spec.files_per_clone();
    let f = &mut spec.file_options;
    // fio opens at most nrfiles files whatever openfiles says.
    f.openfiles = f.openfiles.filter(|&n| n < nrfiles);
    let f = &spec.file_options;
    if let Some(range) = f.filesize {
        check_filesize(spec, &scope, range)?;
    }
    crate::fileop_opts::check_stat_type(spec, &scope)?;
    if spec.engine.is_file_op() {
        return crate::fileop_opts::check(spec);
    }
    let loops = spec.loops > 1 && !spec.time_based && f.unlink_each_loop;
    // Engines that hold on to the files they start with cannot follow the
    // worker swapping one file for another in the same descriptor.
    let holds = match spec.engine {
        EngineKind::IoUring => {
            Some("io_uring registers the job's files with its ring when it starts")
        }
        EngineKind::Mmap => {
            Some("the mmap engine maps each file on its first I/O and keeps the mapping")
        }
        _ => None,
    };
    if let Some(holds) = holds {
        let why = match (f.openfiles, loops) {
            (Some(n), _) => Some(("openfiles", n.to_string(), format!("openfiles={nrfiles}"))),
            (None, true) => Some(("unlink_each_loop", "1".into(), "loops=1".into())),
            _ => None,
        };
        if let Some((option, value, other)) = why {
            return Err(FioError::not_yet(
                &scope,
                option,
                &value,
                &format!(" with ioengine={}", spec.engine.fio_name()),
                &format!(
                    ": {holds}, and cannot follow one being closed and another opened in its \
                     place; use ioengine=libaio or psync, or {other}"
                ),
            ));
        }
    }
    if spec.engine == EngineKind::Mmap && f.create_on_open {
        return Err(FioError::invalid(
            &scope,
            "create_on_open",
            "1",
            "the mmap engine reads and writes a mapping of each file as it was laid out, and \
             cannot make a file longer (as in fio); create_on_open=1 leaves each file empty \
             until the job opens it: use create_on_open=0, or ioengine=psync",
        ));
    }
    let named = matches!(spec.target, FileTarget::Named(_));
    let other = match (f.openfiles, loops) {
        _ if spec.verify.is_some() && loops => Some((
            "verify",
            "verify checks each file against what the job wrote to it, and cannot follow \
             files being made again: drop verify, or unlink_each_loop",
        )),
        (_, true) if named && spec.numjobs > 1 => Some((
            "numjobs",
            "the clones share filename= and would remove it under each other between loops \
             (unlink_each_loop): use numjobs=1, or directory= (a file per clone)",
        )),
        _ => None,
    };
    if let Some((option, problem)) = other {
        let value = match option {
            "verify" => spec
                .verify
                .as_ref()
                .map_or("1", |v| v.algo.fio_name())
                .to_string(),
            _ => spec.numjobs.to_string(),
        };
        return Err(FioError::invalid(&scope, option, &value, problem));
    }
    if spec.rw.reads() {
        // fio's asynchronous engines count a read past the end of the file
        // (still shorter than the job's size) with the bytes it got, which
        // the runner does too; its synchronous ones fail the job with EIO
        // (checked with fio 3.33: libaio, io_uring and posixaio run
        // rw=randrw with create_on_open=1, psync fails).
        let reason = if f.create_on_open && !spec.engine.is_asynchronous() {
            Some((
                "create_on_open",
                "creates each file empty when the job opens it, so a job that reads would read \
                 no data (fio fails with an I/O error with a synchronous engine); use \
                 create_on_open=0, a write-only rw, or ioengine=libaio or io_uring (which count \
                 a read past the end of the file with the bytes it got, as fio's do)",
            ))
        } else if loops {
            Some((
                "unlink_each_loop",
                "removes the files between loops, so the next loop of a job that reads would \
                 read no data (fio fails with ENOENT); use it with a write-only rw, or loops=1",
            ))
        } else {
            None
        };
        if let Some((option, why)) = reason {
            let problem = format!("rw={} reads, and {option}=1 {why}", spec.rw.fio_name());
            return Err(FioError::invalid(&scope, option, "1", problem));
        }
    }
    if !f.allow_file_create && matches!(spec.target, FileTarget::Generated { .. }) {
        return Err(FioError::invalid(
            &scope,
            "allow_file_create",
            "0",
            "without filename=, diskbench creates the job's files in a fresh directory of its \
             own, which allow_file_create=0 forbids; name existing files with filename=, or \
             drop allow_file_create=0",
        ));
    }
    Ok(())
}

/// Every file drawn from the range must hold one block past `offset`
/// (fio leaves a file drawn below one block empty; diskbench refuses).
fn check_filesize(spec: &JobSpec, scope: &Scope, range: SizeRange) -> Result<(), FioError> {
    let need = spec.offset_bytes + spec.bs_bytes;
    if range.min_bytes >= need {
        return Ok(());
    }
    let value = match range.min_bytes == range.max_bytes {
        true => format_size(range.min_bytes),
        false => format!(
            "{}-{}",
            format_size(range.min_bytes),
            format_size(range.max_bytes)
        ),
    };
    let after = match spec.offset_bytes {
        0 => String::new(),
        o => format!(" after offset={}", format_size(o)),
    };
    Err(FioError::invalid(
        scope,
        "filesize",
        &value,
        format!(
            "a file of {} holds no block of bs={}{after}: give every file at least {}",
            format_size(range.min_bytes),
            format_size(spec.bs_bytes),
            format_size(need)
        ),
    ))
}

/// The file options that differ from fio's defaults, for `--parse-only`.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let f = &job.file_options;
    let d = FileOptions::default();
    if let Some(r) = f.filesize {
        let value = match r.min_bytes == r.max_bytes {
            true => format_size(r.min_bytes),
            false => format!("{}-{}", format_size(r.min_bytes), format_size(r.max_bytes)),
        };
        opts.push(("filesize", Some(value)));
    }
    if f.sync != d.sync {
        let name = match f.sync {
            model::fileopts::SyncWrites::Sync => "sync",
            _ => "dsync",
        };
        opts.push(("sync", Some(name.to_string())));
    }
    if f.fallocate != d.fallocate {
        opts.push(("fallocate", Some(f.fallocate.fio_name().to_string())));
    }
    let flags = [
        ("unlink", f.unlink, d.unlink),
        ("unlink_each_loop", f.unlink_each_loop, d.unlink_each_loop),
        ("create_on_open", f.create_on_open, d.create_on_open),
        (
            "allow_file_create",
            f.allow_file_create,
            d.allow_file_create,
        ),
        ("create_only", f.create_only, d.create_only),
    ];
    for (name, value, default) in flags {
        if value != default {
            opts.push((name, Some(u8::from(value).to_string())));
        }
    }
    if let Some(n) = f.openfiles {
        opts.push(("openfiles", Some(n.to_string())));
    }
    if let Some(r) = f.sync_file_range {
        opts.push((
            "sync_file_range",
            Some(format!("{}:{}", r.flag_names(), r.every)),
        ));
    }
}
