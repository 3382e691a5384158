//! `FaultyEngine`: wraps any engine and makes chosen I/Os fail or lie, for
//! `--inject-fault` (the rules and their text form are `model::FaultRule`).
//!
//! A failing disk cannot be had on demand, yet the paths that handle one
//! (an I/O error ending a job, `verify=` catching corrupt, lost or
//! misplaced data) must be tested. The wrapper does it at the engine
//! boundary, the last point diskbench controls, so every engine (sync,
//! libaio, io_uring, null) and the whole runner above it are exercised.
//!
//! Reads and writes are counted separately, per engine (so per worker), in
//! the order they are queued, from 1. A rule hits the N-th I/O of its
//! direction (and, with `/M`, every M-th after it); when several rules hit
//! the same I/O, the first one given wins. What a hit does:
//!
//! - `bitflip@write`: bit 0 of the last byte (`len - 1`) of the write's
//!   buffer is flipped before the write goes to the device, so the device
//!   stores corrupt data; the bit is flipped back when the completion is
//!   reaped, so the caller's buffer is as it was.
//! - `bitflip@read`: the same bit is flipped in the buffer after the read
//!   completes (of the last byte read, when the read came back short).
//! - `drop@write`: reported done with its full length, never sent to the
//!   device (a lost write).
//! - `misdirect@write`: sent to `offset - len` when `offset >= len`, else to
//!   `offset + len` (which may lie past the end of a one-block file); the
//!   completion looks normal.
//! - `short@read`: done on the device, reported with half its length.
//! - `eio`, `enospc`, `erofs`: completed with -EIO, -ENOSPC or -EROFS
//!   without reaching the device.
//!
//! I/Os that never reach the device complete synthetically: they wait in
//! `pending` and are returned first by the next `reap`, which then blocks
//! in the wrapped engine only for I/Os that engine really has in flight.
//! The runner wraps an engine only when faults are given, so a normal run
//! pays nothing for this.

use crate::BufferPool;
use crate::{AnyEngine, Capabilities, Completion, Direction, Engine, EngineError, IoRequest};
use model::{FaultKind, FaultRule};

/// What to do to a slot's completion when the wrapped engine returns it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum After {
    #[default]
    Nothing,
    /// Flip back the bit a `bitflip@write` flipped at this index.
    Unflip(usize),
    /// `bitflip@read` of a read of this length.
    FlipRead(u32),
    /// `short@read` of a read of this length.
    Halve(u32),
}

pub struct FaultyEngine {
    inner: AnyEngine,
    rules: Vec<FaultRule>,
    /// Reads and writes queued so far: the N of the rules.
    count: [u64; 2],
    /// Completions made up by the wrapper, returned first by `reap`.
    pending: Vec<Completion>,
    /// Made-up completions since the last `submit`, for its count.
    unsubmitted: usize,
    /// By slot: what to do when the wrapped engine completes it.
    after: Vec<After>,
    /// I/Os handed to the wrapped engine and not reaped yet.
    inner_in_flight: usize,
}

impl FaultyEngine {
    pub fn new(inner: AnyEngine, rules: Vec<FaultRule>) -> FaultyEngine {
        FaultyEngine {
            inner,
            rules,
            count: [0; 2],
            pending: Vec::new(),
            unsubmitted: 0,
            after: Vec::new(),
            inner_in_flight: 0,
        }
    }

    /// The engine that does the real I/O.
    pub fn inner(&self) -> &AnyEngine {
        &self.inner
    }

    /// The offset a `misdirect@write` of `len` bytes at `offset` goes to.
    pub fn misdirected(offset: u64, len: u32) -> u64 {
        let len = u64::from(len);
        if offset >= len {
            offset - len
        } else {
            offset + len
        }
    }

    fn set_after(&mut self, slot: u32, what: After) {
        let slot = slot as usize;
        if self.after.len() <= slot {
            self.after.resize(slot + 1, After::Nothing);
        }
        self.after[slot] = what;
    }

    fn pass(&mut self, req: IoRequest) -> Result<(), EngineError> {
        self.inner.queue(req)?;
        self.inner_in_flight += 1;
        Ok(())
    }

    fn made_up(&mut self, slot: u32, result: i64) {
        self.pending.push(Completion { slot, result });
        self.unsubmitted += 1;
    }

    /// Applies the slot's pending action to a completion of the wrapped engine.
    fn finish(&mut self, c: &mut Completion) {
        let Some(what) = self.after.get_mut(c.slot as usize) else {
            return;
        };
        let what = std::mem::take(what);
        match what {
            After::Nothing => {}
            After::Unflip(at) => flip(self.inner.buffer(c.slot), at),
            After::FlipRead(len) if c.result > 0 => {
                let read = (c.result as u64).min(u64::from(len)) as usize;
                flip(self.inner.buffer(c.slot), read - 1);
            }
            After::FlipRead(_) => {}
            After::Halve(len) if c.result == i64::from(len) => c.result = i64::from(len / 2),
            After::Halve(_) => {}
        }
    }
}

/// Flips bit 0 of `buf[at]` (nothing when the buffer is shorter, as the
/// null engine's may be).
/// Flips the lowest bit of byte `at` of a buffer the caller may reach (a
/// slot in flight is left alone: the kernel owns it).
fn flip(buf: Result<&mut [u8], EngineError>, at: usize) {
    if let Some(b) = buf.ok().and_then(|buf| buf.get_mut(at)) {
        *b ^= 1;
    }
}

fn errno_of(kind: FaultKind) -> i64 {
    i64::from(match kind {
        FaultKind::Enospc => libc::ENOSPC,
        FaultKind::Erofs => libc::EROFS,
        _ => libc::EIO,
    })
}

impl Engine for FaultyEngine {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn pool(&self) -> &BufferPool {
        self.inner.pool()
    }
    fn pool_mut(&mut self) -> &mut BufferPool {
        self.inner.pool_mut()
    }
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        let d = match req.dir {
            Direction::Read => 0,
            Direction::Write => 1,
        };
        self.count[d] += 1;
        let n = self.count[d];
        let Some(kind) = self
            .rules
            .iter()
            .find(|r| r.dir == req.dir && r.hits(n))
            .map(|r| r.kind)
        else {
            return self.pass(req);
        };
        match kind {
            FaultKind::Eio | FaultKind::Enospc | FaultKind::Erofs => {
                self.made_up(req.slot, -errno_of(kind));
                Ok(())
            }
            FaultKind::Drop => {
                self.made_up(req.slot, i64::from(req.len));
                Ok(())
            }
            FaultKind::Misdirect => self.pass(IoRequest {
                offset: FaultyEngine::misdirected(req.offset, req.len),
                ..req
            }),
            FaultKind::Short => {
                self.set_after(req.slot, After::Halve(req.len));
                self.pass(req)
            }
            FaultKind::Bitflip if req.dir == Direction::Read => {
                self.set_after(req.slot, After::FlipRead(req.len));
                self.pass(req)
            }
            FaultKind::Bitflip => {
                if let Some(at) = (req.len as usize).checked_sub(1) {
                    flip(self.inner.buffer(req.slot), at);
                    self.set_after(req.slot, After::Unflip(at));
                }
                self.pass(req)
            }
        }
    }
    fn submit(&mut self) -> Result<usize, EngineError> {
        let n = self.inner.submit()?;
        Ok(n + std::mem::take(&mut self.unsubmitted))
    }
    fn reap(&mut self, min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        let start = out.len();
        out.append(&mut self.pending);
        let made_up = out.len() - start;
        if self.inner_in_flight > 0 {
            // Wait only for what the wrapped engine really has in flight.
            let want = min.saturating_sub(made_up).min(self.inner_in_flight);
            let from = out.len();
            self.inner.reap(want, out)?;
            self.inner_in_flight -= (out.len() - from).min(self.inner_in_flight);
            for c in &mut out[from..] {
                self.finish(c);
            }
        }
        Ok(out.len() - start)
    }
    fn sync_file(&mut self, file: u32, data_only: bool) -> Result<(), EngineError> {
        self.inner.sync_file(file, data_only)
    }
    fn trim_file(&mut self, file: u32, offset: u64, len: u64) -> Result<(), EngineError> {
        self.inner.trim_file(file, offset, len)
    }
}
