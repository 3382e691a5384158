//! Choosing and starting an engine, with fio-like fallback: when the kernel or
//! a seccomp profile refuses io_uring, try libaio, then sync, and say so.

use crate::{
    BufferPool, Capabilities, Completion, CpuEngine, Engine, EngineError, FaultyEngine, FileOp,
    FileOpEngine, IoRequest, LibaioEngine, MmapEngine, NullEngine, PosixAioEngine, SpaceEngine,
    SpaceOp, SyncEngine, UringEngine, VectorEngine,
};
use model::{EngineKind, FaultRule, IoMem, UringOptions};
use std::fs::File;
use std::path::PathBuf;
use std::sync::Arc;

/// What an engine needs to start. Files stay owned by the caller (shared with
/// an `Arc`), so a refused engine hands nothing back and the next one can try.
#[derive(Clone)]
pub struct EngineConfig {
    pub files: Arc<[File]>,
    /// Paths of `files`, same order, for error messages.
    pub paths: Arc<[PathBuf]>,
    /// I/Os in flight at most (`iodepth`); also the number of buffers.
    pub depth: u32,
    /// Bytes of the largest I/O.
    pub block_bytes: usize,
    /// Buffer alignment (DIO memory alignment, or the page size).
    pub align: usize,
    /// fio's `iomem`: where the buffers come from.
    pub iomem: IoMem,
    /// fio's io_uring options; only the io_uring engine reads them.
    pub uring: UringOptions,
    /// fio's `fadvise_hint` as an access pattern; the mmap engine gives it
    /// to its mappings with madvise (readahead on page faults follows the
    /// mapping's advice, not the descriptor's posix_fadvise).
    pub advice: Option<crate::sys::Advice>,
}

impl EngineConfig {
    /// The engine's buffer pool: one slot per I/O in flight, in the memory
    /// `iomem` asks for, aligned to `align`.
    pub(crate) fn buffers(&self, slots: usize, align: usize) -> Result<BufferPool, EngineError> {
        let iomem = self.iomem;
        BufferPool::with_memory(slots, self.block_bytes, align, iomem).map_err(|source| {
            let bytes = (slots.max(1) * self.block_bytes.max(1)) as u64;
            let hint = match iomem {
                IoMem::MmapHuge | IoMem::ShmHuge => {
                    let page = crate::memory::hugetlb_page_size() as u64;
                    format!(
                        "iomem={} needs hugetlbfs pages reserved in /proc/sys/vm/nr_hugepages \
                         (this job's buffers need {} of {} KiB): reserve them as root, e.g. \
                         `echo {} > /proc/sys/vm/nr_hugepages`, or use iomem=mmap",
                        iomem.fio_name(),
                        bytes.div_ceil(page),
                        page / 1024,
                        bytes.div_ceil(page),
                    )
                }
                IoMem::Shm => "check the SysV limits (/proc/sys/kernel/shmmax, shmall), or use \
                               iomem=mmap"
                    .to_string(),
                _ => "use a smaller iodepth or bs".to_string(),
            };
            EngineError::Memory {
                iomem: iomem.fio_name(),
                bytes,
                source,
                hint,
            }
        })
    }

    pub fn path(&self, file: u32) -> PathBuf {
        self.paths
            .get(file as usize)
            .cloned()
            .unwrap_or_else(|| PathBuf::from("(no file)"))
    }
}

/// The engine that ran, and why it is not the one asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fallback {
    pub wanted: EngineKind,
    pub used: EngineKind,
    pub reason: String,
}

pub enum AnyEngine {
    Sync(SyncEngine),
    Uring(UringEngine),
    Libaio(LibaioEngine),
    Null(NullEngine),
    /// `falloc`, `ftruncate`.
    Space(SpaceEngine),
    /// `pvsync`, `pvsync2`.
    Vector(VectorEngine),
    Mmap(MmapEngine),
    Posixaio(PosixAioEngine),
    /// `filecreate`, `filestat`, `filedelete`, `dircreate`, `dirstat`, `dirdelete`.
    FileOp(FileOpEngine),
    /// `cpuio` (made by [`CpuEngine::new`], with its load).
    Cpu(CpuEngine),
    /// Another engine with faults injected (`--inject-fault`); boxed, as it
    /// holds an `AnyEngine` itself. Only made when faults are given.
    Faulty(Box<FaultyEngine>),
}

pub fn open(kind: EngineKind, cfg: &EngineConfig) -> Result<AnyEngine, EngineError> {
    Ok(match kind {
        EngineKind::Sync => AnyEngine::Sync(SyncEngine::new(cfg)?),
        EngineKind::IoUring => AnyEngine::Uring(UringEngine::new(cfg)?),
        EngineKind::Libaio => AnyEngine::Libaio(LibaioEngine::new(cfg)?),
        EngineKind::Null => AnyEngine::Null(NullEngine::new(cfg)?),
        EngineKind::Falloc => AnyEngine::Space(SpaceEngine::new(cfg, SpaceOp::Falloc)?),
        EngineKind::Ftruncate => AnyEngine::Space(SpaceEngine::new(cfg, SpaceOp::Ftruncate)?),
        EngineKind::Pvsync => AnyEngine::Vector(VectorEngine::new(cfg)?),
        EngineKind::Pvsync2 => AnyEngine::Vector(VectorEngine::new_v2(cfg)?),
        EngineKind::Mmap => AnyEngine::Mmap(MmapEngine::new(cfg)?),
        EngineKind::Posixaio => AnyEngine::Posixaio(PosixAioEngine::new(cfg)?),
        EngineKind::Filecreate => file_op(cfg, FileOp::CreateFile)?,
        EngineKind::Filestat => file_op(cfg, FileOp::StatFile)?,
        EngineKind::Filedelete => file_op(cfg, FileOp::DeleteFile)?,
        EngineKind::Dircreate => file_op(cfg, FileOp::CreateDir)?,
        EngineKind::Dirstat => file_op(cfg, FileOp::StatDir)?,
        EngineKind::Dirdelete => file_op(cfg, FileOp::DeleteDir)?,
        EngineKind::Cpuio => {
            let why = "cpuio is started with its load: engine::CpuEngine::new";
            return Err(EngineError::Setup {
                engine: "cpuio",
                source: std::io::Error::new(std::io::ErrorKind::InvalidInput, why),
            });
        }
    })
}

fn file_op(cfg: &EngineConfig, op: FileOp) -> Result<AnyEngine, EngineError> {
    Ok(AnyEngine::FileOp(FileOpEngine::new(cfg, op)?))
}

/// Opens `kind`; if the system refuses it, falls back io_uring -> libaio -> sync.
pub fn open_with_fallback(
    kind: EngineKind,
    cfg: &EngineConfig,
) -> Result<(AnyEngine, Option<Fallback>), EngineError> {
    let chain: &[EngineKind] = match kind {
        EngineKind::IoUring => &[EngineKind::IoUring, EngineKind::Libaio, EngineKind::Sync],
        EngineKind::Libaio => &[EngineKind::Libaio, EngineKind::Sync],
        other => return open(other, cfg).map(|e| (e, None)),
    };
    let mut first_refusal: Option<EngineError> = None;
    for &candidate in chain {
        match open(candidate, cfg) {
            Ok(engine) => {
                let fallback = first_refusal.map(|e| Fallback {
                    wanted: kind,
                    used: candidate,
                    reason: e.to_string(),
                });
                return Ok((engine, fallback));
            }
            Err(e) if e.is_refusal() => {
                first_refusal.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    Err(first_refusal.expect("the chain ends with sync, which cannot be refused"))
}

macro_rules! dispatch {
    ($self:ident, $e:ident => $body:expr) => {
        match $self {
            AnyEngine::Sync($e) => $body,
            AnyEngine::Uring($e) => $body,
            AnyEngine::Libaio($e) => $body,
            AnyEngine::Null($e) => $body,
            AnyEngine::Space($e) => $body,
            AnyEngine::Vector($e) => $body,
            AnyEngine::Mmap($e) => $body,
            AnyEngine::Posixaio($e) => $body,
            AnyEngine::FileOp($e) => $body,
            AnyEngine::Cpu($e) => $body,
            AnyEngine::Faulty($e) => $body,
        }
    };
}

impl Engine for AnyEngine {
    fn name(&self) -> &'static str {
        dispatch!(self, e => e.name())
    }
    fn capabilities(&self) -> Capabilities {
        dispatch!(self, e => e.capabilities())
    }
    fn pool(&self) -> &BufferPool {
        dispatch!(self, e => e.pool())
    }
    fn pool_mut(&mut self) -> &mut BufferPool {
        dispatch!(self, e => e.pool_mut())
    }
    #[inline]
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        dispatch!(self, e => e.queue(req))
    }
    #[inline]
    fn submit(&mut self) -> Result<usize, EngineError> {
        dispatch!(self, e => e.submit())
    }
    #[inline]
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        dispatch!(self, e => e.reap(min, out))
    }
    fn sync_file(&mut self, file: u32, data_only: bool) -> Result<(), EngineError> {
        dispatch!(self, e => e.sync_file(file, data_only))
    }
    fn trim_file(&mut self, file: u32, offset: u64, len: u64) -> Result<(), EngineError> {
        dispatch!(self, e => e.trim_file(file, offset, len))
    }
}

impl AnyEngine {
    pub fn kind(&self) -> EngineKind {
        match self {
            AnyEngine::Sync(_) => EngineKind::Sync,
            AnyEngine::Uring(_) => EngineKind::IoUring,
            AnyEngine::Libaio(_) => EngineKind::Libaio,
            AnyEngine::Null(_) => EngineKind::Null,
            AnyEngine::Space(e) => match e.name() {
                "falloc" => EngineKind::Falloc,
                _ => EngineKind::Ftruncate,
            },
            AnyEngine::Vector(e) => match e.name() {
                "pvsync" => EngineKind::Pvsync,
                _ => EngineKind::Pvsync2,
            },
            AnyEngine::Mmap(_) => EngineKind::Mmap,
            AnyEngine::Posixaio(_) => EngineKind::Posixaio,
            AnyEngine::FileOp(e) => EngineKind::parse(e.name()).unwrap_or(EngineKind::Null),
            AnyEngine::Cpu(_) => EngineKind::Cpuio,
            AnyEngine::Faulty(e) => e.inner().kind(),
        }
    }

    /// This engine with `faults` injected, or itself unchanged when there are none.
    pub fn with_faults(self, faults: &[FaultRule]) -> AnyEngine {
        if faults.is_empty() {
            return self;
        }
        AnyEngine::Faulty(Box::new(FaultyEngine::new(self, faults.to_vec())))
    }
}

/// fsync or fdatasync through the file's descriptor, for every engine.
pub(crate) fn sync_fd(cfg: &EngineConfig, file: u32, data_only: bool) -> Result<(), EngineError> {
    let f = &cfg.files[file as usize];
    let res = if data_only {
        f.sync_data()
    } else {
        f.sync_all()
    };
    res.map_err(|source| EngineError::File {
        op: if data_only { "fdatasync" } else { "fsync" },
        path: cfg.path(file),
        source,
    })
}

/// A trim through the file's descriptor, for every engine (see
/// [`crate::sys::trim`]).
pub(crate) fn trim_fd(
    cfg: &EngineConfig,
    file: u32,
    offset: u64,
    len: u64,
) -> Result<(), EngineError> {
    let Some(f) = cfg.files.get(file as usize) else {
        let why = format!("file {file} out of range ({} files)", cfg.files.len());
        let source = std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
        return Err(trim_error(cfg, file, offset, len, source));
    };
    crate::sys::trim(f, offset, len).map_err(|e| trim_error(cfg, file, offset, len, e))
}

fn trim_error(
    cfg: &EngineConfig,
    file: u32,
    offset: u64,
    len: u64,
    source: std::io::Error,
) -> EngineError {
    EngineError::Io {
        op: "trim",
        path: cfg.path(file),
        offset,
        len,
        source,
    }
}

/// Checks a request against the engine's files and buffers and returns the
/// slot's buffer pointer. Asynchronous engines hand that pointer to the kernel,
/// so a slot, length or file out of range must never get past this point.
pub(crate) fn checked_buffer(
    cfg: &EngineConfig,
    buffers: &mut BufferPool,
    req: &IoRequest,
) -> Result<*mut u8, EngineError> {
    let why = if req.slot as usize >= buffers.slots() {
        format!("slot {} out of range (depth {})", req.slot, buffers.slots())
    } else if req.len as usize > buffers.slot_bytes() {
        format!("longer than the {}-byte buffer", buffers.slot_bytes())
    } else if req.file as usize >= cfg.files.len() {
        format!("file {} out of range ({} files)", req.file, cfg.files.len())
    } else if buffers.is_lent(req.slot) {
        format!("slot {} is still in flight", req.slot)
    } else {
        return Ok(buffers.lend(req.slot));
    };
    Err(EngineError::Io {
        op: match req.dir {
            crate::Direction::Read => "read",
            crate::Direction::Write => "write",
        },
        path: cfg.path(req.file),
        offset: req.offset,
        len: req.len as u64,
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, why),
    })
}

/// The buffer of `slot` from `engine`'s pool, or an error naming why not
/// (out of range, or lent to the kernel).
pub(crate) fn slot_buffer<'a>(
    engine: &'static str,
    buffers: &'a mut BufferPool,
    slot: u32,
) -> Result<&'a mut [u8], EngineError> {
    let refused = |why: String| EngineError::Engine {
        engine,
        op: "buffer",
        source: std::io::Error::new(std::io::ErrorKind::ResourceBusy, why),
    };
    if buffers.is_lent(slot) {
        return Err(refused(format!("the buffer of slot {slot} is in flight")));
    }
    let slots = buffers.slots();
    buffers
        .slot(slot)
        .ok_or_else(|| refused(format!("no buffer slot {slot} (depth {slots})")))
}
