//! What is checked before any file is opened: the places the jobs measure
//! (probed once, with a warning where a place is not a local disk), that
//! each place exists and can be written, `--readonly` against jobs that
//! write, and that the test files fit in the free space. A failure here
//! leaves nothing on the disk and names the place and the fix.

use crate::job_path::{job_path, parent_dir};
use crate::{files, probe, RunError, RunOptions, Workspace};
use model::errors::{ErrorType, ENOSPC};
use model::{FileTarget, JobSpec, TargetInfo, Warning};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The places the jobs measure, each probed once.
pub(crate) fn targets_of(groups: &[Vec<JobSpec>]) -> Vec<TargetInfo> {
    let mut seen = BTreeMap::new();
    for path in groups.iter().flatten().filter_map(job_path) {
        seen.entry(path.clone())
            .or_insert_with(|| probe::target(&path));
    }
    seen.into_values().collect()
}

/// Fails early, before any file is written, when the files to create do not fit.
/// The preflight warning for a target that is memory, a network share or FUSE.
pub(crate) fn not_a_local_disk(t: &TargetInfo) -> Option<Warning> {
    let fs = t.filesystem.as_deref()?;
    let what = match fs {
        "tmpfs" | "ramfs" => "memory",
        "nfs" | "nfs4" | "cifs" | "smb3" | "smbfs" | "9p" | "ceph" | "glusterfs" | "afs" => {
            "network"
        }
        _ if fs == "fuse" || fs.starts_with("fuse.") || fs == "fuseblk" => "fuse",
        _ => return None,
    };
    Some(Warning::NotALocalDisk {
        path: t.path.clone(),
        filesystem: fs.to_string(),
        what: what.to_string(),
    })
}

/// Whether the places the jobs write could hold their files (a directory
/// that exists, on a writable mount, with room), before any file is made:
/// a command checks this before it describes the target, so an error
/// comes alone.
pub fn check_targets(groups: &[Vec<JobSpec>]) -> Result<(), RunError> {
    check_places(groups)?;
    check_free_space(groups, &targets_of(groups), &Workspace::default())
}

/// The warnings about the targets themselves (tmpfs, network, FUSE), for
/// a command to print before any figure.
pub fn target_warnings(groups: &[Vec<JobSpec>]) -> Vec<Warning> {
    targets_of(groups)
        .iter()
        .filter_map(not_a_local_disk)
        .collect()
}

/// Each directory test files go in exists and is not on a read-only mount.
pub(crate) fn check_places(groups: &[Vec<JobSpec>]) -> Result<(), RunError> {
    for spec in groups
        .iter()
        .flatten()
        .filter(|s| !s.engine.touches_no_files())
    {
        let dir = match &spec.target {
            FileTarget::Generated { directory, .. } => {
                files::check_directory(directory)?;
                directory.clone()
            }
            FileTarget::Named(p) if !p.exists() => parent_dir(p),
            FileTarget::Named(_) => continue,
        };
        if let Some(why) = probe::read_only_refusal(&dir) {
            return Err(RunError::place(&dir, why, None));
        }
    }
    Ok(())
}

/// `--readonly` refuses a run with any job that writes, before any I/O.
/// The file-operation engines that make or remove files and directories
/// change the filesystem whatever `rw` says: refused as writes.
pub(crate) fn check_readonly(groups: &[Vec<JobSpec>], opts: &RunOptions) -> Result<(), RunError> {
    use model::EngineKind::{Dircreate, Dirdelete, Filecreate, Filedelete};
    let changes =
        |s: &&JobSpec| matches!(s.engine, Filecreate | Filedelete | Dircreate | Dirdelete);
    if let Some(spec) = groups
        .iter()
        .flatten()
        .find(changes)
        .filter(|_| opts.readonly)
    {
        return Err(RunError::Usage(format!(
            "job '{}' runs ioengine={}, which changes the filesystem, and --readonly refuses \
             every write: drop --readonly, or use filestat or dirstat",
            spec.name,
            spec.engine.fio_name()
        )));
    }
    match groups.iter().flatten().find(|s| s.writes_data()) {
        Some(spec) if opts.readonly => Err(RunError::Usage(format!(
            "job '{}' {} (rw={}), and --readonly refuses every write{}: drop --readonly, or make the job read",
            spec.name,
            if spec.rw.trims() { "trims" } else { "writes" },
            spec.rw.fio_name(),
            if spec.rw.trims() { " and trim" } else { "" },
        ))),
        _ => Ok(()),
    }
}

/// Whether the test files fit; files `ws` already holds (from an earlier
/// run of a soak, or kept by an earlier `diskbench fio` under fio's names)
/// count as room.
pub(crate) fn check_free_space(
    groups: &[Vec<JobSpec>],
    targets: &[TargetInfo],
    ws: &Workspace,
) -> Result<(), RunError> {
    let need = bytes_to_lay_out(groups, ws);
    for (dir, bytes) in need {
        let abs = std::fs::canonicalize(&dir).unwrap_or(dir.clone());
        let free = targets
            .iter()
            .find(|t| Path::new(&t.path) == abs)
            .and_then(|t| t.free_bytes)
            .or_else(|| engine::sys::free_space(&dir).ok().map(|f| f.0))
            .map(|f| f + ws.bytes_in(&dir));
        if let Some(free) = free {
            if bytes > free {
                let message = format!(
                    "the test files need {} in {} but only {} is free: use a smaller size \
                     (--size) or another directory",
                    model::units::format_bytes_binary(bytes),
                    dir.display(),
                    model::units::format_bytes_binary(free)
                );
                return Err(RunError::place(&dir, message, None));
            }
        }
    }
    Ok(())
}

/// The bytes the jobs' files will take in each directory, beyond the files
/// already there (a named file that exists, a kept file of the right size):
/// what laying out writes before the first measurement.
fn bytes_to_lay_out(groups: &[Vec<JobSpec>], ws: &Workspace) -> BTreeMap<PathBuf, u64> {
    let mut need: BTreeMap<PathBuf, u64> = BTreeMap::new();
    let mut shared_seen = std::collections::BTreeSet::new();
    for spec in groups
        .iter()
        .flatten()
        .filter(|s| !s.engine.touches_no_files())
        // A job that fills the disk (fill_device) or goes on past ENOSPC
        // expects not to fit: the writes find out, as in fio.
        .filter(|s| !s.fill_device && !s.errors.continues(ErrorType::Write, ENOSPC))
    {
        let (dir, bytes) = match &spec.target {
            FileTarget::Named(p) if !p.exists() => (parent_dir(p), spec.footprint_bytes()),
            FileTarget::Named(_) => continue,
            FileTarget::Generated {
                directory, shared, ..
            } => {
                if let Some(name) = shared {
                    if !shared_seen.insert((directory.clone(), name.clone())) {
                        continue;
                    }
                }
                let kept = match ws.keeps() {
                    true => files::kept_bytes(spec),
                    false => 0,
                };
                (
                    directory.clone(),
                    (spec.footprint_bytes() + spec.offset_bytes).saturating_sub(kept),
                )
            }
        };
        *need.entry(dir).or_default() += bytes;
    }
    need
}

/// How many bytes of test files a run of `groups` lays out before it
/// measures, in every directory together: said with the expected time.
pub fn layout_bytes(groups: &[Vec<JobSpec>]) -> u64 {
    bytes_to_lay_out(groups, &Workspace::default())
        .values()
        .sum()
}
