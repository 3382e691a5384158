//! The "files" of fio's file-operation engines (`filecreate` ... `dirdelete`,
//! see `engine::FileOp`): paths, not open descriptors. What fio makes
//! before such a job starts is made here, outside the clock: the files of
//! `filestat` and `filedelete`, laid out at their size, and the directories
//! of `dirstat` and `dirdelete`; the creating engines find nothing there.
//!
//! Each file gives the job its blocks as fio counts them: one for the
//! creating engines (fio gives a file they create the size of one block),
//! the file's size in blocks for the others (one block with fio's examples,
//! `filesize=bs`), so `total_ios` matches fio's.

use crate::error::{IoError, RunError};
use crate::files::{CloneFiles, Workspace};
use crate::region::Region;
use engine::fsops;
use model::{EngineKind, FileTarget, JobSpec};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// The clone's paths, prepared as fio prepares them for `spec.engine`.
pub(crate) fn prepare(
    spec: &JobSpec,
    clone: u32,
    ws: &mut Workspace,
    stop: &AtomicBool,
    allow_overwrite: bool,
) -> Result<CloneFiles, RunError> {
    let paths: Vec<PathBuf> = match &spec.target {
        FileTarget::Named(path) => {
            let all = std::iter::once(path).chain(&spec.file_options.also_named);
            let all: Vec<PathBuf> = all.cloned().collect();
            for path in &all {
                refuse_removal(spec, path, allow_overwrite)?;
            }
            all
        }
        FileTarget::Generated {
            directory, nrfiles, ..
        } => {
            let dir = ws.dir_in(directory)?;
            let paths: Vec<PathBuf> = (0..(*nrfiles).max(1))
                .map(|f| dir.join(spec.file_options.generated_name(&spec.name, clone, f)))
                .collect();
            for path in &paths {
                crate::files::make_parent(path)?;
            }
            paths
        }
    };
    let lengths = crate::fileset::lengths(spec, clone, paths.len());
    let mut regions = Vec::with_capacity(paths.len());
    for (path, (need, per_file)) in paths.iter().zip(lengths) {
        let blocks = match spec.engine {
            EngineKind::Filestat | EngineKind::Filedelete => {
                if !path.exists() {
                    let how = spec.file_options.fallocate;
                    crate::one_file::create_file(path, need, true, how, stop)?;
                }
                per_file / spec.bs_bytes
            }
            EngineKind::Dirstat | EngineKind::Dirdelete => {
                match fsops::mkdir(fsops::CWD, path.as_os_str()) {
                    Ok(()) | Err(fsops::Errno::EXIST) => {}
                    Err(e) => return Err(IoError::new("mkdir", path, e.into()).into()),
                }
                per_file / spec.bs_bytes
            }
            _ => 1,
        };
        regions.push(Region {
            base: 0,
            blocks: blocks.max(1),
            block_bytes: spec.bs_bytes,
        });
    }
    Ok(CloneFiles {
        paths,
        files: Vec::new(),
        regions,
        mem_align: 64,
        set: None,
    })
}

/// `filedelete` or `dirdelete` of a path the user named that is there and
/// that diskbench did not make: removed only with `--allow-overwrite`.
fn refuse_removal(spec: &JobSpec, path: &Path, allow: bool) -> Result<(), RunError> {
    let removes = matches!(spec.engine, EngineKind::Filedelete | EngineKind::Dirdelete);
    if !removes || allow || !path.exists() || crate::fileset::is_ours(path) {
        return Ok(());
    }
    Err(RunError::Usage(format!(
        "job '{}' refused: ioengine={} would remove {}, which diskbench did not create; \
         pass --allow-overwrite if you mean it, or name a path that does not exist yet \
         (diskbench makes it first)",
        spec.name,
        spec.engine.fio_name(),
        path.display()
    )))
}
