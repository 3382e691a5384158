//! `run`'s job-shape flags: `--bs`, `--iodepth`, `--numjobs`,
//! `--direct`/`--buffered` and `--ramp`, the knobs people turn, put on
//! every test of the suite (after each test's own options, so they win).
//!
//! A test's name says what it ran (`profiles::shape::rename`: with
//! `--iodepth 8` the suite's `rand-read-4k-qd32` runs as
//! `rand-read-4k-qd8`). Two tests that end up the same are measured once.
//!
//! Bad values are refused before anything runs (exit 2): zero, negative,
//! unparsable; an unaligned `--bs` with direct I/O by the runner's check of
//! the target's alignment.

use clap::Args;

/// The smallest unit of direct I/O on any device.
const SECTOR: u64 = 512;
/// More workers than this per test would mostly measure thread switching.
const MAX_NUMJOBS: u32 = 1024;
/// io_uring's and libaio's queues are sized by `iodepth`; past this the
/// kernel refuses the ring.
const MAX_IODEPTH: u32 = 32768;

#[derive(Args, Clone, Debug, Default)]
pub struct ShapeArgs {
    /// Block size of every test, e.g. 4k, 64k, 1m (a multiple of the target's logical
    /// block with direct I/O) [default: each test's own]
    #[arg(long, value_name = "SIZE", value_parser = parse_bs, allow_hyphen_values = true)]
    pub bs: Option<u64>,
    /// Queue depth of every test, 1 to 32768 [default: each test's own]
    #[arg(long, value_name = "N", value_parser = parse_iodepth, allow_hyphen_values = true)]
    pub iodepth: Option<u32>,
    /// Workers per test, each with its own queue, reported together (fio's numjobs
    /// with group_reporting) [default: 1]
    #[arg(long, value_name = "N", value_parser = parse_numjobs, allow_hyphen_values = true)]
    pub numjobs: Option<u32>,
    /// 1: direct I/O, bypassing the page cache (the default); 0: buffered, as --buffered
    #[arg(long, value_name = "0|1", value_parser = parse_direct, conflicts_with = "buffered")]
    pub direct: Option<bool>,
    /// Buffered I/O through the page cache (the same as --direct 0)
    #[arg(long)]
    pub buffered: bool,
    /// Time each test runs before its measured time starts, e.g. 2s, 0 [default: 1s, 0 with --quick]
    #[arg(long, value_name = "TIME", value_parser = parse_ramp, allow_hyphen_values = true)]
    pub ramp: Option<String>,
}

impl ShapeArgs {
    /// Direct I/O or not, when a flag says.
    fn direct(&self) -> Option<bool> {
        self.direct.or(self.buffered.then_some(false))
    }

    /// The fio options that put the shape on a test, to follow its own.
    pub fn fio_options(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(bs) = self.bs {
            out.push(format!("--bs={bs}"));
        }
        if let Some(depth) = self.iodepth {
            out.push(format!("--iodepth={depth}"));
        }
        if let Some(n) = self.numjobs {
            out.push(format!("--numjobs={n}"));
            // One row per test, its workers together, as the table has.
            out.push("--group_reporting=1".into());
        }
        if let Some(direct) = self.direct() {
            out.push(format!("--direct={}", u8::from(direct)));
        }
        out
    }

    /// What clap cannot check flag by flag: a `--bs` direct I/O cannot
    /// use. (The target's own alignment, 4 KiB on some disks, is checked
    /// before any I/O, as for every job.)
    pub fn check(&self) -> Result<(), String> {
        match (self.bs, self.direct().unwrap_or(true)) {
            (Some(bs), true) if bs % SECTOR != 0 => Err(format!(
                "--bs {bs} is not a multiple of {SECTOR} bytes, which direct I/O needs: give \
                 e.g. --bs 4k, or add --buffered"
            )),
            _ => Ok(()),
        }
    }

    /// True when a flag changes what the tests are.
    pub fn changes_tests(&self) -> bool {
        !self.fio_options().is_empty()
    }
}

fn parse_bs(text: &str) -> Result<u64, String> {
    match model::units::parse_size(text) {
        Ok(0) => Err("a block size of 0 bytes moves nothing: give e.g. --bs 4k".into()),
        Ok(bs) if bs > u64::from(u32::MAX) => {
            Err(format!("{text} is larger than any I/O: give e.g. --bs 1m"))
        }
        Ok(bs) => Ok(bs),
        Err(e) => Err(format!("{e}: give a size such as 4k, 64k or 1m")),
    }
}

/// A whole number from 1 to `max`, or a message naming the flag and its range.
fn count(text: &str, flag: &str, max: u32, example: &str) -> Result<u32, String> {
    let range = format!("give a whole number from 1 to {max}, e.g. {flag} {example}");
    match text.trim().parse::<i64>() {
        Ok(n) if n < 1 => Err(format!("{flag} {text} is below 1: {range}")),
        Ok(n) if n > i64::from(max) => Err(format!("{flag} {text} is above {max}: {range}")),
        Ok(n) => Ok(n as u32),
        Err(_) => Err(format!("'{text}' is not a whole number: {range}")),
    }
}

fn parse_iodepth(text: &str) -> Result<u32, String> {
    count(text, "--iodepth", MAX_IODEPTH, "32")
}

fn parse_numjobs(text: &str) -> Result<u32, String> {
    count(text, "--numjobs", MAX_NUMJOBS, "4")
}

fn parse_direct(text: &str) -> Result<bool, String> {
    match text.trim() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!(
            "'{text}' is neither 0 nor 1: give --direct 1 (direct I/O) or --direct 0 (buffered, also --buffered)"
        )),
    }
}

fn parse_ramp(text: &str) -> Result<String, String> {
    if text.trim_start().starts_with('-') {
        return Err(format!(
            "a ramp of {text} is negative: give a time such as 2s, or 0 for none"
        ));
    }
    model::units::parse_duration(text)
        .map(|_| text.to_string())
        .map_err(|e| format!("{e}: give a time such as 2s, 500ms, or 0 for none"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_say_what_is_wrong() {
        assert!(parse_iodepth("0").unwrap_err().contains("below 1"));
        assert!(parse_iodepth("-4").unwrap_err().contains("below 1"));
        assert!(parse_iodepth("lots")
            .unwrap_err()
            .contains("not a whole number"));
        assert!(parse_iodepth("40000").unwrap_err().contains("above 32768"));
        assert_eq!(parse_iodepth("16"), Ok(16));
        assert!(parse_numjobs("0").unwrap_err().contains("--numjobs"));
        assert!(parse_bs("0").unwrap_err().contains("--bs 4k"));
        assert!(parse_bs("-4k").is_err());
        assert!(parse_bs("4q").unwrap_err().contains("such as 4k"));
        assert_eq!(parse_bs("64k"), Ok(65536));
        assert!(parse_direct("2").unwrap_err().contains("--buffered"));
        assert_eq!(parse_direct("0"), Ok(false));
        assert!(parse_ramp("-1s").unwrap_err().contains("negative"));
        assert!(parse_ramp("soon").is_err());
        assert_eq!(parse_ramp("0").as_deref(), Ok("0"));
    }
}
