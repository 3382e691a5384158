//! `io_uring`: the fast engine. One ring per engine instance (so one per
//! worker thread), I/Os queued as SQEs and handed to the kernel in one
//! `io_uring_enter` per batch, completions read straight from the shared CQ
//! without a syscall when they are already there. Buffers and files are
//! registered with the ring when the kernel allows it, which saves a page
//! pin and an fd lookup per I/O; when it does not, plain `Read`/`Write` on
//! raw descriptors do the same job a little slower.
//!
//! The ring is set up as fio sets up its own: `COOP_TASKRUN` (no
//! interrupt to the worker for each completion), `SINGLE_ISSUER` and
//! `DEFER_TASKRUN` (completion work runs when the worker asks for events,
//! not whenever the kernel likes), and every submit also asks for events, so
//! completions that are ready show up without another syscall. Without
//! these, a worker on a fast device spent a quarter of its time in task work
//! and inter-processor interrupts and got 185 k IOPS where fio got 235 k (a
//! loop device in /dev/shm, 4 KiB randread, QD32). The ring is made disabled
//! and enabled by the first I/O, because `SINGLE_ISSUER` binds it to the
//! thread that enables it: the engine is built on the runner's thread and
//! used on the worker's. Older kernels refuse these flags; the ring is then
//! made without them, as fio does.
//!
//! When the kernel or a seccomp profile refuses `io_uring_setup`, `new`
//! returns [`EngineError::Setup`] and `open_with_fallback` tries libaio.

use crate::open::{checked_buffer, sync_fd};
use crate::uring_setup as setup;
use crate::{
    BufferPool, Capabilities, Completion, Direction, Engine, EngineConfig, EngineError, IoRequest,
};
use io_uring::{opcode, squeue, types, IoUring};
use std::io;
use std::os::unix::io::AsRawFd;

/// The kernel refuses rings larger than this (`IORING_MAX_ENTRIES`).
const MAX_ENTRIES: u32 = 32768;

/// `io_uring_enter`'s flag that also runs completion work and fills the CQ
/// (the kernel's ABI value; the io-uring crate keeps its constant private).
const ENTER_GETEVENTS: u32 = 1;

pub struct UringEngine {
    // Declared first so it is dropped before `buffers`; `Drop` has already
    // waited for every I/O in flight by then.
    ring: IoUring,
    cfg: EngineConfig,
    buffers: BufferPool,
    fixed_buffers: bool,
    fixed_files: bool,
    /// SQEs pushed but not yet handed to the kernel.
    queued: usize,
    /// I/Os queued or submitted whose completion has not been reaped.
    in_flight: usize,
    /// False until the first I/O enables the ring on the thread that uses it.
    enabled: bool,
    /// A kernel thread submits (`sqthread_poll`): enter only to wake it.
    sqpoll: bool,
    /// The flags of each write: RWF_ATOMIC for `atomic`.
    write_flags: i32,
}

impl UringEngine {
    pub fn new(cfg: &EngineConfig) -> Result<UringEngine, EngineError> {
        UringEngine::build(cfg, true)
    }

    /// `register: false` skips buffer and file registration, as a kernel
    /// that refuses them would; the tests use it to cover that path.
    fn build(cfg: &EngineConfig, register: bool) -> Result<UringEngine, EngineError> {
        let depth = cfg.depth.max(1);
        let entries = depth.min(MAX_ENTRIES).next_power_of_two();
        let opts = &cfg.uring;
        let (ring, enabled) = setup::new_ring(entries, opts).map_err(|source| {
            match setup::asked(opts) {
                // Falling back to another engine would drop what was asked.
                Some(asked) => Self::ring_error(
                    "io_uring_setup",
                    io::Error::new(
                        source.kind(),
                        format!(
                            "{source} (the ring was asked for {asked}: a kernel or CPU that \
                             refuses it cannot run this job; drop the option)"
                        ),
                    ),
                ),
                None => EngineError::Setup {
                    engine: "io_uring",
                    source,
                },
            }
        })?;
        let mut buffers = cfg.buffers(depth as usize, cfg.align)?;
        let fixed_buffers =
            setup::registered(register && opts.fixed_buffers(), opts.fixedbufs, || {
                setup::register_buffers(&ring, &mut buffers)
            })
            .map_err(|e| Self::ring_error("io_uring_register (fixedbufs=1)", e))?;
        let fixed_files = setup::registered(
            register && opts.register_files(),
            opts.registerfiles,
            || setup::register_files(&ring, cfg),
        )
        .map_err(|e| Self::ring_error("io_uring_register (registerfiles=1)", e))?;
        Ok(UringEngine {
            sqpoll: opts.sqpoll(),
            write_flags: match opts.atomic() {
                true => libc::RWF_ATOMIC,
                false => 0,
            },
            ring,
            cfg: cfg.clone(),
            buffers,
            fixed_buffers,
            fixed_files,
            queued: 0,
            in_flight: 0,
            enabled,
        })
    }

    /// Enables a ring made disabled, binding it to the calling thread.
    fn enable(&mut self) -> Result<(), EngineError> {
        self.ring
            .submitter()
            .register_enable_rings()
            .map_err(|e| Self::ring_error("io_uring_register (enable)", e))?;
        self.enabled = true;
        Ok(())
    }

    /// Builds the SQE for `req`, whose buffer starts at `buf`.
    fn entry(&self, req: &IoRequest, buf: *mut u8) -> squeue::Entry {
        // One macro instead of a generic function: the fd parameter of the
        // opcodes is bounded by a trait the io-uring crate keeps private.
        macro_rules! rw {
            ($fd:expr) => {
                match (req.dir, self.fixed_buffers) {
                    (Direction::Read, true) => {
                        opcode::ReadFixed::new($fd, buf, req.len, req.slot as u16)
                            .offset(req.offset)
                            .ioprio(req.prio)
                            .build()
                    }
                    (Direction::Write, true) => {
                        opcode::WriteFixed::new($fd, buf, req.len, req.slot as u16)
                            .offset(req.offset)
                            .rw_flags(self.write_flags)
                            .ioprio(req.prio)
                            .build()
                    }
                    (Direction::Read, false) => opcode::Read::new($fd, buf, req.len)
                        .offset(req.offset)
                        .ioprio(req.prio)
                        .build(),
                    (Direction::Write, false) => opcode::Write::new($fd, buf, req.len)
                        .offset(req.offset)
                        .rw_flags(self.write_flags)
                        .ioprio(req.prio)
                        .build(),
                }
            };
        }
        let entry = if self.fixed_files {
            rw!(types::Fixed(req.file))
        } else {
            rw!(types::Fd(self.cfg.files[req.file as usize].as_raw_fd()))
        };
        entry.user_data(req.slot as u64)
    }

    fn ring_error(op: &'static str, source: io::Error) -> EngineError {
        EngineError::Engine {
            engine: "io_uring",
            op,
            source,
        }
    }

    /// Waits in the kernel until the CQ holds `want` completions, submitting
    /// whatever is queued on the way. A signal can cut the wait short (EINTR,
    /// or a plain return after submitting), so it goes round until they are there.
    fn enter_and_wait(&mut self, want: usize) -> Result<(), EngineError> {
        // A poll (want 0) with nothing posted still enters once: with
        // DEFER_TASKRUN, finished I/Os reach the CQ only when asked for.
        // A polled ring (hipri) needs the same enter to poll the device. With
        // SQPOLL the kernel thread does both, and completions are posted
        // without being asked for.
        if want == 0 && self.in_flight > 0 && !self.sqpoll && self.ring.completion().is_empty() {
            // SAFETY: no SQE is submitted (to_submit 0) and no argument is
            // passed; GETEVENTS with min_complete 0 only posts what is done.
            let entered = unsafe {
                self.ring
                    .submitter()
                    .enter::<libc::sigset_t>(0, 0, ENTER_GETEVENTS, None)
            };
            match entered {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(Self::ring_error("io_uring_enter (poll)", e)),
            }
        }
        while self.ring.completion().len() < want {
            // The io-uring crate's wait also wakes an SQPOLL thread that sleeps.
            match self.ring.submit_and_wait(want) {
                Ok(_) if self.sqpoll => self.queued = 0,
                Ok(n) => self.queued -= n.min(self.queued),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(Self::ring_error("io_uring_enter (wait)", e)),
            }
        }
        Ok(())
    }
}

impl Engine for UringEngine {
    fn name(&self) -> &'static str {
        "io_uring"
    }
    fn capabilities(&self) -> Capabilities {
        Capabilities {
            asynchronous: true,
            does_io: true,
            registered_buffers: self.fixed_buffers,
            registered_files: self.fixed_files,
        }
    }
    fn pool(&self) -> &BufferPool {
        &self.buffers
    }
    fn pool_mut(&mut self) -> &mut BufferPool {
        &mut self.buffers
    }
    #[inline]
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        if !self.enabled {
            self.enable()?;
        }
        let buf = checked_buffer(&self.cfg, &mut self.buffers, &req)?;
        let entry = self.entry(&req, buf);
        loop {
            // SAFETY: the entry points at `req.len` bytes of this slot's buffer
            // (checked above) and at a file of `cfg`, which the engine keeps
            // open; both outlive the I/O because `Drop` waits for every
            // completion before the buffers are freed. The caller promises not
            // to touch the slot until its completion is reaped.
            let pushed = unsafe { self.ring.submission().push(&entry) };
            if pushed.is_ok() {
                break;
            }
            // The SQ is full: hand it to the kernel and try again. A polling
            // thread takes SQEs in its own time: wait until it has room.
            if self.sqpoll {
                self.submit()?;
                match self.ring.submitter().squeue_wait() {
                    Err(e) if e.raw_os_error() != Some(libc::EINTR) => {
                        return Err(Self::ring_error("io_uring_enter (sq wait)", e))
                    }
                    _ => continue,
                }
            }
            if self.submit()? == 0 {
                return Err(Self::ring_error(
                    "io_uring_enter (submit)",
                    io::Error::from_raw_os_error(libc::EBUSY),
                ));
            }
        }
        self.queued += 1;
        self.in_flight += 1;
        Ok(())
    }
    #[inline]
    fn submit(&mut self) -> Result<usize, EngineError> {
        if self.sqpoll {
            // The kernel thread takes the SQEs; the crate enters only when
            // the SQ ring's NEED_WAKEUP flag says the thread sleeps.
            let queued = std::mem::take(&mut self.queued);
            return match self.ring.submit() {
                Ok(_) => Ok(queued),
                Err(e) => {
                    self.queued = queued;
                    Err(Self::ring_error("io_uring_enter (wake sqpoll)", e))
                }
            };
        }
        let mut total = 0;
        // Normally one syscall. The kernel stops a batch early only after an
        // SQE that failed to start; that SQE is consumed (its error comes back
        // as a CQE), so going round again submits the rest.
        while self.queued > 0 {
            // SAFETY: a plain submit of the SQEs already pushed (each checked in
            // `queue`), with no argument; GETEVENTS only makes the kernel run
            // completion work and post CQEs, which `reap` reads.
            let entered = unsafe {
                self.ring.submitter().enter::<libc::sigset_t>(
                    self.queued as u32,
                    0,
                    ENTER_GETEVENTS,
                    None,
                )
            };
            match entered {
                Ok(0) => break,
                Ok(n) => {
                    self.queued -= n.min(self.queued);
                    total += n;
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => return Err(Self::ring_error("io_uring_enter (submit)", e)),
            }
        }
        Ok(total)
    }
    #[inline]
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        // Only enter the kernel when the CQ does not already hold enough.
        self.enter_and_wait(min.min(self.in_flight))?;
        let start = out.len();
        out.extend(self.ring.completion().map(|cqe| Completion {
            slot: cqe.user_data() as u32,
            result: cqe.result() as i64,
        }));
        for c in &out[start..] {
            self.buffers.give_back(c.slot);
        }
        let n = out.len() - start;
        self.in_flight -= n.min(self.in_flight);
        Ok(n)
    }
    fn sync_file(&mut self, file: u32, data_only: bool) -> Result<(), EngineError> {
        sync_fd(&self.cfg, file, data_only)
    }
    fn trim_file(&mut self, file: u32, offset: u64, len: u64) -> Result<(), EngineError> {
        crate::open::trim_fd(&self.cfg, file, offset, len)
    }
}

impl Drop for UringEngine {
    /// Waits for every I/O still in flight, so the kernel never writes into
    /// buffers that have been freed (closing a ring does not wait for them).
    /// Then gives the registered files back: the kernel tears a closed ring
    /// down later, in a worker of its own, and until then its references
    /// keep an unlinked test file's blocks allocated and its filesystem
    /// busy (a 1 GiB file on a 2 GiB filesystem was still counted seconds
    /// after diskbench exited, and `umount` said busy). Unregistering drops
    /// them now, so the space is free when the run ends, as with fio.
    fn drop(&mut self) {
        let mut sink = Vec::with_capacity(self.in_flight);
        while self.in_flight > 0 {
            sink.clear();
            if self.reap(self.in_flight, &mut sink).is_err() {
                // The ring is broken and the kernel may still own some buffers:
                // leak them rather than free memory that may yet be written.
                let pool = std::mem::replace(&mut self.buffers, BufferPool::new(1, 1, 64));
                std::mem::forget(pool);
                return;
            }
        }
        if self.fixed_files {
            // Nothing is in flight; a refusal leaves the old, slower release.
            let _ = self.ring.submitter().unregister_files();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// The plain Read/Write-on-raw-fd path, which the integration tests only
    /// reach on kernels that refuse registration.
    #[test]
    fn unregistered_round_trip() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("data");
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .expect("create");
        let cfg = EngineConfig {
            files: Arc::from(vec![file]),
            paths: Arc::from(vec![path]),
            depth: 4,
            block_bytes: 4096,
            align: 4096,
            iomem: Default::default(),
            uring: Default::default(),
            advice: None,
        };
        let mut e = match UringEngine::build(&cfg, false) {
            Ok(e) => e,
            Err(e) if e.is_refusal() => return testbed::skip(e),
            Err(e) => panic!("{e}"),
        };
        let caps = e.capabilities();
        assert!(!caps.registered_buffers && !caps.registered_files);
        let io = |slot, dir| IoRequest {
            slot,
            file: 0,
            dir,
            offset: 8192,
            len: 4096,
            prio: 0,
        };
        let written = e.buffer(1).unwrap().to_vec();
        let mut out = Vec::new();
        e.queue(io(1, Direction::Write)).expect("queue");
        e.submit().expect("submit");
        e.reap(1, &mut out).expect("reap");
        e.queue(io(3, Direction::Read)).expect("queue");
        e.submit().expect("submit");
        e.reap(1, &mut out).expect("reap");
        let done = [(1, 4096), (3, 4096)].map(|(slot, result)| Completion { slot, result });
        assert_eq!(out, done);
        assert_eq!(e.buffer(3).unwrap()[..4096], written[..4096]);
    }
}
