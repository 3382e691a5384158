//! What the kernel's block layer counted for a device while the jobs ran:
//! fio's `disk_util`. The tool's own figures say what it asked for and how
//! long it waited; these say what reached the device (after the page cache,
//! after the block layer merged or split the requests), so the two can be
//! held side by side.
//!
//! The counters are the difference of `/sys/block/DEV/stat` (the kernel's
//! Documentation/admin-guide/iostats) read before and after the jobs' I/O;
//! times are the kernel's milliseconds.

use serde::{Deserialize, Serialize};

/// Bytes in the kernel's sector unit of `/sys/block/DEV/stat`, whatever the
/// device's own sector size.
pub const KERNEL_SECTOR_BYTES: u64 = 512;

/// One device's counters over the measured I/O (fio's `disk_util` entry).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskUtil {
    /// The kernel's name of the device: "sda", "nvme0n1p2", "loop3", "dm-0".
    pub name: String,
    /// Requests completed (fields 1 and 5).
    pub read_ios: u64,
    pub write_ios: u64,
    /// Requests merged into others before they reached the device (2 and 6).
    pub read_merges: u64,
    pub write_merges: u64,
    /// 512-byte sectors moved (3 and 7).
    pub read_sectors: u64,
    pub write_sectors: u64,
    /// Milliseconds spent on requests, summed over the requests (4 and 8).
    pub read_ticks: u64,
    pub write_ticks: u64,
    /// Milliseconds with at least one request in flight (field 10).
    pub io_ticks: u64,
    /// Requests' time in the queue, weighted by how many were in it (field 11).
    pub in_queue: u64,
    /// Wall time the counters were read over, in ms: the jobs' I/O only.
    pub time_ms: u64,
}

impl DiskUtil {
    /// fio's `util`: the share of the wall time the device was busy, in %.
    /// The kernel counts busy time in whole ticks, so it may pass the wall
    /// time by one; capped at 100 as fio caps it.
    pub fn util(&self) -> f64 {
        if self.time_ms == 0 {
            return 0.0;
        }
        (self.io_ticks as f64 * 100.0 / self.time_ms as f64).min(100.0)
    }

    /// The mean number of requests in the device's queue over the wall
    /// time (iostat's `aqu-sz`): the kernel's own count of the depth the
    /// device was kept at. It can only be below the depth a benchmark kept
    /// (IOPS x mean latency), which also counts the time an I/O spends in
    /// the tool and the submission path before the device has it, and
    /// after the device finished it; far below, the tool is the limit.
    pub fn mean_queue_depth(&self) -> f64 {
        if self.time_ms == 0 {
            return 0.0;
        }
        self.in_queue as f64 / self.time_ms as f64
    }

    /// The counters fio prints for a device, in fio's order (its normal
    /// and terse outputs and its JSON keys): read and write ios, merges,
    /// ticks, then in_queue.
    pub fn fio_counters(&self) -> [u64; 7] {
        [
            self.read_ios,
            self.write_ios,
            self.read_merges,
            self.write_merges,
            self.read_ticks,
            self.write_ticks,
            self.in_queue,
        ]
    }

    /// The mean size of the requests the device received, in bytes; `None`
    /// when it received none.
    pub fn mean_request_bytes(&self) -> Option<u64> {
        let ios = self.read_ios + self.write_ios;
        let sectors = self.read_sectors + self.write_sectors;
        (ios > 0).then(|| sectors * KERNEL_SECTOR_BYTES / ios)
    }

    /// Adds the counters of a later stretch of time on the same device.
    pub fn add(&mut self, o: &DiskUtil) {
        self.read_ios += o.read_ios;
        self.write_ios += o.write_ios;
        self.read_merges += o.read_merges;
        self.write_merges += o.write_merges;
        self.read_sectors += o.read_sectors;
        self.write_sectors += o.write_sectors;
        self.read_ticks += o.read_ticks;
        self.write_ticks += o.write_ticks;
        self.io_ticks += o.io_ticks;
        self.in_queue += o.in_queue;
        self.time_ms += o.time_ms;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn util_is_busy_time_over_wall_time_capped_at_100() {
        let mut d = DiskUtil {
            io_ticks: 250,
            time_ms: 1000,
            ..DiskUtil::default()
        };
        assert_eq!(d.util(), 25.0);
        d.io_ticks = 1001;
        assert_eq!(d.util(), 100.0);
        d.time_ms = 0;
        assert_eq!(d.util(), 0.0);
    }

    #[test]
    fn queue_depth_is_weighted_queue_time_over_wall_time() {
        // 3 s with 4 requests in the queue, then 1 s idle: 12,000 weighted ms.
        let d = DiskUtil {
            in_queue: 12_000,
            time_ms: 4_000,
            ..DiskUtil::default()
        };
        assert_eq!(d.mean_queue_depth(), 3.0);
        assert_eq!(DiskUtil::default().mean_queue_depth(), 0.0);
    }

    #[test]
    fn mean_request_is_sectors_over_requests() {
        let d = DiskUtil {
            read_ios: 16,
            read_sectors: 16 * 128,
            ..DiskUtil::default()
        };
        assert_eq!(d.mean_request_bytes(), Some(64 << 10));
        assert_eq!(DiskUtil::default().mean_request_bytes(), None);
    }

    #[test]
    fn stretches_add_up() {
        let a = DiskUtil {
            name: "sda".into(),
            read_ios: 1,
            io_ticks: 5,
            time_ms: 10,
            ..DiskUtil::default()
        };
        let mut sum = a.clone();
        sum.add(&a);
        assert_eq!((sum.read_ios, sum.io_ticks, sum.time_ms), (2, 10, 20));
        assert_eq!(sum.name, "sda");
    }
}
