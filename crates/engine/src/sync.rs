//! `sync` / `psync`: pread and pwrite, one I/O at a time, done inside `queue`.

use crate::open::sync_fd;
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
    pub fn new(cfg: &EngineConfig) -> SyncEngine {
        SyncEngine {
            cfg: cfg.clone(),
            buffers: BufferPool::new(cfg.depth as usize, cfg.block_bytes, cfg.align),
            done: Vec::with_capacity(cfg.depth as usize),
        }
    }
}

impl Engine for SyncEngine {
    fn name(&self) -> &'static str {
        "psync"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            asynchronous: false,
            does_io: true,
            registered_buffers: false,
            registered_files: false,
        }
    }
    fn buffer(&mut self, slot: u32) -> &mut [u8] {
        self.buffers.slot(slot)
    }
    #[inline]
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        let file = &self.cfg.files[req.file as usize];
        let buf = &mut self.buffers.slot(req.slot)[..req.len as usize];
        let res = match req.dir {
            Direction::Read => file.read_at(buf, req.offset),
            Direction::Write => file.write_at(buf, req.offset),
        };
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
