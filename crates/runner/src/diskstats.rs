//! What the kernel's block layer counted for the devices under the run's
//! targets (fio's `disk_util`): `/sys/block/DEV/stat` read just before a
//! group's workers start and just after they end, the differences added up
//! over the groups. Reading around each group's I/O, not around the whole
//! run, leaves out the layout of the next group's files, as fio's figures
//! cover the jobs' I/O only.
//!
//! The devices of a target are the one holding it (a partition, a loop, dm
//! or md device, or a whole disk), the whole disk when that is a partition,
//! and the devices a dm or md device is built on (its `slaves`), each once.
//! A target on no block device (the null engine, tmpfs, a network share,
//! btrfs's anonymous device numbers) has none, and the run reports none, as
//! fio leaves the section out then.
//!
//! The same counters, held against what the job issued, say whether the
//! device was shared (it did more than the job's I/O: another process's,
//! see [`Warning::DeviceShared`]) and, when it was not, whether the kernel
//! split the job's I/Os (the mean request it received is well under the
//! block size, see [`Warning::RequestsSplit`]). A device that other work
//! used is never judged split: the mean is then a mix.

use crate::job_path::job_path;
use crate::probe;
use crate::worker::{Issued, WorkerOutcome};
use model::job::BlockSizes;
use model::{DiskUtil, JobSpec, Warning};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How deep `slaves` are followed (dm over md over partitions is 3).
const MAX_SLAVE_DEPTH: usize = 4;

/// A device is judged split when it received at most this share of the
/// block size on average: a split in two gives a half, and a few small
/// requests of the filesystem's own (journal, metadata) do not reach it.
const SPLIT_SHARE: f64 = 0.75;

/// The smallest unit the block layer splits at: an I/O of this size or
/// less reaches the device whole.
const PAGE_BYTES: u64 = 4096;

/// Beyond a tenth of the job's own and a queue's worth, what a device may
/// count for the job's filesystem before it is judged shared.
const SHARED_SPARE_BYTES: u64 = 1 << 20;
/// As [`SHARED_SPARE_BYTES`], in requests.
const SHARED_SPARE_REQUESTS: u64 = 64;

/// A device whose counters are read.
#[derive(Clone, Debug, PartialEq)]
struct Device {
    /// The kernel's name: the sysfs directory's ("sda1", "loop3", "dm-0").
    name: String,
    stat: PathBuf,
}

/// Fields 1 to 11 of a `stat` file, in the kernel's order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Counters([u64; 11]);

/// The first 11 fields of a `/sys/block/DEV/stat` line (kernels since 4.18
/// add discard and flush fields after them); `None` when fewer are numbers.
pub(crate) fn parse(text: &str) -> Option<Counters> {
    let mut fields = [0u64; 11];
    let mut words = text.split_whitespace();
    for f in &mut fields {
        *f = words.next()?.parse().ok()?;
    }
    Some(Counters(fields))
}

/// What was counted between `before` and `after` over `time_ms` of wall
/// time. A counter that went back (the device was detached and another
/// took its name) counts as zero rather than wrapping.
pub(crate) fn since(name: &str, after: &Counters, before: &Counters, time_ms: u64) -> DiskUtil {
    let d = |i: usize| after.0[i].saturating_sub(before.0[i]);
    DiskUtil {
        name: name.to_string(),
        read_ios: d(0),
        read_merges: d(1),
        read_sectors: d(2),
        read_ticks: d(3),
        write_ios: d(4),
        write_merges: d(5),
        write_sectors: d(6),
        write_ticks: d(7),
        // Field 9 is the number in flight now, not a counter.
        io_ticks: d(9),
        in_queue: d(10),
        time_ms,
    }
}

/// The devices under `path` (see the module doc), the one holding it first.
fn devices_under(path: &Path) -> Vec<Device> {
    let Some((major, minor)) = probe::dev_numbers(path) else {
        return Vec::new();
    };
    let Ok(dir) = fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    add_device(&dir, 0, &mut found);
    found
}

fn add_device(dir: &Path, depth: usize, found: &mut Vec<Device>) {
    let Some(name) = dir.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return;
    };
    if found.iter().any(|d| d.name == name) {
        return;
    }
    found.push(Device {
        name,
        stat: dir.join("stat"),
    });
    if dir.join("partition").exists() {
        if let Some(disk) = dir.parent() {
            add_device(disk, depth, found);
        }
    }
    if depth >= MAX_SLAVE_DEPTH {
        return;
    }
    let Ok(slaves) = fs::read_dir(dir.join("slaves")) else {
        return;
    };
    let mut slaves: Vec<PathBuf> = slaves
        .flatten()
        .filter_map(|e| fs::canonicalize(e.path()).ok())
        .collect();
    slaves.sort();
    for slave in slaves {
        add_device(&slave, depth + 1, found);
    }
}

/// The name of the device holding a job's target.
fn job_device(spec: &JobSpec) -> Option<String> {
    let path = job_path(spec)?;
    devices_under(&path).into_iter().next().map(|d| d.name)
}

/// The counters of every device of a run, added up over its groups.
pub(crate) struct DiskWatch {
    devices: Vec<Device>,
    /// Each device's sum so far; `None` until one stretch was read whole.
    totals: Vec<Option<DiskUtil>>,
}

/// The counters read at the start of a stretch (`None`: unreadable).
pub(crate) struct Reading {
    at: Instant,
    counters: Vec<Option<Counters>>,
}

impl DiskWatch {
    /// The devices under every job's target, each once, in the jobs' order.
    pub(crate) fn new(groups: &[Vec<JobSpec>]) -> DiskWatch {
        let mut devices: Vec<Device> = Vec::new();
        let mut paths: Vec<PathBuf> = Vec::new();
        for path in groups.iter().flatten().filter_map(job_path) {
            if paths.contains(&path) {
                continue;
            }
            for d in devices_under(&path) {
                if !devices.iter().any(|k| k.name == d.name) {
                    devices.push(d);
                }
            }
            paths.push(path);
        }
        DiskWatch {
            totals: vec![None; devices.len()],
            devices,
        }
    }

    fn read_all(&self) -> Vec<Option<Counters>> {
        self.devices
            .iter()
            .map(|d| fs::read_to_string(&d.stat).ok().and_then(|t| parse(&t)))
            .collect()
    }

    /// Reads every device before a group's I/O.
    pub(crate) fn start(&self) -> Reading {
        let counters = self.read_all();
        Reading {
            at: Instant::now(),
            counters,
        }
    }

    /// Reads every device after a group's I/O: returns what this group
    /// moved on each device that was readable at both ends, and adds it to
    /// the run's totals.
    pub(crate) fn stop(&mut self, start: Reading) -> Vec<DiskUtil> {
        let time_ms = start.at.elapsed().as_millis() as u64;
        let now = self.read_all();
        let mut stretch = Vec::new();
        for (i, device) in self.devices.iter().enumerate() {
            let (Some(Some(before)), Some(Some(after))) = (start.counters.get(i), now.get(i))
            else {
                continue;
            };
            let delta = since(&device.name, after, before, time_ms);
            match &mut self.totals[i] {
                Some(total) => total.add(&delta),
                slot => *slot = Some(delta.clone()),
            }
            stretch.push(delta);
        }
        stretch
    }

    /// The run's figures, one per device that was read.
    pub(crate) fn result(self) -> Vec<DiskUtil> {
        self.totals.into_iter().flatten().collect()
    }
}

/// Whether every I/O of the job has the same size, `bs_bytes`.
fn one_block_size(spec: &JobSpec) -> bool {
    let fixed = |b: &BlockSizes| b.min_bytes() == spec.bs_bytes && b.max_bytes() == spec.bs_bytes;
    spec.block_sizes
        .as_ref()
        .is_none_or(|per| fixed(&per.read) && fixed(&per.write))
}

/// What each job of a group issued, reads and writes of all its clones,
/// the ramp included: what the device should have counted for it.
pub(crate) fn issued_by_job(
    jobs: usize,
    outcomes: &[WorkerOutcome],
    jobs_of: &[usize],
) -> Vec<Issued> {
    let mut issued = vec![Issued::default(); jobs];
    for (o, &j) in outcomes.iter().zip(jobs_of) {
        if let Some(sum) = issued.get_mut(j) {
            sum.ios += o.read.ios + o.write.ios + o.unmeasured.ios;
            sum.bytes += o.read.bytes + o.write.bytes + o.unmeasured.bytes;
        }
    }
    issued
}

/// The findings on each job of a group from what its device counted: a
/// [`Warning::DeviceShared`] when the device did work that was not the
/// job's, else a [`Warning::RequestsSplit`] when it received requests well
/// under the job's block size. Judged only where the counters can be held
/// against the job: it ran alone on its device (no other job of its group
/// there) with direct I/O (through the page cache, readahead and writeback
/// choose what reaches the device); the split also needs one block size.
pub(crate) fn device_warnings(
    group: &[JobSpec],
    issued: &[Issued],
    stretch: &[DiskUtil],
    warnings: &mut Vec<Warning>,
) {
    let devices: Vec<Option<String>> = group.iter().map(job_device).collect();
    for ((spec, device), ours) in group.iter().zip(&devices).zip(issued) {
        let Some(device) = device else {
            continue;
        };
        let alone = devices
            .iter()
            .filter(|d| d.as_ref() == Some(device))
            .count()
            == 1;
        if !alone || !spec.direct {
            continue;
        }
        let Some(counted) = stretch.iter().find(|d| d.name == *device) else {
            continue;
        };
        warnings.extend(judge(spec, *ours, counted, largest_request(device)));
    }
}

/// The largest request the device takes whole, from its queue's limits
/// (`max_sectors_kb`, and `max_segments` pages of 4 KiB); a partition's are
/// its disk's. `None` when sysfs does not say.
fn largest_request(device: &str) -> Option<u64> {
    let dev = Path::new("/sys/class/block").join(device);
    let queue = [dev.join("queue"), dev.join("../queue")]
        .into_iter()
        .find(|q| q.is_dir())?;
    let read = |name: &str| -> Option<u64> {
        fs::read_to_string(queue.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let sectors = read("max_sectors_kb")? * 1024;
    let segments = read("max_segments").map_or(u64::MAX, |n| n * PAGE_BYTES);
    Some(sectors.min(segments).max(PAGE_BYTES))
}

/// The finding on one job alone on its device (see [`device_warnings`]);
/// `largest` is the largest request the device takes whole, when known.
fn judge(
    spec: &JobSpec,
    ours: Issued,
    counted: &DiskUtil,
    largest: Option<u64>,
) -> Option<Warning> {
    let requests = counted.read_ios + counted.write_ios;
    let bytes = (counted.read_sectors + counted.write_sectors) * model::disk::KERNEL_SECTOR_BYTES;
    if ours.ios == 0 || requests == 0 {
        return None;
    }
    // What the job may have done uncounted (the I/Os in flight when its
    // clock stopped) and what its filesystem adds for it (journal,
    // metadata): a tenth, a queue's worth and a little more.
    let in_flight = u64::from(spec.iodepth.max(1)) * u64::from(spec.numjobs.max(1));
    let spare_bytes = ours.bytes / 10 + in_flight * spec.bs_bytes + SHARED_SPARE_BYTES;
    let spare_requests = ours.ios / 10 + in_flight + SHARED_SPARE_REQUESTS;
    let more_bytes = bytes > ours.bytes + spare_bytes;
    let more_requests = requests > ours.ios + spare_requests;
    // The kernel splits an I/O into pieces no larger than the device takes
    // whole, and never one of a page or less: more requests than the job's
    // I/Os in such pieces came from someone else.
    let pieces = largest.map_or(1, |l| spec.bs_bytes.div_ceil(l));
    let more_than_split = requests > ours.ios * pieces + spare_requests;
    let known = largest.is_some() || spec.bs_bytes <= PAGE_BYTES;
    if more_bytes || (more_requests && known && more_than_split) {
        return Some(Warning::DeviceShared {
            job: spec.name.clone(),
            device: counted.name.clone(),
            requests,
            bytes,
            job_ios: ours.ios,
            job_bytes: ours.bytes,
        });
    }
    let received = counted.mean_request_bytes()?;
    let split = one_block_size(spec)
        && spec.bs_bytes > PAGE_BYTES
        && (received as f64) <= SPLIT_SHARE * spec.bs_bytes as f64;
    split.then(|| Warning::RequestsSplit {
        job: spec.name.clone(),
        device: counted.name.clone(),
        asked_bytes: spec.bs_bytes,
        received_bytes: received,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line of a 6.x kernel: 17 fields.
    const LINE: &str = "  751097        0 18876030    63733    37030     6915   418376     \
                        3656        0     9028    68882       16        0  1245200      406       \
                        74     1086\n";

    #[test]
    fn the_first_eleven_fields_are_read() {
        let c = parse(LINE).unwrap();
        assert_eq!(
            c.0,
            [751097, 0, 18876030, 63733, 37030, 6915, 418376, 3656, 0, 9028, 68882]
        );
        // A kernel before 4.18 wrote exactly 11.
        assert!(parse("1 2 3 4 5 6 7 8 9 10 11").is_some());
    }

    #[test]
    fn bad_lines_are_refused_not_guessed() {
        for bad in [
            "",
            "1 2 3",
            "1 2 3 4 5 6 7 8 9 10 x",
            "-1 2 3 4 5 6 7 8 9 10 11",
        ] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_difference_maps_the_kernels_fields_to_fios() {
        let before = parse("10 1 80 5 20 2 160 7 3 100 200").unwrap();
        let after = parse("1034 1 8272 25 30 4 240 9 0 160 290").unwrap();
        let d = since("loop3", &after, &before, 120);
        assert_eq!(d.name, "loop3");
        assert_eq!((d.read_ios, d.write_ios), (1024, 10));
        assert_eq!((d.read_merges, d.write_merges), (0, 2));
        assert_eq!((d.read_sectors, d.write_sectors), (8192, 80));
        assert_eq!((d.read_ticks, d.write_ticks), (20, 2));
        assert_eq!((d.io_ticks, d.in_queue, d.time_ms), (60, 90, 120));
        assert_eq!(d.util(), 50.0);
    }

    #[test]
    fn a_counter_that_went_back_counts_zero() {
        let before = parse("100 0 800 5 0 0 0 0 0 10 10").unwrap();
        let after = parse("3 0 24 1 0 0 0 0 0 1 1").unwrap();
        let d = since("sda", &after, &before, 10);
        assert_eq!((d.read_ios, d.read_sectors, d.io_ticks), (0, 0, 0));
    }

    #[test]
    fn memory_has_no_device() {
        assert!(devices_under(Path::new("/dev/shm")).is_empty());
        assert!(devices_under(Path::new("/no/such/place")).is_empty());
    }

    /// A sysfs-like tree: sdb with partition sdb1, and dm-0 built on sdb1
    /// and sdc. (The kernel here finds no partitions on a loop device, so
    /// the layout is checked on its shape.)
    #[test]
    fn a_partition_brings_its_disk_and_a_dm_device_its_slaves() {
        let root = tempfile::tempdir().unwrap();
        let dir = |p: &str| {
            let d = root.path().join(p);
            fs::create_dir_all(d.join("slaves")).unwrap();
            fs::write(d.join("stat"), "0 0 0 0 0 0 0 0 0 0 0").unwrap();
            d
        };
        let (sdb, sdc, dm) = (dir("sdb"), dir("sdc"), dir("dm-0"));
        let sdb1 = dir("sdb/sdb1");
        fs::write(sdb1.join("partition"), "1").unwrap();
        std::os::unix::fs::symlink(&sdb1, dm.join("slaves/sdb1")).unwrap();
        std::os::unix::fs::symlink(&sdc, dm.join("slaves/sdc")).unwrap();
        let names = |start: &Path| {
            let mut found = Vec::new();
            add_device(start, 0, &mut found);
            found.into_iter().map(|d| d.name).collect::<Vec<_>>()
        };
        assert_eq!(names(&sdb1), ["sdb1", "sdb"]);
        assert_eq!(names(&sdb), ["sdb"]);
        assert_eq!(names(&dm), ["dm-0", "sdb1", "sdb", "sdc"]);
        // A slave that points back is met once.
        std::os::unix::fs::symlink(&dm, sdc.join("slaves/dm-0")).unwrap();
        assert_eq!(names(&dm), ["dm-0", "sdb1", "sdb", "sdc"]);
    }

    fn job(bs: u64, direct: bool) -> JobSpec {
        let mut spec = JobSpec::new("j");
        spec.bs_bytes = bs;
        spec.direct = direct;
        spec
    }

    fn counted(device: &str, requests: u64, sectors: u64) -> Vec<DiskUtil> {
        vec![DiskUtil {
            name: device.to_string(),
            read_ios: requests,
            read_sectors: sectors,
            ..DiskUtil::default()
        }]
    }

    /// The findings when the device moved exactly what each job issued, in
    /// `requests` requests.
    fn split_on(group: &[JobSpec], device: &str, requests: u64, sectors: u64) -> Vec<Warning> {
        let bytes = sectors * 512;
        let issued: Vec<Issued> = group
            .iter()
            .map(|j| Issued {
                ios: bytes / j.bs_bytes,
                bytes,
            })
            .collect();
        let mut warnings = Vec::new();
        device_warnings(
            group,
            &issued,
            &counted(device, requests, sectors),
            &mut warnings,
        );
        warnings
    }

    /// A 1 MiB job on a device that takes 1 MiB whole, whose mean request
    /// came out at 211.8 KiB only because another process's small requests
    /// were counted too: shared, not split. On a device that takes 256 KiB,
    /// four requests per I/O are the split, and said so.
    #[test]
    fn more_requests_than_the_limits_split_into_are_anothers() {
        let mut big = job(1 << 20, true);
        big.name = "big".into();
        let ours = Issued {
            ios: 1000,
            bytes: 1000 << 20,
        };
        let sectors = (1000u64 << 20) / 512;
        let device = |requests: u64| DiskUtil {
            name: "vda".into(),
            read_ios: requests,
            read_sectors: sectors,
            ..DiskUtil::default()
        };
        let shared = judge(&big, ours, &device(4835), Some(1 << 20));
        assert!(
            matches!(shared, Some(Warning::DeviceShared { .. })),
            "{shared:?}"
        );
        let split = judge(&big, ours, &device(4000), Some(256 << 10));
        assert!(
            matches!(
                split,
                Some(Warning::RequestsSplit {
                    received_bytes: 262144,
                    ..
                })
            ),
            "{split:?}"
        );
        // Limits unknown: the mean alone, as before.
        let split = judge(&big, ours, &device(4000), None);
        assert!(
            matches!(split, Some(Warning::RequestsSplit { .. })),
            "{split:?}"
        );
    }

    /// The test's own directory's device, and a job on it; `None` when the
    /// directory is on no device (then nothing can be judged).
    fn job_here(bs: u64) -> Option<(String, JobSpec)> {
        let here = std::env::current_dir().unwrap();
        let device = devices_under(&here).first().map(|d| d.name.clone())?;
        let mut one = job(bs, true);
        one.target = model::FileTarget::Named(here.join("f"));
        Some((device, one))
    }

    /// A 4 KiB job on a device that others used too: "vda received requests
    /// of 771 B on average for I/Os of 4.0 KiB" was said of a sweep, with
    /// advice to raise max_sectors_kb. The device was shared, and that is
    /// what is said, with how much of it was not the job's.
    #[test]
    fn a_device_others_used_is_said_shared_not_split() {
        let Some((device, small)) = job_here(4096) else {
            return;
        };
        let ours = Issued {
            ios: 10_000,
            bytes: 10_000 * 4096,
        };
        // 53,125 requests of 771 B on average: 43,125 were not the job's.
        let stretch = counted(&device, 53_125, 53_125 * 771 / 512);
        let mut w = Vec::new();
        device_warnings(std::slice::from_ref(&small), &[ours], &stretch, &mut w);
        assert!(
            matches!(
                &w[..],
                [Warning::DeviceShared {
                    requests: 53_125,
                    job_ios: 10_000,
                    ..
                }]
            ),
            "{w:?}"
        );
        let text = w[0].to_string();
        assert!(
            text.contains(
                "the device was shared: 81% of its requests during this test were not ours"
            ),
            "{text}"
        );
        // A 1 MiB job whose device moved three times its bytes: shared, not split.
        let (_, big) = job_here(1 << 20).unwrap();
        let ours = Issued {
            ios: 100,
            bytes: 100 << 20,
        };
        let stretch = counted(&device, 4000, 3 * (100 << 20) / 512);
        let mut w = Vec::new();
        device_warnings(std::slice::from_ref(&big), &[ours], &stretch, &mut w);
        assert!(matches!(&w[..], [Warning::DeviceShared { .. }]), "{w:?}");
        // The device moved what the job issued, one request each: nothing to say.
        let stretch = counted(&device, 100, (100 << 20) / 512);
        let mut w = Vec::new();
        device_warnings(std::slice::from_ref(&big), &[ours], &stretch, &mut w);
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn a_split_is_warned_only_for_a_direct_job_alone_with_one_bs() {
        // The test's own directory is on some device (or none: then no
        // warning can be judged, and the test has nothing to check).
        let here = std::env::current_dir().unwrap();
        let Some(device) = devices_under(&here).first().map(|d| d.name.clone()) else {
            return;
        };
        let mut one = job(1 << 20, true);
        one.target = model::FileTarget::Named(here.join("f"));
        // 1 MiB asked, 64 KiB received.
        let w = split_on(std::slice::from_ref(&one), &device, 16, 16 * 128);
        assert!(
            matches!(
                &w[..],
                [Warning::RequestsSplit {
                    received_bytes: 65536,
                    asked_bytes: 1048576,
                    ..
                }]
            ),
            "{w:?}"
        );
        let text = w[0].to_string();
        assert!(
            text.contains(&device) && text.contains("max_sectors_kb"),
            "{text}"
        );
        // Whole requests: nothing to say.
        assert!(split_on(std::slice::from_ref(&one), &device, 16, 16 * 2048).is_empty());
        // Buffered: the page cache chose the sizes.
        let mut buffered = one.clone();
        buffered.direct = false;
        assert!(split_on(&[buffered], &device, 16, 16 * 128).is_empty());
        // Two jobs on the device: the mean is a mix.
        assert!(split_on(&[one.clone(), one.clone()], &device, 16, 16 * 128).is_empty());
        // Several block sizes: the mean is a mix.
        let mut range = one;
        range.block_sizes = Some(model::job::PerDir::both(BlockSizes::Range {
            min_bytes: 4096,
            max_bytes: 1 << 20,
        }));
        assert!(split_on(&[range], &device, 16, 16 * 128).is_empty());
    }
}
