//! `sync` / `psync`: pread and pwrite, one I/O at a time, done inside `queue`.

use crate::open::checked_buffer;
use crate::{
    BufferPool, Capabilities, Completion, Direction, Engine, EngineConfig, EngineError, IoRequest,
};
use std::io;
use std::os::unix::fs::FileExt;

/// The completions of an engine that does each I/O inside `queue`
/// (`sync`, `pvsync`, `pvsync2`, `falloc`, `ftruncate`), handed out by `reap`.
pub(crate) struct DoneList(Vec<Completion>);

impl DoneList {
    pub(crate) fn new(depth: u32) -> DoneList {
        DoneList(Vec::with_capacity(depth as usize))
    }

    /// One I/O's outcome: its bytes, or the negated errno.
    #[inline]
    pub(crate) fn push(&mut self, slot: u32, res: io::Result<u64>) {
        let result = match res {
            Ok(n) => n as i64,
            Err(e) => -i64::from(e.raw_os_error().unwrap_or(libc::EIO)),
        };
        self.0.push(Completion { slot, result });
    }

    pub(crate) fn pop(&mut self) -> Option<Completion> {
        self.0.pop()
    }

    pub(crate) fn reap(&mut self, out: &mut Vec<Completion>) -> usize {
        let n = self.0.len();
        out.append(&mut self.0);
        n
    }
}

pub struct SyncEngine {
    cfg: EngineConfig,
    buffers: BufferPool,
    done: DoneList,
}

impl SyncEngine {
    pub fn new(cfg: &EngineConfig) -> Result<SyncEngine, EngineError> {
        Ok(SyncEngine {
            cfg: cfg.clone(),
            buffers: cfg.buffers(cfg.depth as usize, cfg.align)?,
            done: DoneList::new(cfg.depth),
        })
    }
}

impl Engine for SyncEngine {
    owned_buffers_engine!("psync", Capabilities::io(false));
    #[inline]
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        // The same checks as the asynchronous engines: slot, length, file.
        let ptr = checked_buffer(&self.cfg, &mut self.buffers, &req)?;
        // SAFETY: `checked_buffer` checked that `req.len` bytes from `ptr` lie
        // inside this slot's buffer, which `self.buffers` owns; the slot is
        // lent (no other reference to it can be made) until the call below
        // returns and it is given back.
        let buf = unsafe { std::slice::from_raw_parts_mut(ptr, req.len as usize) };
        let file = &self.cfg.files[req.file as usize];
        let res = match req.dir {
            Direction::Read => file.read_at(buf, req.offset),
            Direction::Write => file.write_at(buf, req.offset),
        };
        self.buffers.give_back(req.slot);
        self.done.push(req.slot, res.map(|n| n as u64));
        Ok(())
    }
    completes_in_queue!();
}
