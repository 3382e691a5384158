//! The I/O engines, fio-style: each fills one small table of operations
//! (queue, submit, reap) and declares what it can do, so the runner drives
//! them all with one loop. This crate holds all of diskbench's `unsafe`,
//! each piece behind a safe type with a `# Safety` note.
//!
//! The runner talks to [`AnyEngine`], an enum rather than a trait object:
//! the per-I/O call is a predictable branch, not an indirect call, which
//! matters for the null engine at millions of I/Os per second.

/// The accessors an engine that owns its buffers (in a `buffers` field)
/// writes the same way: its name, what it can do, and that pool. Written
/// once here so each engine's `impl` holds only what differs: its I/O.
macro_rules! owned_buffers_engine {
    ($name:literal, $capabilities:expr) => {
        fn name(&self) -> &'static str {
            $name
        }
        fn capabilities(&self) -> $crate::Capabilities {
            $capabilities
        }
        fn pool(&self) -> &$crate::BufferPool {
            &self.buffers
        }
        fn pool_mut(&mut self) -> &mut $crate::BufferPool {
            &mut self.buffers
        }
    };
}

/// Submitting and reaping for an engine that does each request in `queue`
/// (its results wait in a `done` list): nothing to submit, reaping hands
/// over that list. Every synchronous engine's, written once.
macro_rules! reaps_done_list {
    () => {
        fn submit(&mut self) -> Result<usize, $crate::EngineError> {
            Ok(0)
        }
        fn reap(
            &mut self,
            _min: usize,
            out: &mut Vec<$crate::Completion>,
        ) -> Result<usize, $crate::EngineError> {
            Ok(self.done.reap(out))
        }
    };
}

/// The tail of a synchronous engine on file descriptors: [`reaps_done_list`],
/// a sync that is the file's fsync and a trim on the descriptor. Written
/// once for psync, pvsync, pvsync2, falloc and ftruncate.
macro_rules! completes_in_queue {
    () => {
        reaps_done_list!();
        fn sync_file(&mut self, file: u32, data_only: bool) -> Result<(), $crate::EngineError> {
            $crate::open::sync_fd(&self.cfg, file, data_only)
        }
        fn trim_file(
            &mut self,
            file: u32,
            offset: u64,
            len: u64,
        ) -> Result<(), $crate::EngineError> {
            $crate::open::trim_fd(&self.cfg, file, offset, len)
        }
    };
}

mod buffers;
mod cpu;
mod error;
mod fault;
mod fileop;
pub mod fsops;
mod libaio;
mod memory;
mod mmap;
mod null;
mod open;
mod posixaio;
mod space;
mod sync;
pub mod sys;
mod uring;
mod uring_setup;
mod vector;
pub mod xattr;

pub use buffers::{fill_random, BufferPool};
pub use cpu::CpuEngine;
pub use error::EngineError;
pub use fault::FaultyEngine;
pub use fileop::{FileOp, FileOpEngine};
pub use libaio::LibaioEngine;
pub use mmap::MmapEngine;
pub use model::Direction;
pub use null::NullEngine;
pub use open::{open, open_with_fallback, AnyEngine, EngineConfig, Fallback};
pub use posixaio::PosixAioEngine;
pub use space::{SpaceEngine, SpaceOp};
pub use sync::SyncEngine;
pub use uring::UringEngine;
pub use vector::VectorEngine;

/// One I/O to start. `slot` names both the buffer and the caller's record of
/// the I/O; it comes back in the [`Completion`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRequest {
    pub slot: u32,
    pub file: u32,
    pub dir: Direction,
    pub offset: u64,
    pub len: u32,
    /// The I/O's priority (`model::prio::IoPrio::value`), 0 for none: the
    /// thread's own. libaio and io_uring carry it with the I/O (fio's
    /// `cmdprio*`); the other engines cannot, and the parser keeps those
    /// options to these two.
    pub prio: u16,
}

/// A finished I/O: `result` is the byte count, or a negative errno.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub result: i64,
}

impl Capabilities {
    /// An engine that does real I/O with plain buffers and files.
    pub const fn io(asynchronous: bool) -> Capabilities {
        Capabilities {
            asynchronous,
            does_io: true,
            registered_buffers: false,
            registered_files: false,
        }
    }
}

/// What an engine can do, checked by the runner before any I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// I/Os complete later, in `reap`; when false, `queue` does the I/O itself
    /// and the caller times it around that call.
    pub asynchronous: bool,
    /// False for the null engine: no file is opened, created or laid out.
    pub does_io: bool,
    pub registered_buffers: bool,
    pub registered_files: bool,
}

impl Capabilities {
    /// An engine that moves no data through buffers and completes each
    /// request inside `queue`: the space engines (falloc, ftruncate), the
    /// file-operation engines and cpuio.
    pub const SYNCHRONOUS_NO_DATA: Capabilities = Capabilities {
        asynchronous: false,
        does_io: false,
        registered_buffers: false,
        registered_files: false,
    };
}

/// The operations every engine provides.
pub trait Engine {
    fn name(&self) -> &'static str;
    fn capabilities(&self) -> Capabilities;
    /// The engine's buffers, one slot per I/O that can be in flight.
    fn pool(&self) -> &BufferPool;
    fn pool_mut(&mut self) -> &mut BufferPool;
    /// The buffers: what memory they are and how much of it is huge pages.
    fn memory(&self) -> model::BufferMemory {
        self.pool().memory()
    }
    /// The buffer of `slot`, to fill before a write or read after a read.
    /// An error while that slot's I/O is in flight: the kernel may be
    /// writing it.
    #[inline]
    fn buffer(&mut self, slot: u32) -> Result<&mut [u8], EngineError> {
        let name = self.name();
        open::slot_buffer(name, self.pool_mut(), slot)
    }
    /// Adds one I/O to the batch (a synchronous engine does it now).
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError>;
    /// Hands the queued batch to the kernel; returns how many were submitted.
    fn submit(&mut self) -> Result<usize, EngineError>;
    /// Waits until at least `min` I/Os have completed (or none are in flight)
    /// and appends every completion available to `out`.
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError>;
    /// fsync (or fdatasync when `data_only`) one file. Call with nothing in flight.
    fn sync_file(&mut self, file: u32, data_only: bool) -> Result<(), EngineError>;
    /// Trims (discards) `offset..offset + len` of one file, now (see
    /// [`sys::trim`]). Every engine trims synchronously, through the file's
    /// descriptor, as fio's libaio and io_uring engines do for files and
    /// devices (neither interface has a discard of its own for them): the
    /// caller times the call, and the I/Os in flight go on meanwhile.
    fn trim_file(&mut self, file: u32, offset: u64, len: u64) -> Result<(), EngineError>;
}
