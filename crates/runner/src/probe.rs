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
        machine_id: read_trim("/etc/machine-id").or_else(|| read_trim("/var/lib/dbus/machine-id")),
        vendor: read_trim("/sys/class/dmi/id/sys_vendor"),
        product: read_trim("/sys/class/dmi/id/product_name"),
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
    queue_attr(path, "io_poll")
}

/// The file `queue/NAME` of the disk behind `path`, named as
/// `/sys/block/DEV/queue/NAME`, and what it says.
pub fn queue_attr(path: &Path, name: &str) -> Option<(PathBuf, Option<String>)> {
    let (ma, mi) = dev_numbers(path)?;
    let dir = disk_dir(ma, mi)?;
    let value = read_trim(dir.join("queue").join(name));
    let disk = dir.file_name()?;
    Some((
        Path::new("/sys/block").join(disk).join("queue").join(name),
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

/// Why files cannot be written under `dir`: its mount is read-only (the
/// message names the mount and the two ways out), or its permissions shut
/// this user out. Either is the user's to fix by choosing another place,
/// so callers make it a usage error, found before anything is printed.
pub fn read_only_refusal(dir: &Path) -> Option<String> {
    let abs = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let read_only_mount = mount_of(&abs).filter(|m| m.options.split(',').any(|o| o == "ro"));
    let Some(m) = read_only_mount else {
        return match sys::may_write_in(&abs) {
            Err(e) if e.raw_os_error() == Some(libc::EACCES) => Some(format!(
                "{} is not writable by this user ({e}): choose a directory you can write to, \
                 or change its permissions",
                dir.display()
            )),
            _ => None,
        };
    };
    Some(format!(
        "{} is on a read-only file system ({} mounted ro at {}): choose a directory on a \
         writable file system, or remount it read-write (mount -o remount,rw {})",
        dir.display(),
        m.fstype,
        m.point.display(),
        m.point.display()
    ))
}

/// Hypervisors and storage services that show up as a SCSI, ATA or NVMe
/// disk's vendor or model (a prefix of either): their disks are virtual too.
const VIRTUAL_VENDORS: [(&str, &str); 8] = [
    ("QEMU", "QEMU"),
    ("VMware", "VMware"),
    ("Virtual disk", "VMware"),
    ("Msft", "Hyper-V"),
    ("VBOX", "VirtualBox"),
    ("Google", "Google Persistent Disk"),
    ("nvme_card-pd", "Google Persistent Disk"),
    ("Amazon Elastic Block Store", "Amazon EBS"),
];

/// What makes the disk at `disk` (its /sys/block/DEV directory) a virtual
/// one, or `None` for a disk that looks physical. A paravirtual disk reports
/// rotational=1 and no model whatever backs it, so the target header must
/// not present those as facts. In order: the driver (`virtio_blk`, Xen's
/// `vbd`), NVMe's transport (anything but PCIe is over a network), a vendor
/// or model a hypervisor uses, then the kernel name (`vd*`, `xvd*`) for a
/// /sys without the driver link.
pub fn virtual_disk(disk: &Path) -> Option<String> {
    let device = disk.join("device");
    let driver = fs::read_link(device.join("driver"))
        .ok()
        .and_then(|l| l.file_name().map(|n| n.to_string_lossy().into_owned()));
    match driver.as_deref() {
        Some("virtio_blk") => return Some("virtio".into()),
        Some("vbd") => return Some("Xen".into()),
        _ => {}
    }
    if let Some(transport) = read_trim(device.join("transport")) {
        let network = match transport.as_str() {
            "tcp" => Some("NVMe over TCP"),
            "rdma" => Some("NVMe over RDMA"),
            "fc" => Some("NVMe over Fibre Channel"),
            "loop" => Some("NVMe loopback"),
            _ => None,
        };
        if let Some(kind) = network {
            return Some(kind.into());
        }
    }
    for fact in ["vendor", "model"] {
        if let Some(value) = read_trim(device.join(fact)) {
            let found = VIRTUAL_VENDORS
                .iter()
                .find(|(prefix, _)| value.starts_with(prefix));
            if let Some((_, kind)) = found {
                return Some((*kind).into());
            }
        }
    }
    let name = disk.file_name()?.to_str()?;
    let lettered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_lowercase()))
    };
    if lettered("xvd") {
        Some("Xen".into())
    } else if lettered("vd") {
        Some("virtio".into())
    } else {
        None
    }
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
        info.virtual_disk = virtual_disk(&disk);
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

    /// A fake /sys/block/DEV: `files` are (path under it, content), and
    /// `driver` the name the `device/driver` link points at.
    fn fake_disk(name: &str, driver: Option<&str>, files: &[(&str, &str)]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let disk = root.path().join(name);
        fs::create_dir_all(disk.join("device")).unwrap();
        if let Some(d) = driver {
            let target = root.path().join("bus/drivers").join(d);
            fs::create_dir_all(&target).unwrap();
            std::os::unix::fs::symlink(target, disk.join("device/driver")).unwrap();
        }
        for (path, content) in files {
            fs::write(disk.join(path), content).unwrap();
        }
        root
    }

    #[test]
    fn virtual_disks_are_recognised_and_physical_ones_are_not() {
        /// (kernel name, driver, files under /sys/block/NAME, expected kind)
        type Case<'a> = (
            &'a str,
            Option<&'a str>,
            &'a [(&'a str, &'a str)],
            Option<&'a str>,
        );
        let cases: [Case; 8] = [
            (
                "vda",
                Some("virtio_blk"),
                &[("device/vendor", "0x1af4\n")],
                Some("virtio"),
            ),
            ("xvda", Some("vbd"), &[], Some("Xen")),
            (
                "nvme1n1",
                None,
                &[("device/transport", "tcp\n")],
                Some("NVMe over TCP"),
            ),
            (
                "nvme0n1",
                None,
                &[
                    ("device/transport", "pcie\n"),
                    ("device/model", "Samsung SSD 980\n"),
                ],
                None,
            ),
            (
                "nvme0n1",
                None,
                &[
                    ("device/transport", "pcie\n"),
                    ("device/model", "Amazon Elastic Block Store\n"),
                ],
                Some("Amazon EBS"),
            ),
            (
                "sda",
                Some("sd"),
                &[
                    ("device/vendor", "QEMU    \n"),
                    ("device/model", "QEMU HARDDISK\n"),
                ],
                Some("QEMU"),
            ),
            (
                "sda",
                Some("sd"),
                &[
                    ("device/vendor", "ATA     \n"),
                    ("device/model", "WDC WD40EFRX-68N\n"),
                ],
                None,
            ),
            // No driver link (an old or partial /sys): the kernel name says it.
            ("vdb", None, &[], Some("virtio")),
        ];
        for (name, driver, files, expected) in cases {
            let root = fake_disk(name, driver, files);
            let found = virtual_disk(&root.path().join(name));
            assert_eq!(found.as_deref(), expected, "{name} {driver:?} {files:?}");
        }
        // A name that only starts like one is not one.
        let root = fake_disk("vd0", None, &[]);
        assert_eq!(virtual_disk(&root.path().join("vd0")), None);
    }

    /// This machine's own disk, when it is a virtio one (as in most clouds and CI).
    #[test]
    fn a_virtio_target_says_so() {
        let t = target(Path::new(env!("CARGO_MANIFEST_DIR")));
        let Some(device) = t.device.clone() else {
            return;
        };
        let driver = fs::read_link(format!("/sys/block/{device}/device/driver"));
        if driver.is_ok_and(|d| d.ends_with("virtio_blk")) {
            assert_eq!(t.virtual_disk.as_deref(), Some("virtio"), "{t:?}");
        }
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
