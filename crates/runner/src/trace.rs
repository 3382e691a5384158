//! fio's `--debug=io` trace: one line per completed I/O, as fio prints it
//! (`io       PID complete: io_u 0x3: off=0x1f000,len=0x1000,ddir=0,file=NAME`),
//! which scripts read the offsets from (fio's t/t64-switch.sh counts the
//! offsets that repeat). The runner prints nothing: a worker hands each
//! completion to the hook the binary sets in [`crate::RunOptions::io_trace`],
//! and does nothing more per I/O when none is set.

use model::Direction;
use std::sync::Arc;

/// Receives each completed I/O of every worker, on the worker's thread.
pub type IoTraceFn = Arc<dyn Fn(&IoTrace) + Send + Sync>;

/// One completed I/O.
pub struct IoTrace<'a> {
    /// The queue slot it completed in (fio names its `io_u` by address).
    pub slot: u32,
    /// Where in its file, in bytes, and how many.
    pub offset: u64,
    pub len: u64,
    pub dir: Direction,
    /// A trim (fio's third direction) rather than a read or write.
    pub trim: bool,
    /// Its file's name (fio's `JOB.CLONE.FILE` for the null engine).
    pub file: &'a str,
}

impl IoTrace<'_> {
    /// fio's line for the completion, in process `pid`; `ddir` is fio's
    /// direction number (0 read, 1 write, 2 trim).
    pub fn fio_line(&self, pid: u32) -> String {
        let ddir = match (self.trim, self.dir) {
            (true, _) => 2,
            (false, Direction::Read) => 0,
            (false, Direction::Write) => 1,
        };
        format!(
            "io       {pid} complete: io_u {:#x}: off={:#x},len={:#x},ddir={ddir},file={}",
            self.slot, self.offset, self.len, self.file
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The offset is the first `=` field up to its comma, as fio's scripts
    /// cut it (`cut -d '=' -f 2 | cut -d ',' -f 1`), in fio's hex.
    #[test]
    fn the_line_reads_as_fios() {
        let t = IoTrace {
            slot: 3,
            offset: 0x1f000,
            len: 4096,
            dir: Direction::Write,
            trim: false,
            file: "test.0.0",
        };
        let line = t.fio_line(42);
        assert_eq!(
            line,
            "io       42 complete: io_u 0x3: off=0x1f000,len=0x1000,ddir=1,file=test.0.0"
        );
        let off = line.split('=').nth(1).unwrap().split(',').next().unwrap();
        assert_eq!(u64::from_str_radix(&off[2..], 16).unwrap(), 0x1f000);
    }
}
