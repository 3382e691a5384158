//! Facts about the host and the target (filesystem, device, model, size,
//! scheduler), read from /proc and /sys. Every fact is optional: a missing
//! one is shown as unknown, never guessed.

use engine::sys;
use model::{HostInfo, TargetInfo};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

fn read_trim(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

pub fn host() -> HostInfo {
    let cpu_model = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_default();
    HostInfo {
        hostname: read_trim("/proc/sys/kernel/hostname").unwrap_or_default(),
        kernel: read_trim("/proc/sys/kernel/osrelease").unwrap_or_default(),
        cpu_model,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
        mem_bytes: mem_total_bytes().unwrap_or(0),
    }
}

pub fn mem_total_bytes() -> Option<u64> {
    let s = fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The /sys/block directory of the whole disk behind `majmin` ("254:0").
fn disk_dir(major: u32, minor: u32) -> Option<PathBuf> {
    let dev = fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    if dev.join("partition").exists() {
        dev.parent().map(Path::to_path_buf)
    } else {
        Some(dev)
    }
}

/// The device numbers of the block device `path` is, or holds it; `None`
/// for a file on no block device (major 0: tmpfs, NFS, btrfs's anonymous
/// numbers).
pub(crate) fn dev_numbers(path: &Path) -> Option<(u32, u32)> {
    let meta = fs::metadata(path).ok()?;
    let dev = if meta.file_type().is_block_device() {
        meta.rdev()
    } else {
        meta.dev()
    };
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    (major != 0).then_some((major, minor))
}

pub fn logical_block_size_of(path: &Path) -> Option<u64> {
    let (ma, mi) = dev_numbers(path)?;
    read_trim(disk_dir(ma, mi)?.join("queue/logical_block_size"))?
        .parse()
        .ok()
}

/// The `queue/io_poll` file of the disk behind `path` (`/sys/block/DEV/...`)
/// and what it says: 1 when the disk has poll queues, which `hipri` needs.
pub fn io_poll(path: &Path) -> Option<(PathBuf, Option<String>)> {
    let (ma, mi) = dev_numbers(path)?;
    let dir = disk_dir(ma, mi)?;
    let value = read_trim(dir.join("queue/io_poll"));
    let name = dir.file_name()?;
    Some((
        Path::new("/sys/block").join(name).join("queue/io_poll"),
        value,
    ))
}

struct Mount {
    point: PathBuf,
    fstype: String,
    source: String,
    options: String,
}

/// The mount holding `path`: the longest mount point that prefixes it.
fn mount_of(path: &Path) -> Option<Mount> {
    let info = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut best: Option<Mount> = None;
    for line in info.lines() {
        let (left, right) = line.split_once(" - ")?;
        let l: Vec<&str> = left.split(' ').collect();
        let r: Vec<&str> = right.split(' ').collect();
        if l.len() < 6 || r.len() < 2 {
            continue;
        }
        let point = PathBuf::from(l[4].replace("\\040", " "));
        if path.starts_with(&point)
            && best
                .as_ref()
                .is_none_or(|b| point.as_os_str().len() >= b.point.as_os_str().len())
        {
            best = Some(Mount {
                point,
                fstype: r[0].to_string(),
                source: r[1].to_string(),
                options: l[5].to_string(),
            });
        }
    }
    best
}

/// Why files cannot be written under `dir` when its mount is read-only:
/// the message names the mount and the two ways out.
pub fn read_only_refusal(dir: &Path) -> Option<String> {
    let abs = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let m = mount_of(&abs)?;
    if !m.options.split(',').any(|o| o == "ro") {
        return None;
    }
    Some(format!(
        "{} is on a read-only file system ({} mounted ro at {}): choose a directory on a \
         writable file system, or remount it read-write (mount -o remount,rw {})",
        dir.display(),
        m.fstype,
        m.point.display(),
        m.point.display()
    ))
}

pub fn target(path: &Path) -> TargetInfo {
    let abs = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mut info = TargetInfo {
        path: abs.display().to_string(),
        ..TargetInfo::default()
    };
    if let Some(m) = mount_of(&abs) {
        info.filesystem = Some(m.fstype);
        info.mount_source = Some(m.source);
        info.mount_options = Some(m.options);
    }
    let is_dev = fs::metadata(&abs).is_ok_and(|m| m.file_type().is_block_device());
    let space_path = if is_dev { None } else { Some(abs.as_path()) };
    if let Some(p) = space_path {
        if let Ok((free, _)) = sys::free_space(p) {
            info.free_bytes = Some(free);
        }
    }
    if let Some(disk) = dev_numbers(&abs).and_then(|(a, b)| disk_dir(a, b)) {
        info.device = disk.file_name().map(|n| n.to_string_lossy().into_owned());
        info.model = read_trim(disk.join("device/model"))
            .or_else(|| read_trim(disk.join("device/name")))
            .or_else(|| read_trim(disk.join("loop/backing_file")));
        info.device_bytes = read_trim(disk.join("size"))
            .and_then(|s| s.parse::<u64>().ok())
            .map(|s| s * 512);
        info.rotational = read_trim(disk.join("queue/rotational")).map(|r| r == "1");
        info.scheduler = read_trim(disk.join("queue/scheduler")).map(|s| {
            s.split_whitespace()
                .find(|w| w.starts_with('['))
                .map(|w| w.trim_matches(|c| c == '[' || c == ']').to_string())
                .unwrap_or(s)
        });
        info.logical_block_bytes =
            read_trim(disk.join("queue/logical_block_size")).and_then(|s| s.parse().ok());
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_facts_are_read() {
        let h = host();
        assert!(h.cpus >= 1);
        assert!(h.mem_bytes > 0);
        assert!(!h.kernel.is_empty());
    }

    #[test]
    fn target_of_tmp_has_a_filesystem_and_free_space() {
        let t = target(Path::new("/tmp"));
        assert!(t.filesystem.is_some());
        assert!(t.free_bytes.is_some());
        let shm = target(Path::new("/dev/shm"));
        assert_eq!(shm.filesystem.as_deref(), Some("tmpfs"));
        assert_eq!(shm.device, None);
    }
}
