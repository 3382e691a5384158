//! What the machine says about itself: the provider and instance type from
//! DMI (`/sys/class/dmi/id`), the disk's kind and volume id from its model
//! and serial, its size. gp2 and gp3 (and most types) look the same from
//! inside a VM, so detection never names a type: it checks a declaration
//! and asks for one when a cloud disk is found undeclared.
//!
//! Everything is read under a root, `/` unless [`ROOT_VAR`] says otherwise,
//! so tests run on fake sysfs trees (`fixtures/sysfs/`).

use model::volume::{DetectedVolume, VolumeModel};
use std::path::{Path, PathBuf};

/// The variable only tests set: the directory that stands for `/`.
pub const ROOT_VAR: &str = "DISKBENCH_SYSFS_ROOT";

/// `/`, or the tests' fake tree.
pub fn sysfs_root() -> PathBuf {
    std::env::var_os(ROOT_VAR).map_or_else(|| PathBuf::from("/"), PathBuf::from)
}

fn read(root: &Path, rel: &str) -> Option<String> {
    let text = std::fs::read_to_string(root.join(rel)).ok()?;
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The provider and instance type, then the disk `device` (a kernel name
/// like `nvme1n1`) when given.
pub fn detect(root: &Path, device: Option<&str>) -> DetectedVolume {
    let dmi = |f: &str| read(root, &format!("sys/class/dmi/id/{f}"));
    let vendor = dmi("sys_vendor").unwrap_or_default();
    let product = dmi("product_name").unwrap_or_default();
    let bios = dmi("bios_vendor").unwrap_or_default();
    let chassis_tag = dmi("chassis_asset_tag").unwrap_or_default();
    let mut d = DetectedVolume::default();
    if vendor == "Amazon EC2" || bios == "Amazon EC2" {
        d.provider = Some("aws".into());
        d.instance_type = product.contains('.').then(|| product.clone());
    } else if vendor == "Microsoft Corporation" && chassis_tag == AZURE_ASSET_TAG {
        d.provider = Some("azure".into());
    } else if vendor == "Google" || product == "Google Compute Engine" {
        d.provider = Some("gcp".into());
    } else if vendor == "DigitalOcean" {
        d.provider = Some("digitalocean".into());
    }
    if let Some(dev) = device {
        let model = read(root, &format!("sys/block/{dev}/device/model"));
        let vendor = read(root, &format!("sys/block/{dev}/device/vendor")).unwrap_or_default();
        let serial = read(root, &format!("sys/block/{dev}/device/serial"));
        d.disk_kind = model.as_deref().and_then(|m| disk_kind(&vendor, m));
        if d.disk_kind.as_deref() == Some("EBS") {
            d.volume_id = serial.as_deref().and_then(ebs_volume_id);
        }
        d.device_bytes = read(root, &format!("sys/block/{dev}/size"))
            .and_then(|s| s.parse::<u64>().ok())
            .map(|sectors| sectors * 512);
    }
    d
}

/// Azure writes this chassis asset tag on every VM.
const AZURE_ASSET_TAG: &str = "7783-7084-3265-9085-8269-3286-77";

/// The kind of disk a device model (and SCSI vendor) names.
fn disk_kind(vendor: &str, model: &str) -> Option<String> {
    let kind = match (vendor, model) {
        (_, "Amazon Elastic Block Store") => "EBS",
        (_, "Amazon EC2 NVMe Instance Storage") => "EC2 instance store",
        (_, "nvme_card-pd") | ("Google", "PersistentDisk") => "GCE persistent disk",
        (_, "nvme_card") | ("Google", "EphemeralDisk") => "GCE local SSD",
        ("Msft", "Virtual Disk") | (_, "MSFT NVMe Accelerator v1.0") => "Azure managed disk",
        (_, "Microsoft NVMe Direct Disk") | (_, "Microsoft NVMe Direct Disk v2") => {
            "Azure local NVMe"
        }
        ("DO", "Volume") => "DigitalOcean volume",
        _ => return None,
    };
    Some(kind.to_string())
}

/// EBS puts the volume id in the NVMe serial without its dash: `vol0123...`.
fn ebs_volume_id(serial: &str) -> Option<String> {
    let rest = serial.strip_prefix("vol")?;
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    (!rest.is_empty() && rest.chars().all(|c| c.is_ascii_hexdigit())).then(|| format!("vol-{rest}"))
}

/// The providers whose volumes a disk kind belongs to.
fn kind_provider(kind: &str) -> Option<&'static str> {
    match kind {
        "EBS" => Some("aws"),
        "GCE persistent disk" => Some("gcp"),
        "Azure managed disk" => Some("azure"),
        "DigitalOcean volume" => Some("digitalocean"),
        _ => None,
    }
}

/// Where the declaration and the machine disagree, each naming both values.
pub fn contradictions(m: &VolumeModel, d: &DetectedVolume, device: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(p) = d.provider.as_deref().filter(|&p| p != m.provider) {
        out.push(format!(
            "--volume declares a {} volume, but this machine is on {p} (DMI)",
            m.provider
        ));
    }
    if let Some(kind) = &d.disk_kind {
        match kind_provider(kind) {
            Some(p) if p != m.provider => out.push(format!(
                "--volume declares {} {}, but the device is a {kind}",
                m.provider, m.volume_type
            )),
            None => out.push(format!(
                "--volume declares {} {}, but the device is {kind} (a local disk, not a network volume)",
                m.provider, m.volume_type
            )),
            _ => {}
        }
    }
    if let Some(bytes) = d.device_bytes {
        let gib = bytes as f64 / (1u64 << 30) as f64;
        let declared = m.size_gib;
        let off = (gib - declared).abs() / declared;
        // A tier declared without a size: any disk up to the tier's size.
        let tier_only =
            m.tier.is_some() && !m.spec.to_ascii_lowercase().contains("gib") && gib <= declared;
        if off > 0.01 && !tier_only {
            out.push(format!(
                "--volume declares {} GiB, but the device{} holds {:.1} GiB: the figures are for {} GiB",
                fmt_gib(declared),
                device.map(|d| format!(" {d}")).unwrap_or_default(),
                gib,
                fmt_gib(declared)
            ));
        }
    }
    out
}

fn fmt_gib(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// For a cloud disk nobody declared: what it is and how to declare it.
pub fn undeclared_note(d: &DetectedVolume) -> Option<String> {
    let kind = d.disk_kind.as_deref()?;
    let provider = kind_provider(kind)?;
    let examples = match provider {
        "aws" => "aws:gp2:SIZE or aws:gp3:SIZE (EBS does not say which from inside the VM)",
        "gcp" => "gcp:pd-balanced:SIZE, gcp:pd-ssd:SIZE, ...",
        "azure" => "azure:P10, azure:standard-ssd:SIZE, ...",
        _ => "digitalocean:volume:SIZE",
    };
    let id = d
        .volume_id
        .as_deref()
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    let on = d
        .instance_type
        .as_deref()
        .map(|i| format!(" on {i}"))
        .unwrap_or_default();
    Some(format!(
        "the target is a {kind}{id}{on}: declare it with --volume {examples} to see the figures held against its published model"
    ))
}

/// How many CPUs the machine has, from sysfs (GCE caps disks by vCPUs).
pub fn vcpus(root: &Path) -> Option<u32> {
    let dir = std::fs::read_dir(root.join("sys/devices/system/cpu")).ok()?;
    let n = dir
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.strip_prefix("cpu")
                .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
        })
        .count();
    (n > 0).then_some(n as u32)
}
