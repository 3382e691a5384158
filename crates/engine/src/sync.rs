//! `sync` / `psync`: pread and pwrite, one I/O at a time, done inside `queue`.

use crate::open::{checked_buffer, sync_fd};
use crate::{
    BufferPool, Capabilities, Completion, Direction, Engine, EngineConfig, EngineError, IoRequest,
};
use std::os::unix::fs::FileExt;

pub struct SyncEngine {
    cfg: EngineConfig,
    buffers: BufferPool,
    done: Vec<Completion>,
}

impl SyncEngine {
    pub fn new(cfg: &EngineConfig) -> Result<SyncEngine, EngineError> {
        Ok(SyncEngine {
            cfg: cfg.clone(),
            buffers: cfg.buffers(cfg.depth as usize, cfg.align)?,
            done: Vec::with_capacity(cfg.depth as usize),
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
        let result = match res {
            Ok(n) => n as i64,
            Err(e) => -(e.raw_os_error().unwrap_or(libc::EIO) as i64),
        };
        self.done.push(Completion {
            slot: req.slot,
            result,
        });
        Ok(())
    }
    fn submit(&mut self) -> Result<usize, EngineError> {
        Ok(0)
    }
    fn reap(&mut self, _min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        let n = self.done.len();
        out.append(&mut self.done);
        Ok(n)
    }
    fn sync_file(&mut self, file: u32, data_only: bool) -> Result<(), EngineError> {
        sync_fd(&self.cfg, file, data_only)
    }
}
