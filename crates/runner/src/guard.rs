//! Before writing to a block device: does it hold anything? A partition
//! table, a filesystem, LVM, RAID or swap signature, or a mount (of the
//! device, one of its partitions, or a device built on it) means the device
//! holds data diskbench did not create.
//!
//! Signatures are read from the magic numbers each format documents, at
//! their fixed offsets; nothing is guessed from sizes or names. The answer
//! names what was found ("an ext4 filesystem labelled data"), so the user
//! knows what a write would destroy.

use std::fs::{self, File};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

/// What a device's first bytes say it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Signature {
    Gpt,
    Mbr,
    Ext {
        version: &'static str,
        label: Option<String>,
    },
    Xfs {
        label: Option<String>,
    },
    Btrfs {
        label: Option<String>,
    },
    Fat {
        label: Option<String>,
    },
    Ntfs,
    Lvm2,
    MdRaid,
    Swap {
        label: Option<String>,
    },
}

impl std::fmt::Display for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let labelled =
            |f: &mut std::fmt::Formatter<'_>, what: &str, label: &Option<String>| match label {
                Some(l) => write!(f, "{what} labelled {l}"),
                None => write!(f, "{what}"),
            };
        match self {
            Signature::Gpt => write!(f, "a GPT partition table"),
            Signature::Mbr => write!(f, "an MBR partition table"),
            Signature::Ext { version, label } => {
                labelled(f, &format!("an {version} filesystem"), label)
            }
            Signature::Xfs { label } => labelled(f, "an XFS filesystem", label),
            Signature::Btrfs { label } => labelled(f, "a Btrfs filesystem", label),
            Signature::Fat { label } => labelled(f, "a FAT filesystem", label),
            Signature::Ntfs => write!(f, "an NTFS filesystem"),
            Signature::Lvm2 => write!(f, "an LVM2 physical volume"),
            Signature::MdRaid => write!(f, "a Linux RAID (md) member"),
            Signature::Swap { label } => labelled(f, "a swap area", label),
        }
    }
}

fn read(dev: &File, offset: u64, len: usize) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    match dev.read_at(&mut buf, offset) {
        Ok(n) => buf.truncate(n),
        Err(_) => buf.clear(),
    }
    buf
}

fn at(buf: &[u8], offset: usize, magic: &[u8]) -> bool {
    buf.get(offset..offset + magic.len()) == Some(magic)
}

fn le32(buf: &[u8], offset: usize) -> u32 {
    buf.get(offset..offset + 4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A NUL- or space-padded label, `None` when empty.
fn label(buf: &[u8], offset: usize, len: usize) -> Option<String> {
    let raw = buf.get(offset..offset + len)?;
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    let text = String::from_utf8_lossy(&raw[..end]).trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// Reads the signature of a device (or an image file), if it has one.
/// Filesystems are checked before partition tables, since a FAT or NTFS
/// boot sector also ends in the MBR's 0x55AA.
pub fn signature(dev: &File, size_bytes: u64) -> Option<Signature> {
    let head = read(dev, 0, 8192);
    let ext = 1024;
    if le32(&head, ext + 56) & 0xffff == 0xef53 {
        let compat = le32(&head, ext + 92);
        let incompat = le32(&head, ext + 96);
        let version = if incompat & 0x40 != 0 {
            "ext4"
        } else if compat & 0x4 != 0 {
            "ext3"
        } else {
            "ext2"
        };
        return Some(Signature::Ext {
            version,
            label: label(&head, ext + 120, 16),
        });
    }
    if at(&head, 0, b"XFSB") {
        return Some(Signature::Xfs {
            label: label(&head, 108, 12),
        });
    }
    let btrfs = read(dev, 0x10000, 0x200);
    if at(&btrfs, 0x40, b"_BHRfS_M") {
        return Some(Signature::Btrfs {
            label: label(&btrfs, 0x12b, 256),
        });
    }
    if at(&head, 3, b"NTFS    ") {
        return Some(Signature::Ntfs);
    }
    if at(&head, 82, b"FAT32   ") {
        return Some(Signature::Fat {
            label: label(&head, 71, 11),
        });
    }
    if at(&head, 54, b"FAT12   ") || at(&head, 54, b"FAT16   ") {
        return Some(Signature::Fat {
            label: label(&head, 43, 11),
        });
    }
    if at(&head, 512 + 24, b"LVM2 001") || at(&head, 512, b"LABELONE") {
        return Some(Signature::Lvm2);
    }
    if at(&head, 4086, b"SWAPSPACE2") || at(&head, 4086, b"SWAP-SPACE") {
        return Some(Signature::Swap {
            label: label(&head, 1024 + 28, 16),
        });
    }
    const MD_MAGIC: u32 = 0xa92b_4efc;
    let md090 = size_bytes.saturating_sub(65536) & !65535;
    if le32(&head, 0) == MD_MAGIC
        || le32(&head, 4096) == MD_MAGIC
        || (size_bytes >= 131072 && le32(&read(dev, md090, 4), 0) == MD_MAGIC)
    {
        return Some(Signature::MdRaid);
    }
    if at(&head, 512, b"EFI PART") || at(&head, 4096, b"EFI PART") {
        return Some(Signature::Gpt);
    }
    if at(&head, 510, &[0x55, 0xaa]) {
        return Some(Signature::Mbr);
    }
    None
}

/// Where the device, one of its partitions, or a device built on it (LVM,
/// dm-crypt, md: its holders) is mounted or used as swap, if anywhere.
pub fn in_use(device: &Path) -> Option<String> {
    let rdev = fs::metadata(device).ok()?.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let sys = fs::canonicalize(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    let mut numbers = Vec::new();
    collect_devices(&sys, &mut numbers, 0);
    let mountinfo = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    for line in mountinfo.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        if f.len() > 4 && numbers.iter().any(|n| n == f[2]) {
            return Some(format!("mounted at {}", f[4].replace("\\040", " ")));
        }
    }
    let swaps = fs::read_to_string("/proc/swaps").unwrap_or_default();
    for line in swaps.lines().skip(1) {
        let Some(path) = line.split_whitespace().next() else {
            continue;
        };
        if let Ok(m) = fs::metadata(path) {
            let n = format!("{}:{}", libc::major(m.rdev()), libc::minor(m.rdev()));
            if m.rdev() != 0 && numbers.contains(&n) {
                return Some(format!("in use as swap ({path})"));
            }
        }
    }
    None
}

/// `maj:min` of a /sys block device, its partitions and its holders, recursively.
fn collect_devices(sys: &Path, out: &mut Vec<String>, depth: u32) {
    if depth > 8 {
        return;
    }
    if let Ok(n) = fs::read_to_string(sys.join("dev")) {
        out.push(n.trim().to_string());
    }
    let name = sys
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let children: Vec<PathBuf> = fs::read_dir(sys)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&name))
                && p.join("partition").exists()
        })
        .collect();
    for child in children {
        collect_devices(&child, out, depth + 1);
    }
    for holder in fs::read_dir(sys.join("holders"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if let Ok(real) = fs::canonicalize(holder.path()) {
            collect_devices(&real, out, depth + 1);
        }
    }
}

/// Why writing to a block device is refused: what it holds, said with the
/// flag that would allow it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteRefusal {
    /// Mounted, or in use as swap, RAID or LVM (`use_` says which).
    #[error(
        "{device} is {use_}: writing to it would corrupt a live filesystem; unmount it (or swapoff) \
         first, or pass --allow-destructive --allow-mounted-write if you mean it",
        device = .device.display()
    )]
    InUse { device: PathBuf, use_: String },
    /// It holds a partition table, a filesystem, LVM, RAID or swap.
    #[error(
        "{device} holds {signature}: writing to it would destroy that; pass --allow-destructive if you mean it",
        device = .device.display()
    )]
    Holds { device: PathBuf, signature: String },
    /// Nothing recognised, but diskbench did not create it either.
    #[error(
        "{device} is a block device that diskbench did not create: writing to it destroys what it \
         holds; pass --allow-destructive if you mean it",
        device = .device.display()
    )]
    NotOurs { device: PathBuf },
}

/// Why writing to `device` is refused, or `Ok` when it may be written.
/// A mounted device is refused unless both flags are given (fio's
/// `allow_mounted_write`); a device with a signature, or any device diskbench
/// did not make, without `allow_destructive`.
pub fn check_writable(
    device: &Path,
    dev: &File,
    size: u64,
    allow_destructive: bool,
) -> Result<(), WriteRefusal> {
    check_device_write(device, dev, size, allow_destructive, false)
}

/// [`check_writable`] with fio's `allow_mounted_write` as well.
pub fn check_device_write(
    device: &Path,
    dev: &File,
    size: u64,
    allow_destructive: bool,
    allow_mounted_write: bool,
) -> Result<(), WriteRefusal> {
    let device_path = device.to_path_buf();
    if let Some(use_) = in_use(device) {
        if !(allow_destructive && allow_mounted_write) {
            return Err(WriteRefusal::InUse {
                device: device_path,
                use_,
            });
        }
    }
    if allow_destructive {
        return Ok(());
    }
    match signature(dev, size) {
        Some(sig) => Err(WriteRefusal::Holds {
            device: device_path,
            signature: sig.to_string(),
        }),
        None => Err(WriteRefusal::NotOurs {
            device: device_path,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn image(patches: &[(u64, &[u8])]) -> File {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&vec![0u8; 1 << 20]).unwrap();
        for (off, bytes) in patches {
            f.write_all_at(bytes, *off).unwrap();
        }
        f
    }

    #[test]
    fn each_magic_is_named() {
        let mut ext = [0u8; 140];
        ext[56..58].copy_from_slice(&0xef53u16.to_le_bytes());
        ext[96..100].copy_from_slice(&0x40u32.to_le_bytes());
        ext[120..124].copy_from_slice(b"data");
        let md = 0xa92b_4efcu32.to_le_bytes();
        type Patches<'a> = Vec<(u64, &'a [u8])>;
        let cases: Vec<(Patches, &str)> = vec![
            (vec![(1024, &ext[..])], "an ext4 filesystem labelled data"),
            (vec![(0, b"XFSB")], "an XFS filesystem"),
            (vec![(0x10040, b"_BHRfS_M")], "a Btrfs filesystem"),
            (
                vec![(3, b"NTFS    "), (510, &[0x55, 0xaa])],
                "an NTFS filesystem",
            ),
            (
                vec![
                    (82, b"FAT32   "),
                    (71, b"MYSTICK    "),
                    (510, &[0x55, 0xaa]),
                ],
                "a FAT filesystem labelled MYSTICK",
            ),
            (
                vec![(512, b"LABELONE"), (536, b"LVM2 001")],
                "an LVM2 physical volume",
            ),
            (vec![(4096, &md[..])], "a Linux RAID (md) member"),
            (vec![(4086, b"SWAPSPACE2")], "a swap area"),
            (
                vec![(512, b"EFI PART"), (510, &[0x55, 0xaa])],
                "a GPT partition table",
            ),
            (vec![(510, &[0x55, 0xaa])], "an MBR partition table"),
        ];
        for (patches, name) in cases {
            let f = image(&patches);
            let sig = signature(&f, 1 << 20).unwrap_or_else(|| panic!("nothing found for {name}"));
            assert_eq!(sig.to_string(), name);
        }
        assert_eq!(signature(&image(&[]), 1 << 20), None);
    }
}
