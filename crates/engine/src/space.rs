//! `falloc` and `ftruncate`: fio's engines that change how much space a
//! file has instead of moving data, for jobs that measure the filesystem's
//! allocator (fragmentation, extent trees) rather than the disk.
//!
//! As fio documents them: `falloc` reserves each I/O's range with
//! `fallocate` (a read keeps the file's size, `FALLOC_FL_KEEP_SIZE`; a
//! write may grow it, mode 0); `ftruncate` sets the file's length to each
//! write's offset (`blocksize` only moves the offset). Each completes at
//! once with the I/O's length, as fio counts it.

use crate::sync::DoneList;
use crate::{
    sys, BufferPool, Capabilities, Direction, Engine, EngineConfig, EngineError, IoRequest,
};

/// Which of the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpaceOp {
    Falloc,
    Ftruncate,
}

pub struct SpaceEngine {
    cfg: EngineConfig,
    op: SpaceOp,
    buffers: BufferPool,
    done: DoneList,
}

impl SpaceEngine {
    pub fn new(cfg: &EngineConfig, op: SpaceOp) -> Result<SpaceEngine, EngineError> {
        Ok(SpaceEngine {
            cfg: cfg.clone(),
            op,
            // Nothing is transferred; callers still fill a buffer before a write.
            buffers: cfg.buffers(cfg.depth as usize, 64)?,
            done: DoneList::new(cfg.depth),
        })
    }
}

impl Engine for SpaceEngine {
    fn name(&self) -> &'static str {
        match self.op {
            SpaceOp::Falloc => "falloc",
            SpaceOp::Ftruncate => "ftruncate",
        }
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
        // The same checks as the other engines: slot, length, file.
        crate::open::checked_buffer(&self.cfg, &mut self.buffers, &req)?;
        self.buffers.give_back(req.slot);
        let file = &self.cfg.files[req.file as usize];
        let len = u64::from(req.len);
        let res = match (self.op, req.dir) {
            (SpaceOp::Falloc, dir) => sys::fallocate(file, dir == Direction::Read, req.offset, len),
            (SpaceOp::Ftruncate, Direction::Write) => file.set_len(req.offset),
            // The parser allows ftruncate only with writes (fio's engine
            // does nothing else).
            (SpaceOp::Ftruncate, Direction::Read) => {
                Err(std::io::Error::from_raw_os_error(libc::EINVAL))
            }
        };
        self.done.push(req.slot, res.map(|()| u64::from(req.len)));
        Ok(())
    }
    completes_in_queue!();
}
