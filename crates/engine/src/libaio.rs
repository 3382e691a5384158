//! `libaio`: Linux native AIO (`io_submit`/`io_getevents`), called through
//! raw syscalls so no libaio library is needed at build or run time.
//!
//! It exists for containers whose seccomp profile blocks io_uring but still
//! allows AIO (Docker's default profile did so for years): there it is the
//! only way to keep many direct I/Os in flight from one thread. Without
//! O_DIRECT the kernel does the I/O inside `io_submit`, as fio's libaio does.

use crate::open::{checked_buffer, sync_fd};
use crate::{
    BufferPool, Capabilities, Completion, Direction, Engine, EngineConfig, EngineError, IoRequest,
};
use std::io;
use std::os::unix::io::AsRawFd;

const IOCB_CMD_PREAD: u16 = 0;
const IOCB_CMD_PWRITE: u16 = 1;
/// `aio_flags` bit: `aio_reqprio` holds the I/O's ioprio (`<linux/aio_abi.h>`).
const IOCB_FLAG_IOPRIO: u32 = 1 << 1;

/// `struct iocb` of `<linux/aio_abi.h>`: 64 bytes, the same on every 64- and
/// 32-bit ABI; only `aio_key` and `aio_rw_flags` swap places by byte order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Iocb {
    aio_data: u64,
    #[cfg(target_endian = "little")]
    aio_key: u32,
    aio_rw_flags: i32,
    #[cfg(target_endian = "big")]
    aio_key: u32,
    aio_lio_opcode: u16,
    aio_reqprio: i16,
    aio_fildes: u32,
    aio_buf: u64,
    aio_nbytes: u64,
    aio_offset: i64,
    aio_reserved2: u64,
    aio_flags: u32,
    aio_resfd: u32,
}

/// `struct io_event` of `<linux/aio_abi.h>`: 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct IoEvent {
    data: u64,
    obj: u64,
    res: i64,
    res2: i64,
}

const _: () = assert!(std::mem::size_of::<Iocb>() == 64);
const _: () = assert!(std::mem::size_of::<IoEvent>() == 32);

fn last_errno() -> io::Error {
    io::Error::last_os_error()
}

/// An AIO context (`aio_context_t`), destroyed on drop.
struct AioContext(libc::c_ulong);

impl AioContext {
    fn new(nr_events: u32) -> io::Result<AioContext> {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes one aio_context_t (an unsigned long) to a
        // pointer we own; it must be zero on entry, which it is.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_io_setup,
                nr_events as libc::c_long,
                &mut ctx as *mut libc::c_ulong,
            )
        };
        if ret < 0 {
            return Err(last_errno());
        }
        Ok(AioContext(ctx))
    }

    /// Starts the I/Os described by `iocbs`; returns how many the kernel took
    /// (from the front). An error means the first one was not taken.
    ///
    /// # Safety
    ///
    /// Every pointer must point to a valid `Iocb` (the kernel copies them
    /// during the call). The memory each one names (`aio_buf`, `aio_nbytes`)
    /// must stay valid and untouched by Rust until its completion is read
    /// with [`AioContext::get_events`] or the context is destroyed.
    unsafe fn submit(&self, iocbs: &mut [*mut Iocb]) -> io::Result<usize> {
        // SAFETY: the caller vouches for the iocbs; the array itself is a live slice.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_io_submit,
                self.0,
                iocbs.len() as libc::c_long,
                iocbs.as_mut_ptr(),
            )
        };
        if ret < 0 {
            return Err(last_errno());
        }
        Ok(ret as usize)
    }

    /// Waits for at least `min` completions and stores up to `events.len()`.
    fn get_events(&self, min: usize, events: &mut [IoEvent]) -> io::Result<usize> {
        // SAFETY: the kernel writes at most `events.len()` io_events into a
        // slice we borrow mutably; a NULL timeout means wait for `min`.
        let ret = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.0,
                min.min(events.len()) as libc::c_long,
                events.len() as libc::c_long,
                events.as_mut_ptr(),
                std::ptr::null_mut::<libc::timespec>(),
            )
        };
        if ret < 0 {
            return Err(last_errno());
        }
        Ok(ret as usize)
    }
}

impl Drop for AioContext {
    fn drop(&mut self) {
        // SAFETY: the context was created by io_setup and is destroyed once.
        // io_destroy cancels what it can and blocks until every I/O is done.
        unsafe { libc::syscall(libc::SYS_io_destroy, self.0) };
    }
}

/// One `Iocb` per slot plus the queue of those waiting for `io_submit`.
/// The pointers all come from `Vec::as_mut_ptr` of a Vec that never grows,
/// so they stay valid and never alias a reference to the Vec's contents.
struct IocbTable {
    iocbs: Vec<Iocb>,
    pending: Vec<*mut Iocb>,
}

// SAFETY: the raw pointers point into `iocbs`, which the table owns; moving
// the table to another thread moves their target with it.
unsafe impl Send for IocbTable {}

impl IocbTable {
    fn new(slots: usize) -> IocbTable {
        IocbTable {
            iocbs: vec![Iocb::default(); slots],
            pending: Vec::with_capacity(slots),
        }
    }

    /// Writes the iocb of `iocb.aio_data` (its slot) and queues it.
    fn push(&mut self, iocb: Iocb) {
        let slot = iocb.aio_data as usize;
        assert!(slot < self.iocbs.len(), "iocb slot out of range");
        // SAFETY: slot < len, so the pointer is inside the Vec's buffer; no
        // reference to that element exists (the table hands out none).
        let ptr = unsafe { self.iocbs.as_mut_ptr().add(slot) };
        // SAFETY: as above; the kernel only reads iocbs during io_submit.
        unsafe { ptr.write(iocb) };
        self.pending.push(ptr);
    }

    /// Slot of the `i`-th pending iocb.
    fn pending_slot(&self, i: usize) -> u32 {
        // SAFETY: pending pointers point to initialised iocbs in `self.iocbs`.
        unsafe { (*self.pending[i]).aio_data as u32 }
    }
}

pub struct LibaioEngine {
    // Declared first so it is dropped (io_destroy waits for all I/O) before
    // the buffers that the kernel may still be using.
    ctx: AioContext,
    table: IocbTable,
    cfg: EngineConfig,
    buffers: BufferPool,
    events: Vec<IoEvent>,
    /// Completions known without the kernel (I/Os that io_submit refused).
    done: Vec<Completion>,
    /// I/Os the kernel accepted whose events have not been read.
    in_flight: usize,
}

impl LibaioEngine {
    pub fn new(cfg: &EngineConfig) -> Result<LibaioEngine, EngineError> {
        let depth = cfg.depth.max(1);
        let ctx = AioContext::new(depth).map_err(|source| EngineError::Setup {
            engine: "libaio",
            source,
        })?;
        Ok(LibaioEngine {
            ctx,
            table: IocbTable::new(depth as usize),
            cfg: cfg.clone(),
            buffers: cfg.buffers(depth as usize, cfg.align)?,
            events: vec![IoEvent::default(); depth as usize],
            done: Vec::with_capacity(depth as usize),
            in_flight: 0,
        })
    }

    fn aio_error(op: &'static str, source: io::Error) -> EngineError {
        EngineError::Engine {
            engine: "libaio",
            op,
            source,
        }
    }

    /// Reads available events (waiting for `min`) into `out`; retries on EINTR.
    fn read_events(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        let n = loop {
            match self
                .ctx
                .get_events(min.min(self.in_flight), &mut self.events)
            {
                Ok(n) => break n,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(Self::aio_error("io_getevents", e)),
            }
        };
        out.extend(self.events[..n].iter().map(|ev| Completion {
            slot: ev.data as u32,
            result: ev.res,
        }));
        self.in_flight -= n.min(self.in_flight);
        Ok(n)
    }
}

impl Engine for LibaioEngine {
    owned_buffers_engine!("libaio", Capabilities::io(true));
    #[inline]
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        let buf = checked_buffer(&self.cfg, &mut self.buffers, &req)?;
        if self.table.pending.len() >= self.table.iocbs.len() {
            self.submit()?;
        }
        self.table.push(Iocb {
            aio_data: req.slot as u64,
            aio_lio_opcode: match req.dir {
                Direction::Read => IOCB_CMD_PREAD,
                Direction::Write => IOCB_CMD_PWRITE,
            },
            aio_fildes: self.cfg.files[req.file as usize].as_raw_fd() as u32,
            aio_buf: buf as u64,
            aio_nbytes: req.len as u64,
            aio_offset: req.offset as i64,
            aio_rw_flags: match req.dir {
                Direction::Write if self.cfg.uring.atomic() => libc::RWF_ATOMIC,
                _ => 0,
            },
            // The I/O's own priority, which the kernel takes only with the flag.
            aio_reqprio: req.prio as i16,
            aio_flags: if req.prio != 0 { IOCB_FLAG_IOPRIO } else { 0 },
            ..Iocb::default()
        });
        Ok(())
    }
    fn submit(&mut self) -> Result<usize, EngineError> {
        let mut total = 0;
        while !self.table.pending.is_empty() {
            // SAFETY: pending pointers point into `self.table`; each names `len`
            // bytes of its slot's buffer (checked in `queue`), owned by
            // `self.buffers`, which outlives the context (field order; io_destroy
            // waits for all I/O). The caller leaves the slot alone until reaped.
            let errno = match unsafe { self.ctx.submit(&mut self.table.pending) } {
                Ok(n) if n > 0 => {
                    self.table.pending.drain(..n);
                    self.in_flight += n;
                    total += n;
                    continue;
                }
                Ok(_) => libc::EAGAIN,
                Err(e) => e.raw_os_error().unwrap_or(libc::EIO),
            };
            if errno == libc::EINTR {
                continue;
            }
            if errno == libc::EAGAIN && self.in_flight > 0 {
                // Out of resources: let some I/Os finish, then retry.
                let mut done = std::mem::take(&mut self.done);
                let reaped = self.read_events(1, &mut done);
                self.done = done;
                reaped?;
                continue;
            }
            // The context is valid, so the first iocb was refused on its own
            // (EBADF for a write to a read-only file, EINVAL for misaligned
            // O_DIRECT, ...): report it as that I/O's result.
            self.done.push(Completion {
                slot: self.table.pending_slot(0),
                result: -(errno as i64),
            });
            self.table.pending.remove(0);
            total += 1;
        }
        Ok(total)
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        if !self.table.pending.is_empty() {
            self.submit()?;
        }
        let start = out.len();
        out.append(&mut self.done);
        let mut want = min.saturating_sub(out.len() - start);
        while self.in_flight > 0 {
            let n = self.read_events(want, out)?;
            want = want.saturating_sub(n);
            if want == 0 && n < self.events.len() {
                break; // the ring is drained
            }
        }
        for c in &out[start..] {
            self.buffers.give_back(c.slot);
        }
        Ok(out.len() - start)
    }
    fn sync_file(&mut self, file: u32, data_only: bool) -> Result<(), EngineError> {
        sync_fd(&self.cfg, file, data_only)
    }
    fn trim_file(&mut self, file: u32, offset: u64, len: u64) -> Result<(), EngineError> {
        crate::open::trim_fd(&self.cfg, file, offset, len)
    }
}

impl Drop for LibaioEngine {
    fn drop(&mut self) {
        // io_destroy (AioContext's Drop, which runs before the buffers are
        // freed) already waits for every I/O; reaping first is belt and braces.
        let mut sink = Vec::new();
        while self.in_flight > 0 && self.reap(self.in_flight, &mut sink).is_ok() {
            sink.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// Offsets from `offsetof` on `<linux/aio_abi.h>` (x86_64, linux-libc-dev).
    #[test]
    fn structs_match_the_kernel_abi() {
        assert_eq!(size_of::<Iocb>(), 64);
        assert_eq!(size_of::<IoEvent>(), 32);
        let iocb = [
            (offset_of!(Iocb, aio_data), 0),
            (offset_of!(Iocb, aio_lio_opcode), 16),
            (offset_of!(Iocb, aio_reqprio), 18),
            (offset_of!(Iocb, aio_fildes), 20),
            (offset_of!(Iocb, aio_buf), 24),
            (offset_of!(Iocb, aio_nbytes), 32),
            (offset_of!(Iocb, aio_offset), 40),
            (offset_of!(Iocb, aio_reserved2), 48),
            (offset_of!(Iocb, aio_flags), 56),
            (offset_of!(Iocb, aio_resfd), 60),
        ];
        for (got, want) in iocb {
            assert_eq!(got, want);
        }
        #[cfg(target_endian = "little")]
        assert_eq!(
            (offset_of!(Iocb, aio_key), offset_of!(Iocb, aio_rw_flags)),
            (8, 12)
        );
        let ev = [offset_of!(IoEvent, data), offset_of!(IoEvent, obj)];
        assert_eq!(ev, [0, 8]);
        assert_eq!(
            [offset_of!(IoEvent, res), offset_of!(IoEvent, res2)],
            [16, 24]
        );
    }
}
