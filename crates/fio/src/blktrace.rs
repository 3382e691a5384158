//! blktrace binary traces as `read_iolog` input, read as fio reads them
//! (its HOWTO: the output of `blkparse DEVICE -o /dev/null -d FILE`, or
//! blktrace's own per-CPU files).
//!
//! Each event is the kernel's `struct blk_io_trace` (linux/blktrace_api.h):
//! magic (0x65617400 plus a version byte, which also tells the byte order),
//! sequence, time (ns), sector, bytes, action, pid, device (major << 20 |
//! minor), cpu, error (u16), pdu_len (u16): 48 bytes, then `pdu_len` bytes
//! of payload. As fio does, only queue events make I/Os (`__BLK_TA_QUEUE`,
//! not notifications): a discard is a trim, a flush a sync, any other a read
//! or (with the write bit) a write of `bytes` at `sector` x 512, timed by
//! the gaps between the queue events; events of zero bytes are left out.
//! The queue depth the trace kept (queued minus merged, at most 1024, by
//! direction, between completions) becomes the job's `iodepth` unless one
//! was given.

use crate::iolog_text::{scaled, LogError, Parsed};
use model::iolog::{IoLogSpec, ReplayAction};
use model::Direction;

const MAGIC: u32 = 0x6561_7400;
const HEADER: usize = 48;
const TA_QUEUE: u32 = 1;
const TA_BACKMERGE: u32 = 2;
const TA_FRONTMERGE: u32 = 3;
const TA_COMPLETE: u32 = 8;
const TC_SHIFT: u32 = 16;
const TC_READ: u32 = 1 << TC_SHIFT;
const TC_WRITE: u32 = (1 << 1) << TC_SHIFT;
const TC_FLUSH: u32 = (1 << 2) << TC_SHIFT;
const TC_NOTIFY: u32 = (1 << 10) << TC_SHIFT;
const TC_DISCARD: u32 = (1 << 13) << TC_SHIFT;

/// Whether `data` starts with a blktrace event, in either byte order.
pub(crate) fn is_blktrace(data: &[u8]) -> bool {
    byte_order(data).is_some()
}

/// `true` for little-endian events.
fn byte_order(data: &[u8]) -> Option<bool> {
    let head: [u8; 4] = data.get(..4)?.try_into().ok()?;
    if u32::from_le_bytes(head) & 0xffff_ff00 == MAGIC {
        Some(true)
    } else if u32::from_be_bytes(head) & 0xffff_ff00 == MAGIC {
        Some(false)
    } else {
        None
    }
}

/// One event's fields that replay needs.
struct Event {
    time_ns: u64,
    sector: u64,
    bytes: u64,
    action: u32,
    device: u32,
}

/// The trace's I/Os (the devices as `MAJOR:MINOR` in `files`) and the
/// depth it kept.
pub(crate) fn parse(data: &[u8], how: &IoLogSpec) -> Result<(Parsed, u32), LogError> {
    let little = byte_order(data).ok_or(LogError::NotBlktrace)?;
    let u32_at = |b: &[u8], at: usize| {
        let v: [u8; 4] = b[at..at + 4].try_into().unwrap_or_default();
        if little {
            u32::from_le_bytes(v)
        } else {
            u32::from_be_bytes(v)
        }
    };
    let u64_at = |b: &[u8], at: usize| {
        let v: [u8; 8] = b[at..at + 8].try_into().unwrap_or_default();
        if little {
            u64::from_le_bytes(v)
        } else {
            u64::from_be_bytes(v)
        }
    };
    let mut parsed = Parsed::default();
    let skips = |what: &str| how.skip.iter().any(|s| s == what);
    let (mut first_ns, mut depth, mut window) = (None, [0u32; 2], [0i64; 2]);
    let mut rest = data;
    while !rest.is_empty() {
        let at = data.len() - rest.len();
        if rest.len() < HEADER {
            return Err(LogError::CutShort(at));
        }
        if u32_at(rest, 0) & 0xffff_ff00 != MAGIC {
            return Err(LogError::BadMagic(at));
        }
        let pdu_len = usize::from(if little {
            u16::from_le_bytes([rest[46], rest[47]])
        } else {
            u16::from_be_bytes([rest[46], rest[47]])
        });
        let e = Event {
            time_ns: u64_at(rest, 8),
            sector: u64_at(rest, 16),
            bytes: u64::from(u32_at(rest, 24)),
            action: u32_at(rest, 28),
            device: u32_at(rest, 36),
        };
        rest = rest.get(HEADER + pdu_len..).ok_or(LogError::CutShort(at))?;
        if e.action & TC_NOTIFY != 0 {
            continue;
        }
        // fio counts depth by the read bit, which the kernel never sets, so
        // only writes and discards count.
        let dir = match (
            e.action & TC_READ != 0,
            e.action & (TC_WRITE | TC_DISCARD) != 0,
        ) {
            (true, _) => Some(0),
            (_, true) => Some(1),
            _ => None,
        };
        match (e.action & 0xffff, dir) {
            (TA_QUEUE, Some(d)) => window[d] += 1,
            (TA_BACKMERGE | TA_FRONTMERGE, Some(d)) => window[d] -= 1,
            (TA_COMPLETE, Some(d)) => {
                depth[d] = depth[d].max(window[d].clamp(0, 1024) as u32);
                window[d] = 0;
            }
            _ => {}
        }
        if e.action & 0xffff != TA_QUEUE {
            continue;
        }
        let since_first = e.time_ns.saturating_sub(*first_ns.get_or_insert(e.time_ns));
        let at_us = scaled(since_first / 1000, how);
        let device = format!("{}:{}", e.device >> 20, e.device & 0xf_ffff);
        if e.action & TC_DISCARD != 0 {
            if skips("trim") {
                continue;
            }
            return Err(LogError::Discards);
        } else if e.action & TC_FLUSH != 0 {
            if !skips("sync") {
                parsed.sync(at_us, &device);
            }
        } else {
            let dir = match e.action & TC_WRITE != 0 {
                true => Direction::Write,
                false => Direction::Read,
            };
            let name = if dir == Direction::Write {
                "write"
            } else {
                "read"
            };
            if skips(name) || e.bytes == 0 {
                continue;
            }
            let mut offset = e.sector * 512 / how.scale.max(1);
            if how.align > 0 {
                offset &= !(how.align - 1);
            }
            parsed.io(at_us, &device, dir, offset, e.bytes);
        }
    }
    let parsed = parsed.done(how.redirect.as_deref());
    if parsed.ops.is_empty() {
        return Err(LogError::NoIo);
    }
    let ios = |write: bool| {
        parsed.ops.iter().any(|o| {
            matches!(o.action, ReplayAction::Io { dir, .. } if (dir == Direction::Write) == write)
        })
    };
    // A direction with I/O but no depth seen gets 1, as in fio.
    let depth_of = |d: usize, used: bool| if depth[d] == 0 && used { 1 } else { depth[d] };
    let kept = depth_of(0, ios(false)).max(depth_of(1, ios(true)));
    Ok((parsed, kept))
}

/// `merge_blktrace_file`: the traces' queued I/Os (reads, writes and
/// discards; the rest is left out, payloads too) in one trace, in time
/// order, as fio merges them: each trace repeated `iters` times, its
/// repetition k shifted by k times the time of its last event, and its
/// times then scaled to `scalars` percent; an earlier trace first on a tie.
/// Written little-endian with the payload lengths zeroed.
pub(crate) fn merge(
    traces: &[Vec<u8>],
    scalars: &[u32],
    iters: &[u32],
) -> Result<Vec<u8>, LogError> {
    let mut lists: Vec<Vec<(u64, [u8; HEADER])>> = Vec::with_capacity(traces.len());
    for (i, data) in traces.iter().enumerate() {
        let little = byte_order(data).ok_or(LogError::TraceNotBlktrace(i + 1))?;
        let mut events = Vec::new();
        let mut last_time = 0;
        let mut rest = data.as_slice();
        while rest.len() >= HEADER {
            let field = |at: usize, len: usize| -> u64 {
                let bytes = &rest[at..at + len];
                let mut v = 0u64;
                for k in 0..len {
                    let b = if little { bytes[len - 1 - k] } else { bytes[k] };
                    v = (v << 8) | u64::from(b);
                }
                v
            };
            let (time, action, pdu) = (field(8, 8), field(28, 4) as u32, field(46, 2) as usize);
            last_time = time;
            let queued = action & 0xffff == TA_QUEUE;
            if queued && action & (TC_READ | TC_WRITE | TC_DISCARD) != 0 {
                let mut event = [0u8; HEADER];
                // Every field in little-endian, whatever the trace's order.
                for (at, len) in [
                    (0, 4),
                    (4, 4),
                    (8, 8),
                    (16, 8),
                    (24, 4),
                    (28, 4),
                    (32, 4),
                    (36, 4),
                    (40, 4),
                    (44, 2),
                ] {
                    let v = field(at, len).to_le_bytes();
                    event[at..at + len].copy_from_slice(&v[..len]);
                }
                events.push((time, event));
            }
            rest = rest.get(HEADER + pdu..).unwrap_or_default();
        }
        let mut list = Vec::new();
        for k in 0..u64::from(iters[i]) {
            for (time, event) in &events {
                let t = (time + k * last_time) * u64::from(scalars[i]) / 100;
                let mut e = *event;
                e[8..16].copy_from_slice(&t.to_le_bytes());
                list.push((t, e));
            }
        }
        lists.push(list);
    }
    let mut heads = vec![0usize; lists.len()];
    let mut out = Vec::new();
    loop {
        let earliest = (0..lists.len())
            .filter(|&i| heads[i] < lists[i].len())
            .min_by_key(|&i| (lists[i][heads[i]].0, i));
        let Some(i) = earliest else { break };
        out.extend_from_slice(&lists[i][heads[i]].1);
        heads[i] += 1;
    }
    Ok(out)
}

/// The block device a trace's `MAJOR:MINOR` is on this machine, from sysfs.
pub(crate) fn device_path(number: &str) -> Option<String> {
    let uevent = std::fs::read_to_string(format!("/sys/dev/block/{number}/uevent")).ok()?;
    let name = uevent.lines().find_map(|l| l.strip_prefix("DEVNAME="))?;
    Some(format!("/dev/{name}"))
}

#[cfg(test)]
mod tests;
