//! fio's per-job logs (`write_bw_log`, `write_iops_log`, `write_lat_log`,
//! `write_hist_log`), in fio's file format so that fio's plotting tools
//! (fio2gnuplot, fio_generate_plots, fiologparser, fiologparser_hist) read
//! them.
//!
//! Each line is `time_ms, value, direction, bs, [offset,] priority`:
//! bandwidth in KiB/s, IOPS, latency in ns; direction 0 read, 1 write, 2
//! trim (a trim's line is written when it is done, so in `trimwrite` modes
//! it comes before the write of the same block);
//! priority as fio writes it: the I/O's ioprio value in hex with
//! `log_prio=1` (`0x2000`), else 1 for the real-time class and 0 for the
//! rest (`prio_text`), and that of 0 on windowed lines, which mix them. Files are `NAME_bw.N.log`, `NAME_iops.N.log`,
//! `NAME_slat|clat|lat.N.log` in the current directory, N being the job's
//! thread number in the run (`NAME_bw.log` with `per_job_logs=0`, see
//! `out`). What fio 3.33 writes, and so we do:
//! - `log_avg_msec=0` (the default): one line per I/O, at its completion;
//!   bs and offset are the I/O's; the bandwidth of one I/O is its size over
//!   its completion latency, the IOPS value is 1.
//! - `log_avg_msec=M`: per window of M ms, one line per direction that
//!   completed I/Os in it, stamped with the window's end; bs and offset are
//!   0; latencies are the window's means. A last, partial window is written
//!   to the latency logs only.
//! - `log_max_value=1`: windowed latency lines give the window's largest
//!   value; the bandwidth and IOPS lines do not change (fio 3.33 takes one
//!   rate sample per window, so its maximum is its mean: checked).
//! - `log_window_value=both` (newer fio): a second value after the first,
//!   the window's largest (the same as the first on bandwidth and IOPS
//!   lines; 0 on a line of one I/O).
//! - `log_issue_time=1` (newer fio): a last column, the I/O's issue time in
//!   ns from the job's start in the clat and slat logs, 0 in the others and
//!   on windowed lines.
//!
//! The lines go through a buffered writer as the job runs (memory stays flat
//! however long it is); slat lines exist only for engines that have a
//! submission step (fio's sync engines leave the file empty, and so do ours).
//! The histogram log (`NAME_clat_hist.N.log`) has its own line format: see
//! `hist`. With `log_store_compressed=1` the other logs are stored as fio
//! stores them compressed, `NAME_bw.N.log.fz`, the same lines packed: see
//! `packed`.

mod hist;
mod out;
mod packed;

use crate::clock::Clock;
use crate::error::IoError;
use hist::HistLog;
use model::job::LogSpec;
use model::Direction;
pub(crate) use out::new_run;
use out::Out;
use packed::{Entry, Packer};
use std::io;

/// The priority column of a line for an I/O of ioprio `value`: the value
/// in hex with `log_prio`, else whether its class is the real-time one.
fn prio_text(log_prio: bool, value: u16) -> String {
    match log_prio {
        true => format!("0x{value:04x}"),
        false => u8::from(model::prio::IoPrio::of_value(value).class == model::prio::CLASS_RT)
            .to_string(),
    }
}

/// What one completed I/O contributes to the logs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    pub at: u64,
    pub dir: Direction,
    /// A trim: logged as direction 2 (its `dir` is the write side's).
    pub trim: bool,
    pub len: u64,
    pub offset: u64,
    pub slat_ns: Option<u64>,
    pub clat_ns: u64,
    pub lat_ns: u64,
    /// The I/O's ioprio value (`model::prio::IoPrio::value`).
    pub prio: u16,
    /// When it was issued (the clock's ticks): `log_issue_time`.
    pub issued: u64,
}

impl Sample {
    /// The direction column of fio's logs: 0 read, 1 write, 2 trim.
    pub(crate) fn log_dir(&self) -> usize {
        match self.trim {
            true => 2,
            false => self.dir as usize,
        }
    }
}

/// Sums of one direction over the current window.
#[derive(Clone, Copy, Debug, Default)]
struct Window {
    ios: u64,
    bytes: u64,
    slat_sum: u64,
    slats: u64,
    clat_sum: u64,
    lat_sum: u64,
    slat_max: u64,
    clat_max: u64,
    lat_max: u64,
}

/// The columns the options add to every line: the window's largest value
/// beside its mean (`log_window_value=both`) and the I/O's issue time
/// (`log_issue_time`).
#[derive(Clone, Copy)]
struct Columns {
    both_values: bool,
    issue_time: bool,
}

impl Columns {
    fn entry(self, base: Entry, value: u64, value1: u64, issued_ns: u64) -> Entry {
        Entry {
            value,
            value1: self.both_values.then_some(value1),
            issued: self.issue_time.then_some(issued_ns),
            ..base
        }
    }
}

pub(crate) struct JobLogs {
    bw: Option<Out>,
    iops: Option<Out>,
    /// slat, clat, lat.
    lat: Option<[Out; 3]>,
    hist: Option<HistLog>,
    with_offset: bool,
    /// `log_max_value`: windowed latency lines give the maximum.
    max_value: bool,
    /// `log_window_value=both` and `log_issue_time`: columns of their own.
    both_values: bool,
    issue_time: bool,
    /// `log_prio`: see `prio_text`.
    log_prio: bool,
    clock: Clock,
    start: u64,
    /// Window length in ticks and ms; `None`: a line per I/O.
    window: Option<(u64, u64)>,
    window_end: u64,
    windows_done: u64,
    /// Read, write, trim.
    sums: [Window; 3],
    /// The first write error, reported when the job ends.
    error: Option<IoError>,
}

impl JobLogs {
    /// Opens the files `spec` asks for (`None` when it asks for none).
    pub(crate) fn open(
        spec: &LogSpec,
        thread_number: u32,
        clock: &Clock,
        start: u64,
    ) -> Result<Option<JobLogs>, IoError> {
        if !spec.any() {
            return Ok(None);
        }
        let open = |name: &Option<String>, kind: &str| -> Result<Option<Out>, IoError> {
            let Some(name) = name else { return Ok(None) };
            let packer = (spec.store_compressed && kind != "clat_hist")
                .then(|| Packer::new(spec.compression, spec.prio));
            Out::open_as(name, kind, thread_number, spec.shared, packer).map(Some)
        };
        let lat = match open(&spec.lat, "slat")? {
            Some(slat) => Some([
                slat,
                open(&spec.lat, "clat")?.expect("named"),
                open(&spec.lat, "lat")?.expect("named"),
            ]),
            None => None,
        };
        let window =
            (spec.avg_msec > 0).then(|| (clock.ticks(spec.avg_msec * 1_000_000), spec.avg_msec));
        Ok(Some(JobLogs {
            bw: open(&spec.bw, "bw")?,
            iops: open(&spec.iops, "iops")?,
            lat,
            hist: open(&spec.hist, "clat_hist")?
                .map(|out| HistLog::new(out, spec.hist_msec, spec.hist_coarseness, clock, start)),
            with_offset: spec.offset,
            max_value: spec.max_value,
            both_values: spec.both_values,
            issue_time: spec.issue_time,
            log_prio: spec.prio,
            clock: clock.clone(),
            start,
            window_end: start + window.map_or(0, |w| w.0),
            window,
            windows_done: 0,
            sums: [Window::default(); 3],
            error: None,
        }))
    }

    /// Starts the clock of the lines again (the end of the ramp): what came
    /// before is dropped.
    pub(crate) fn restart(&mut self, start: u64) {
        self.start = start;
        self.window_end = start + self.window.map_or(0, |w| w.0);
        self.windows_done = 0;
        self.sums = [Window::default(); 3];
        if let Some(h) = &mut self.hist {
            h.restart(start);
        }
    }

    pub(crate) fn record(&mut self, s: &Sample) {
        if let Some(h) = &mut self.hist {
            let result = h.record(s, &self.clock);
            self.keep_error(result);
        }
        let result = match self.window {
            None => self.line_per_io(s),
            Some(_) => {
                let result = self.close_windows(s.at);
                let w = &mut self.sums[s.log_dir()];
                w.ios += 1;
                w.bytes += s.len;
                w.clat_sum += s.clat_ns;
                w.lat_sum += s.lat_ns;
                w.clat_max = w.clat_max.max(s.clat_ns);
                w.lat_max = w.lat_max.max(s.lat_ns);
                if let Some(slat) = s.slat_ns {
                    w.slat_sum += slat;
                    w.slats += 1;
                    w.slat_max = w.slat_max.max(slat);
                }
                result
            }
        };
        self.keep_error(result);
    }

    /// The columns the options add to every line.
    fn columns(&self) -> Columns {
        Columns {
            both_values: self.both_values,
            issue_time: self.issue_time,
        }
    }

    fn line_per_io(&mut self, s: &Sample) -> io::Result<()> {
        let ms = self.clock.nanos(self.start, s.at) / 1_000_000;
        let issued = self.clock.nanos(self.start, s.issued);
        let prio = prio_text(self.log_prio, s.prio);
        let base = Entry {
            ms,
            value: 0,
            value1: None,
            dir: s.log_dir() as u8,
            bs: s.len,
            offset: self.with_offset.then_some(s.offset),
            prio: s.prio,
            issued: None,
        };
        let cols = self.columns();
        let entry = |value: u64, issued_ns: u64| cols.entry(base, value, 0, issued_ns);
        let kib_per_sec = s.len as u128 * 1_000_000_000 / 1024 / u128::from(s.clat_ns.max(1));
        let (bw, iops, slat, clat, lat) = (
            entry(kib_per_sec as u64, 0),
            entry(1, 0),
            s.slat_ns.map(|ns| entry(ns, issued)),
            entry(s.clat_ns, issued),
            entry(s.lat_ns, 0),
        );
        if let Some(o) = &mut self.bw {
            o.entry(&bw, &prio)?;
        }
        if let Some(o) = &mut self.iops {
            o.entry(&iops, &prio)?;
        }
        if let Some([slat_out, clat_out, lat_out]) = &mut self.lat {
            if let Some(e) = slat {
                slat_out.entry(&e, &prio)?;
            }
            clat_out.entry(&clat, &prio)?;
            lat_out.entry(&lat, &prio)?;
        }
        Ok(())
    }

    /// Writes the windows that ended at or before `now`.
    fn close_windows(&mut self, now: u64) -> io::Result<()> {
        let Some((ticks, ms)) = self.window else {
            return Ok(());
        };
        while now >= self.window_end {
            self.windows_done += 1;
            self.write_window(self.windows_done * ms, ms, true)?;
            self.window_end += ticks;
        }
        Ok(())
    }

    /// One line per direction seen in the window ending at `end_ms`.
    fn write_window(&mut self, end_ms: u64, len_ms: u64, full: bool) -> io::Result<()> {
        let secs = len_ms.max(1) as f64 / 1000.0;
        let prio = prio_text(self.log_prio, 0);
        let cols = self.columns();
        for d in 0..self.sums.len() {
            let w = std::mem::take(&mut self.sums[d]);
            if w.ios == 0 {
                continue;
            }
            // Windowed lines give 0 for the block size, offset, priority and issue time.
            let base = Entry {
                ms: end_ms,
                value: 0,
                value1: None,
                dir: d as u8,
                bs: 0,
                offset: self.with_offset.then_some(0),
                prio: 0,
                issued: None,
            };
            let entry = |value: u64, value1: u64| cols.entry(base, value, value1, 0);
            if full {
                let kib = (w.bytes as f64 / 1024.0 / secs) as u64;
                let iops = (w.ios as f64 / secs) as u64;
                let (bw_line, iops_line) = (entry(kib, kib), entry(iops, iops));
                if let Some(o) = &mut self.bw {
                    o.entry(&bw_line, &prio)?;
                }
                if let Some(o) = &mut self.iops {
                    o.entry(&iops_line, &prio)?;
                }
            }
            // The mean (or with log_max_value the largest), and the largest.
            let pick = |sum: u64, n: u64, max: u64| match self.max_value {
                true => entry(max, max),
                false => entry(sum / n, max),
            };
            let slat = (w.slats > 0).then(|| pick(w.slat_sum, w.slats, w.slat_max));
            let clat = pick(w.clat_sum, w.ios, w.clat_max);
            let lat = pick(w.lat_sum, w.ios, w.lat_max);
            if let Some([slat_out, clat_out, lat_out]) = &mut self.lat {
                if let Some(e) = slat {
                    slat_out.entry(&e, &prio)?;
                }
                clat_out.entry(&clat, &prio)?;
                lat_out.entry(&lat, &prio)?;
            }
        }
        Ok(())
    }

    fn keep_error(&mut self, result: io::Result<()>) {
        if let (Err(e), None) = (result, &self.error) {
            self.error = Some(IoError::without_path("write", e).saying("writing the job's logs"));
        }
    }

    /// Writes what is left at the job's end and flushes; the first error, if any.
    pub(crate) fn finish(mut self, end: u64) -> Result<(), IoError> {
        let result = self.close_windows(end);
        self.keep_error(result);
        if let Some((_, ms)) = self.window {
            let end_ms = self.clock.nanos(self.start, end) / 1_000_000;
            let tail_ms = end_ms.saturating_sub(self.windows_done * ms);
            let result = self.write_window(end_ms, tail_ms, false);
            self.keep_error(result);
        }
        let mut failed = None;
        if let Some(h) = self.hist.take() {
            failed = h.finish(end, &self.clock).err();
        }
        let outs = self.bw.into_iter().chain(self.iops);
        for o in outs.chain(self.lat.into_iter().flatten()) {
            if let Err(e) = o.finish() {
                failed.get_or_insert(e);
            }
        }
        match self.error.or(failed) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
