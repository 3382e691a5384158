//! fio's `ioengine=` as diskbench knows it: the name fio gives each engine
//! and what kind of work it does (data I/O, file operations, CPU burn), so
//! the parser, runner and report ask the kind rather than list names.

use serde::{Deserialize, Serialize};

/// fio's `ioengine=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// pread/pwrite, one I/O at a time (fio's `sync` and `psync`).
    Sync,
    IoUring,
    Libaio,
    /// No I/O at all: measures the tool itself.
    Null,
    /// fallocate(2) over each I/O's range (fio's `falloc`).
    Falloc,
    /// ftruncate(2) to each write's offset (fio's `ftruncate`).
    Ftruncate,
    /// preadv/pwritev, one I/O at a time.
    Pvsync,
    /// preadv2/pwritev2 with `hipri` and `uncached` flags.
    Pvsync2,
    /// The file mapped with mmap(2), each I/O a memcpy (fio's `mmap`).
    Mmap,
    /// POSIX AIO: aio_read/aio_write, reaped with aio_suspend (fio's `posixaio`).
    Posixaio,
    /// fio's file-operation engines: one create, stat or removal of each
    /// file or directory of the job, timed as its I/O; no data moves.
    Filecreate,
    Filestat,
    Filedelete,
    Dircreate,
    Dirstat,
    Dirdelete,
    /// fio's `cpuio`: no I/O, a CPU load (see `model::cpuio`).
    Cpuio,
}

impl EngineKind {
    pub fn parse(text: &str) -> Option<EngineKind> {
        Some(match text {
            "sync" | "psync" => EngineKind::Sync,
            "io_uring" => EngineKind::IoUring,
            "libaio" => EngineKind::Libaio,
            "null" => EngineKind::Null,
            "falloc" => EngineKind::Falloc,
            "ftruncate" => EngineKind::Ftruncate,
            "pvsync" => EngineKind::Pvsync,
            "pvsync2" => EngineKind::Pvsync2,
            "mmap" => EngineKind::Mmap,
            "posixaio" => EngineKind::Posixaio,
            "filecreate" => EngineKind::Filecreate,
            "filestat" => EngineKind::Filestat,
            "filedelete" => EngineKind::Filedelete,
            "dircreate" => EngineKind::Dircreate,
            "dirstat" => EngineKind::Dirstat,
            "dirdelete" => EngineKind::Dirdelete,
            "cpuio" => EngineKind::Cpuio,
            _ => return None,
        })
    }
    pub fn fio_name(self) -> &'static str {
        match self {
            EngineKind::Sync => "psync",
            EngineKind::IoUring => "io_uring",
            EngineKind::Libaio => "libaio",
            EngineKind::Null => "null",
            EngineKind::Falloc => "falloc",
            EngineKind::Ftruncate => "ftruncate",
            EngineKind::Pvsync => "pvsync",
            EngineKind::Pvsync2 => "pvsync2",
            EngineKind::Mmap => "mmap",
            EngineKind::Posixaio => "posixaio",
            EngineKind::Filecreate => "filecreate",
            EngineKind::Filestat => "filestat",
            EngineKind::Filedelete => "filedelete",
            EngineKind::Dircreate => "dircreate",
            EngineKind::Dirstat => "dirstat",
            EngineKind::Dirdelete => "dirdelete",
            EngineKind::Cpuio => "cpuio",
        }
    }
    pub const NAMES: &'static str = "sync, psync, io_uring, libaio, null, falloc, ftruncate, \
         pvsync, pvsync2, mmap, posixaio, filecreate, filestat, filedelete, dircreate, dirstat, dirdelete, cpuio";

    /// True for the engines that keep `iodepth` I/Os in flight from one
    /// thread (the others do one I/O at a time).
    pub fn is_asynchronous(self) -> bool {
        matches!(
            self,
            EngineKind::IoUring | EngineKind::Libaio | EngineKind::Posixaio
        )
    }

    /// False for an engine that cannot make a file longer (fio's
    /// FIO_NOEXTEND: `mmap` writes into a mapping of the file as it is), so
    /// the files it writes are laid out whole first, as fio does.
    pub fn extends_files(self) -> bool {
        self != EngineKind::Mmap
    }

    /// One of fio's file-operation engines: it works on paths (no
    /// descriptor is opened and no data moves).
    pub fn is_file_op(self) -> bool {
        matches!(
            self,
            EngineKind::Filecreate
                | EngineKind::Filestat
                | EngineKind::Filedelete
                | EngineKind::Dircreate
                | EngineKind::Dirstat
                | EngineKind::Dirdelete
        )
    }

    /// Needs no file at all: `null` and `cpuio`.
    pub fn touches_no_files(self) -> bool {
        matches!(self, EngineKind::Null | EngineKind::Cpuio)
    }

    /// Works on directories rather than files.
    pub fn on_directories(self) -> bool {
        matches!(
            self,
            EngineKind::Dircreate | EngineKind::Dirstat | EngineKind::Dirdelete
        )
    }
}

/// `stat_type=` of fio's `filestat` and `dirstat`: the call that looks the
/// path up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StatCall {
    /// stat(2), following a symbolic link (fio's default).
    #[default]
    Stat,
    /// lstat(2): the link itself.
    Lstat,
    /// statx(2) of every field, following a link.
    Statx,
}

impl StatCall {
    pub fn parse(text: &str) -> Option<StatCall> {
        Some(match text {
            "stat" => StatCall::Stat,
            "lstat" => StatCall::Lstat,
            "statx" => StatCall::Statx,
            _ => return None,
        })
    }
    pub fn fio_name(self) -> &'static str {
        match self {
            StatCall::Stat => "stat",
            StatCall::Lstat => "lstat",
            StatCall::Statx => "statx",
        }
    }
}
