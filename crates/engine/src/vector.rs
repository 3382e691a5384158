//! `pvsync` and `pvsync2`: one I/O at a time with preadv/pwritev, and with
//! preadv2/pwritev2 and their per-I/O flags: `hipri` (RWF_HIPRI, polled
//! completion on a device with poll queues) and `uncached` (RWF_DONTCACHE,
//! Linux 6.14+: buffered I/O whose pages leave the page cache once done,
//! where the filesystem has it), and of writes `atomic` (RWF_ATOMIC,
//! Linux 6.11+: untorn writes). fio's engines of the same names; fio's
//! `sync`/`psync` are `crate::sync`.

use crate::open::checked_buffer;
use crate::sync::DoneList;
use crate::{BufferPool, Capabilities, Direction, Engine, EngineConfig, EngineError, IoRequest};
use std::io;
use std::os::fd::AsRawFd;

pub struct VectorEngine {
    cfg: EngineConfig,
    buffers: BufferPool,
    done: DoneList,
    /// `None`: pvsync (preadv/pwritev); `Some(flags)`: pvsync2.
    flags: Option<libc::c_int>,
    /// pvsync2's flags of writes only: RWF_ATOMIC for `atomic`.
    write_flags: libc::c_int,
}

impl VectorEngine {
    /// `pvsync`.
    pub fn new(cfg: &EngineConfig) -> Result<VectorEngine, EngineError> {
        Ok(VectorEngine {
            cfg: cfg.clone(),
            buffers: cfg.buffers(cfg.depth as usize, cfg.align)?,
            done: DoneList::new(cfg.depth),
            flags: None,
            write_flags: 0,
        })
    }

    /// `pvsync2`, with the flags `hipri` and `uncached` ask for. A flag the
    /// kernel or the filesystem does not know is refused here, naming it,
    /// rather than failing every I/O.
    pub fn new_v2(cfg: &EngineConfig) -> Result<VectorEngine, EngineError> {
        let mut flags = 0;
        if cfg.uring.iopoll() {
            flags |= libc::RWF_HIPRI;
        }
        if cfg.uring.uncached.unwrap_or(false) {
            flags |= libc::RWF_DONTCACHE;
        }
        let mut engine = VectorEngine::new(cfg)?;
        engine.flags = Some(flags);
        if cfg.uring.atomic() {
            engine.write_flags = libc::RWF_ATOMIC;
        }
        if flags & libc::RWF_DONTCACHE != 0 {
            engine.probe_dontcache()?;
        }
        Ok(engine)
    }

    /// One read of the first block with RWF_DONTCACHE (harmless: a read,
    /// whose page leaves the cache again): the kernel refuses the flag
    /// (EOPNOTSUPP) before 6.14 or on a filesystem without it (tmpfs). A
    /// read of no bytes is not enough: the filesystem is asked only when
    /// there is something to read.
    fn probe_dontcache(&mut self) -> Result<(), EngineError> {
        if self.cfg.files.is_empty() {
            return Ok(());
        }
        let probe = IoRequest {
            slot: 0,
            file: 0,
            dir: Direction::Read,
            offset: 0,
            len: self.cfg.block_bytes.min(4096) as u32,
            prio: 0,
        };
        self.queue(probe)?;
        let result = self.done.pop().map_or(0, |c| c.result);
        if result != -i64::from(libc::EOPNOTSUPP) {
            return Ok(());
        }
        let why = format!(
            "uncached=1 needs RWF_DONTCACHE (Linux 6.14 or later, on a filesystem that has it: \
             ext4, xfs, btrfs; not tmpfs), and {} refused it: drop uncached, or use direct=1 to \
             keep the page cache out",
            self.cfg.path(0).display()
        );
        Err(EngineError::Setup {
            engine: "pvsync2",
            source: io::Error::new(io::ErrorKind::Unsupported, why),
        })
    }
}

impl Engine for VectorEngine {
    fn name(&self) -> &'static str {
        match self.flags {
            None => "pvsync",
            Some(_) => "pvsync2",
        }
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities::io(false)
    }
    fn pool(&self) -> &BufferPool {
        &self.buffers
    }
    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.buffers
    }
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        let ptr = checked_buffer(&self.cfg, &mut self.buffers, &req)?;
        let iov = libc::iovec {
            iov_base: ptr.cast(),
            iov_len: req.len as usize,
        };
        let fd = self.cfg.files[req.file as usize].as_raw_fd();
        let offset = req.offset as libc::off_t;
        // SAFETY: `checked_buffer` checked that `req.len` bytes from `ptr`
        // lie inside this slot's buffer, which `self.buffers` owns and which
        // stays lent (no other reference) until the call returns; `fd` is
        // owned by the config and open.
        let n = unsafe {
            match (req.dir, self.flags) {
                (Direction::Read, None) => libc::preadv(fd, &iov, 1, offset),
                (Direction::Write, None) => libc::pwritev(fd, &iov, 1, offset),
                (Direction::Read, Some(f)) => libc::preadv2(fd, &iov, 1, offset, f),
                (Direction::Write, Some(f)) => {
                    libc::pwritev2(fd, &iov, 1, offset, f | self.write_flags)
                }
            }
        };
        // Read errno before anything else can change it.
        let res = match n {
            n if n >= 0 => Ok(n as u64),
            _ => Err(io::Error::last_os_error()),
        };
        self.buffers.give_back(req.slot);
        self.done.push(req.slot, res);
        Ok(())
    }
    completes_in_queue!();
}
