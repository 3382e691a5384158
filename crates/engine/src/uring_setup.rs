//! Making an io_uring ring as the job asks: fio's setup flags, the
//! io_uring options (`sqthread_poll`, `sqthread_poll_cpu`, `hipri`), and
//! the registrations (`fixedbufs`, `registerfiles`).
//!
//! diskbench registers buffers and files by default, where fio does only
//! when asked: it saves a page pin and an fd lookup per I/O. `fixedbufs=0`
//! and `registerfiles=0` turn that off, so a job can match fio's default.
//! When the kernel refuses a registration that was not asked for, the
//! engine quietly does without it; one that was asked for is an error.
//!
//! The setup flags follow fio's: `COOP_TASKRUN`, `SINGLE_ISSUER` and
//! `DEFER_TASKRUN`, each dropped in turn on a kernel that refuses it
//! (EINVAL), and `R_DISABLED` so the ring binds to the worker's thread
//! (see `uring`). A polling submission thread (`SQPOLL`) does the kernel's
//! side of submitting itself, so the flags about interrupting the submitter
//! do not apply and the kernel refuses `COOP_TASKRUN` and `DEFER_TASKRUN`
//! with it: such a ring has neither. What the job asked for (`SQPOLL`,
//! `IOPOLL`) is never dropped: a kernel that refuses it fails the job.

use crate::{BufferPool, EngineConfig};
use io_uring::{Builder, IoUring};
use model::UringOptions;
use std::io;
use std::os::unix::io::{AsRawFd, RawFd};

/// The flags of the `level`-th try: 0 has all of fio's, 3 none.
fn builder(level: usize, opts: &UringOptions) -> Builder {
    let mut b = IoUring::builder();
    let sqpoll = opts.sqpoll();
    if level < 3 {
        b.setup_r_disabled();
    }
    if level < 2 && !sqpoll {
        b.setup_coop_taskrun();
    }
    if level < 1 {
        b.setup_single_issuer();
        if !sqpoll {
            b.setup_defer_taskrun();
        }
    }
    if sqpoll {
        // Idle 0: the kernel's default before the thread sleeps (1 s).
        b.setup_sqpoll(0);
        if let Some(cpu) = opts.sqthread_poll_cpu {
            b.setup_sqpoll_cpu(cpu);
        }
    }
    if opts.iopoll() {
        b.setup_iopoll();
    }
    b
}

/// What the job asked of the ring itself, for errors: "sqthread_poll, hipri".
pub(crate) fn asked(opts: &UringOptions) -> Option<String> {
    let mut parts = Vec::new();
    if opts.sqpoll() {
        parts.push("sqthread_poll".to_string());
    }
    if let Some(cpu) = opts.sqthread_poll_cpu {
        parts.push(format!("sqthread_poll_cpu={cpu}"));
    }
    if opts.iopoll() {
        parts.push("hipri".to_string());
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A ring with fio's setup flags, disabled until first use, and the job's
/// own flags. Returns the ring and whether it is already enabled.
pub(crate) fn new_ring(entries: u32, opts: &UringOptions) -> io::Result<(IoUring, bool)> {
    let mut last = None;
    for level in 0..4 {
        match builder(level, opts).build(entries) {
            Ok(ring) => return Ok((ring, level == 3)),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::from_raw_os_error(libc::EINVAL)))
}

/// Registers one iovec per slot.
pub(crate) fn register_buffers(ring: &IoUring, buffers: &mut BufferPool) -> io::Result<()> {
    if buffers.slots() > u16::MAX as usize {
        // buf_index is 16 bits.
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{} buffers: a ring registers at most {}",
                buffers.slots(),
                u16::MAX
            ),
        ));
    }
    let iovecs: Vec<libc::iovec> = (0..buffers.slots() as u32)
        .map(|slot| libc::iovec {
            iov_base: buffers.slot_ptr(slot).cast(),
            iov_len: buffers.slot_bytes(),
        })
        .collect();
    // SAFETY: every iovec covers one slot of `buffers`, an allocation that the
    // engine owns and frees only after the ring (field order of UringEngine),
    // so the registered memory stays valid as long as the registration.
    unsafe { ring.submitter().register_buffers(&iovecs) }
}

/// Registers the job's files; an error when there are none to register.
pub(crate) fn register_files(ring: &IoUring, cfg: &EngineConfig) -> io::Result<()> {
    let fds: Vec<RawFd> = cfg.files.iter().map(|f| f.as_raw_fd()).collect();
    if fds.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no files"));
    }
    ring.submitter().register_files(&fds)
}

/// Whether a registration happened: `Ok(false)` when it was not asked for
/// (`wanted` false) or quietly failed where it was only diskbench's default
/// (`asked` None); an error when the job asked for it (`asked` Some(true)).
pub(crate) fn registered(
    wanted: bool,
    asked: Option<bool>,
    register: impl FnOnce() -> io::Result<()>,
) -> io::Result<bool> {
    if !wanted {
        return Ok(false);
    }
    match register() {
        Ok(()) => Ok(true),
        Err(e) if asked == Some(true) => Err(e),
        Err(_) => Ok(false),
    }
}
