//! fio's file-operation engines: `filecreate`, `filestat`, `filedelete`,
//! `dircreate`, `dirstat` and `dirdelete`. They move no data: each file of
//! the job is created, stat'ed or removed once (fio does it when it opens
//! the file), and that operation's time is the I/O's latency. The I/O
//! itself completes at once with its length, as fio counts it (a read,
//! unless the job writes), so `total_ios` is one per file when a file is
//! one block. The system calls are [`crate::fsops`], shared with
//! `diskbench meta`.
//!
//! The runner prepares what fio prepares: the files of `filestat` and
//! `filedelete` laid out, the directories of `dirstat` and `dirdelete`
//! made; nothing for the two creating engines. It opens no descriptor:
//! the engine works on the paths.

use crate::fsops::{self, CWD};
use crate::sync::DoneList;
use crate::{BufferPool, Capabilities, Engine, EngineConfig, EngineError, IoRequest};
use model::engine_kind::StatCall;
use std::io;

/// The operation, on a file or on a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileOp {
    CreateFile,
    StatFile,
    DeleteFile,
    CreateDir,
    StatDir,
    DeleteDir,
}

impl FileOp {
    pub fn fio_name(self) -> &'static str {
        match self {
            FileOp::CreateFile => "filecreate",
            FileOp::StatFile => "filestat",
            FileOp::DeleteFile => "filedelete",
            FileOp::CreateDir => "dircreate",
            FileOp::StatDir => "dirstat",
            FileOp::DeleteDir => "dirdelete",
        }
    }

    /// Does it once, on `path`; a stat with the call `how`.
    pub fn apply(self, path: &std::path::Path, how: StatCall) -> io::Result<()> {
        let name = path.as_os_str();
        let res = match self {
            FileOp::CreateFile => {
                fsops::create_file(CWD, name, fsops::Create::OpenOrCreate).map(drop)
            }
            FileOp::StatFile | FileOp::StatDir => match how {
                StatCall::Stat => fsops::stat(CWD, name).map(drop),
                StatCall::Lstat => fsops::lstat(CWD, name).map(drop),
                StatCall::Statx => fsops::statx(CWD, name).map(drop),
            },
            FileOp::DeleteFile => fsops::unlink(CWD, name),
            FileOp::CreateDir => match fsops::mkdir(CWD, name) {
                // fio's mkdir of a directory that is there counts as done.
                Err(rustix::io::Errno::EXIST) => Ok(()),
                other => other,
            },
            FileOp::DeleteDir => fsops::rmdir(CWD, name),
        };
        res.map_err(io::Error::from)
    }
}

pub struct FileOpEngine {
    cfg: EngineConfig,
    op: FileOp,
    /// `stat_type` of the stat engines.
    stat: StatCall,
    buffers: BufferPool,
    done: DoneList,
    /// Files whose operation is done: the first I/O of a file does it, the
    /// others of the same file (a file of several blocks) only count.
    visited: Vec<bool>,
}

impl FileOpEngine {
    pub fn new(cfg: &EngineConfig, op: FileOp) -> Result<FileOpEngine, EngineError> {
        Ok(FileOpEngine {
            cfg: cfg.clone(),
            op,
            stat: StatCall::Stat,
            buffers: cfg.buffers(cfg.depth as usize, 64)?,
            done: DoneList::new(cfg.depth),
            visited: vec![false; cfg.paths.len()],
        })
    }

    pub fn op(&self) -> FileOp {
        self.op
    }

    /// The stat engines with `stat_type` other than stat(2).
    pub fn with_stat(self, stat: StatCall) -> FileOpEngine {
        FileOpEngine { stat, ..self }
    }
}

impl Engine for FileOpEngine {
    fn name(&self) -> &'static str {
        self.op.fio_name()
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::SYNCHRONOUS_NO_DATA
    }
    fn pool(&self) -> &BufferPool {
        &self.buffers
    }
    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.buffers
    }
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        let file = req.file as usize;
        let Some(seen) = self.visited.get_mut(file) else {
            return Err(EngineError::Io {
                op: self.op.fio_name(),
                path: self.cfg.path(req.file),
                offset: req.offset,
                len: u64::from(req.len),
                source: io::Error::new(io::ErrorKind::InvalidInput, "no such file"),
            });
        };
        let res = match std::mem::replace(seen, true) {
            true => Ok(()),
            false => self.op.apply(&self.cfg.paths[file], self.stat),
        };
        self.done.push(req.slot, res.map(|()| u64::from(req.len)));
        Ok(())
    }
    reaps_done_list!();
    fn sync_file(&mut self, _file: u32, _data_only: bool) -> Result<(), EngineError> {
        Ok(())
    }
    fn trim_file(&mut self, _file: u32, _offset: u64, _len: u64) -> Result<(), EngineError> {
        Ok(())
    }
}
