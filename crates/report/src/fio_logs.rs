//! fio's log files that are not a job's own: a log fio stored compressed,
//! inflated back into fio's log lines (`--inflate-log`), and the aggregate
//! bandwidth logs of the whole run (`--bandwidth-log`). The binary reads
//! and writes the files; this is their text.

use model::RunResult;
use std::io::Read;

/// A compressed log that cannot be read back; `name` is how the file was named.
#[derive(Debug, thiserror::Error)]
pub enum InflateError {
    #[error("{name} is not a log fio stored compressed (zlib streams): bad data {at} bytes in")]
    Stream {
        name: String,
        at: usize,
        #[source]
        source: std::io::Error,
    },
    #[error("inflating {name}")]
    Samples {
        name: String,
        #[source]
        source: SampleError,
    },
}

/// Inflated data that is not fio's binary samples.
#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    #[error("{0} bytes left over after the last sample")]
    LeftOver(usize),
    #[error("a sample with direction {0}: not one of fio's logs")]
    Direction(u32),
    #[error("a sample cut short")]
    CutShort,
}

/// fio's `--inflate-log=FILE`: a log written with `log_store_compressed=1`
/// is a run of zlib streams (one per `log_compression` chunk) holding fio's
/// samples in binary, which this turns into fio's log lines. The layout is
/// fio 3.33's, as its own `--inflate-log` reads it: little-endian records of
/// time (u64, ms), value (u64), direction (u32, whose top bit says an
/// offset follows), priority (u16, 2 bytes of padding) and block size (u64),
/// then the offset (u64) when flagged; 32 or 40 bytes.
pub fn inflate(data: &[u8], name: &str) -> Result<String, InflateError> {
    let mut rest: &[u8] = data;
    let mut raw = Vec::new();
    while !rest.is_empty() {
        let mut stream = flate2::bufread::ZlibDecoder::new(rest);
        stream
            .read_to_end(&mut raw)
            .map_err(|source| InflateError::Stream {
                name: name.to_string(),
                at: data.len() - rest.len(),
                source,
            })?;
        let used = stream.total_in() as usize;
        if used == 0 {
            break;
        }
        rest = &rest[used.min(rest.len())..];
    }
    samples_text(&raw).map_err(|source| InflateError::Samples {
        name: name.to_string(),
        source,
    })
}

const OFFSET_BIT: u32 = 0x8000_0000;
const PRIO_BIT: u32 = 0x4000_0000;
/// The flag bits fio keeps in the direction field.
const FLAG_BITS: u32 = 0xF000_0000;

fn samples_text(mut raw: &[u8]) -> Result<String, SampleError> {
    let u64_at =
        |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    let mut text = String::new();
    while !raw.is_empty() {
        if raw.len() < 32 {
            return Err(SampleError::LeftOver(raw.len()));
        }
        let ddir_field = u32::from_le_bytes(raw[16..20].try_into().unwrap_or([0; 4]));
        let prio = u16::from_le_bytes(raw[20..22].try_into().unwrap_or([0; 2]));
        let (time, value, bs) = (u64_at(raw, 0), u64_at(raw, 8), u64_at(raw, 24));
        let ddir = ddir_field & !FLAG_BITS;
        if ddir > 2 {
            return Err(SampleError::Direction(ddir));
        }
        // Without log_prio, fio prints 1 for the real-time class, else 0.
        let prio = match ddir_field & PRIO_BIT {
            0 => u16::from(prio >> 13 == 1),
            _ => prio,
        };
        let size = if ddir_field & OFFSET_BIT != 0 {
            if raw.len() < 40 {
                return Err(SampleError::CutShort);
            }
            let offset = u64_at(raw, 32);
            text.push_str(&format!(
                "{time}, {value}, {ddir}, {bs}, {offset}, {prio}\n"
            ));
            40
        } else {
            text.push_str(&format!("{time}, {value}, {ddir}, {bs}, {prio}\n"));
            32
        };
        raw = &raw[size..];
    }
    Ok(text)
}

/// fio's `--bandwidth-log[=NAME]`'s three files, as (direction's name,
/// text): `read`, `write` and `trim`, one line per second of the run: time
/// (ms), bandwidth (KiB/s), direction (0 read, 1 write, 2 trim), block size
/// 0, offset 0, summed over every job. (fio 3.33 run locally creates the
/// three files and leaves them empty; diskbench fills them from its
/// per-second series.)
pub fn bandwidth_logs(result: &RunResult) -> Vec<(&'static str, String)> {
    let mut seconds: Vec<(u64, u64, u64)> = Vec::new();
    for job in &result.jobs {
        for point in &job.series {
            let i = (point.start_ms / 1000) as usize;
            if seconds.len() <= i {
                seconds.resize(i + 1, (0, 0, 0));
            }
            seconds[i].0 = seconds[i].0.max(point.duration_ms);
            seconds[i].1 += point.read_bytes;
            seconds[i].2 += point.write_bytes;
        }
    }
    let kib_per_s = |bytes: u64, ms: u64| bytes * 1000 / 1024 / ms.max(1);
    let mut logs = Vec::new();
    for (dir, name) in [(0, "read"), (1, "write"), (2, "trim")] {
        let mut text = String::new();
        for (i, &(ms, read, write)) in seconds.iter().enumerate() {
            let bytes = match dir {
                0 => read,
                1 => write,
                _ => continue,
            };
            if ms == 0 {
                continue;
            }
            let end_ms = i as u64 * 1000 + ms;
            text.push_str(&format!(
                "{end_ms}, {}, {dir}, 0, 0\n",
                kib_per_s(bytes, ms)
            ));
        }
        logs.push((name, text));
    }
    logs
}
