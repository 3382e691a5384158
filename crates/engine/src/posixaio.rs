//! `posixaio`: POSIX asynchronous I/O (aio_read/aio_write, reaped with
//! aio_error/aio_return and aio_suspend), fio's engine of that name. Each
//! I/O is started in `queue`, as fio's does, and `iodepth` of them are in
//! flight at once.
//!
//! glibc carries POSIX AIO out in user space: helper threads do plain
//! pread/pwrite, and requests on one descriptor wait for each other in
//! glibc's queue. So the depth kept is the depth asked, as diskbench counts
//! it (I/Os started and not yet reaped), while the device sees about one
//! I/O of each file at a time, as under fio.

use crate::open::{checked_buffer, sync_fd};
use crate::{
    BufferPool, Capabilities, Completion, Direction, Engine, EngineConfig, EngineError, IoRequest,
};
use std::io;
use std::os::fd::AsRawFd;

/// One control block per slot, at addresses that never move (the Vec never
/// grows): glibc keeps a pointer to a started block and writes its result
/// into it. Reached only through raw pointers, so no Rust reference aliases
/// a block glibc is writing.
struct Blocks(Vec<libc::aiocb>);

// SAFETY: the blocks are owned by the engine; their raw pointers (aio_buf)
// point into the engine's own buffers, which move with it.
unsafe impl Send for Blocks {}

impl Blocks {
    fn new(slots: usize) -> Blocks {
        // SAFETY: aiocb is plain C data (integers, pointers, a sigevent) for
        // which all zeroes is a valid value.
        Blocks((0..slots).map(|_| unsafe { std::mem::zeroed() }).collect())
    }

    /// The block of `slot` (checked by the caller to be in range).
    fn ptr(&mut self, slot: u32) -> *mut libc::aiocb {
        assert!((slot as usize) < self.0.len(), "aiocb slot out of range");
        // SAFETY: slot < len, so the pointer stays inside the Vec's buffer.
        unsafe { self.0.as_mut_ptr().add(slot as usize) }
    }
}

pub struct PosixAioEngine {
    blocks: Blocks,
    cfg: EngineConfig,
    buffers: BufferPool,
    /// Slots started and not reaped.
    in_flight: Vec<u32>,
    /// Completions known without waiting (I/Os glibc refused to start).
    done: Vec<Completion>,
    /// Blocks to wait on, rebuilt for each aio_suspend.
    waiting: Vec<*const libc::aiocb>,
    /// I/Os started since the last `submit`.
    started: usize,
}

// SAFETY: `waiting` only holds pointers into `blocks` between its filling
// and the aio_suspend call that uses it; the engine owns what they name.
unsafe impl Send for PosixAioEngine {}

impl PosixAioEngine {
    pub fn new(cfg: &EngineConfig) -> Result<PosixAioEngine, EngineError> {
        let depth = cfg.depth.max(1) as usize;
        Ok(PosixAioEngine {
            blocks: Blocks::new(depth),
            cfg: cfg.clone(),
            buffers: cfg.buffers(depth, cfg.align)?,
            in_flight: Vec::with_capacity(depth),
            done: Vec::with_capacity(depth),
            waiting: Vec::with_capacity(depth),
            started: 0,
        })
    }

    /// Moves every finished I/O from `in_flight` to `out`; returns how many.
    fn collect(&mut self, out: &mut Vec<Completion>) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < self.in_flight.len() {
            let slot = self.in_flight[i];
            let cb = self.blocks.ptr(slot);
            // SAFETY: `cb` was started by aio_read/aio_write and not yet
            // returned; aio_error only reads its status.
            let err = unsafe { libc::aio_error(cb) };
            if err == libc::EINPROGRESS {
                i += 1;
                continue;
            }
            // SAFETY: the I/O is over (aio_error said so): aio_return reads
            // its result once and releases the block.
            let ret = unsafe { libc::aio_return(cb) };
            let result = match err {
                0 => ret as i64,
                e if e > 0 => -(e as i64),
                _ => {
                    -(io::Error::last_os_error()
                        .raw_os_error()
                        .unwrap_or(libc::EIO) as i64)
                }
            };
            self.in_flight.swap_remove(i);
            self.buffers.give_back(slot);
            out.push(Completion { slot, result });
            n += 1;
        }
        n
    }

    /// Waits (aio_suspend) until one of the I/Os in flight finishes.
    fn wait(&mut self) -> Result<(), EngineError> {
        self.waiting.clear();
        for i in 0..self.in_flight.len() {
            let cb = self.blocks.ptr(self.in_flight[i]);
            self.waiting.push(cb.cast_const());
        }
        // SAFETY: every pointer names a started block owned by `self.blocks`,
        // alive for the call; a null timeout waits without limit.
        let ret = unsafe {
            libc::aio_suspend(
                self.waiting.as_ptr(),
                self.waiting.len() as libc::c_int,
                std::ptr::null(),
            )
        };
        self.waiting.clear();
        if ret == 0 {
            return Ok(());
        }
        match io::Error::last_os_error() {
            e if matches!(e.raw_os_error(), Some(libc::EINTR | libc::EAGAIN)) => Ok(()),
            source => Err(EngineError::Engine {
                engine: "posixaio",
                op: "aio_suspend",
                source,
            }),
        }
    }
}

impl Engine for PosixAioEngine {
    owned_buffers_engine!("posixaio", Capabilities::io(true));
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        let buf = checked_buffer(&self.cfg, &mut self.buffers, &req)?;
        let cb = self.blocks.ptr(req.slot);
        // SAFETY: zeroes are a valid aiocb; the slot is not in flight
        // (`checked_buffer` refuses a lent slot), so glibc holds no pointer
        // to this block.
        let mut block: libc::aiocb = unsafe { std::mem::zeroed() };
        block.aio_fildes = self.cfg.files[req.file as usize].as_raw_fd();
        block.aio_buf = buf.cast();
        block.aio_nbytes = req.len as usize;
        block.aio_offset = req.offset as libc::off_t;
        block.aio_sigevent.sigev_notify = libc::SIGEV_NONE;
        loop {
            // SAFETY: as above, the block is ours to write; then it names
            // `req.len` bytes of the slot's buffer (checked in `queue`), lent
            // until reaped, and `Drop` waits for every I/O before the buffers
            // and blocks are freed.
            let ret = unsafe {
                cb.write(block);
                match req.dir {
                    Direction::Read => libc::aio_read(cb),
                    Direction::Write => libc::aio_write(cb),
                }
            };
            if ret == 0 {
                self.in_flight.push(req.slot);
                self.started += 1;
                return Ok(());
            }
            let errno = io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO);
            if errno == libc::EAGAIN && !self.in_flight.is_empty() {
                // Out of resources: let one finish, then try again.
                self.wait()?;
                let mut done = std::mem::take(&mut self.done);
                self.collect(&mut done);
                self.done = done;
                continue;
            }
            self.done.push(Completion {
                slot: req.slot,
                result: -(errno as i64),
            });
            return Ok(());
        }
    }
    fn submit(&mut self) -> Result<usize, EngineError> {
        Ok(std::mem::take(&mut self.started))
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        let start = out.len();
        for c in &self.done {
            self.buffers.give_back(c.slot);
        }
        out.append(&mut self.done);
        loop {
            self.collect(out);
            let got = out.len() - start;
            if got >= min || self.in_flight.is_empty() {
                return Ok(got);
            }
            self.wait()?;
        }
    }
    fn sync_file(&mut self, file: u32, data_only: bool) -> Result<(), EngineError> {
        sync_fd(&self.cfg, file, data_only)
    }
    fn trim_file(&mut self, file: u32, offset: u64, len: u64) -> Result<(), EngineError> {
        crate::open::trim_fd(&self.cfg, file, offset, len)
    }
}

impl Drop for PosixAioEngine {
    /// glibc's threads may still be writing the buffers and blocks: cancel
    /// what has not started and wait for the rest before they are freed.
    fn drop(&mut self) {
        for i in 0..self.in_flight.len() {
            let cb = self.blocks.ptr(self.in_flight[i]);
            // SAFETY: a started block of ours and its descriptor; aio_cancel
            // only marks it, and its end is still waited for below.
            unsafe { libc::aio_cancel((*cb).aio_fildes, cb) };
        }
        let mut sink = Vec::new();
        while !self.in_flight.is_empty() {
            self.collect(&mut sink);
            if !self.in_flight.is_empty() && self.wait().is_err() {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    }
}
