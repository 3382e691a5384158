//! Detection on fake sysfs trees (`fixtures/sysfs/`): an EBS-backed Nitro
//! instance, an Azure VM, a GCE VM and a bare-metal box. A type is never
//! guessed: detection names the provider, instance, disk kind and size,
//! and a declaration that contradicts them is said with both values.

use diskbench_volumes::detect::{contradictions, detect, undeclared_note, vcpus};
use diskbench_volumes::{resolve, Catalogue, VolumeSpec};
use std::path::PathBuf;

fn tree(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sysfs")
        .join(name)
}

fn model(text: &str) -> model::volume::VolumeModel {
    resolve(&VolumeSpec::parse(text).unwrap(), Catalogue::builtin()).unwrap()
}

#[test]
fn an_ebs_volume_on_nitro_gives_its_instance_volume_id_and_size() {
    let d = detect(&tree("ebs-nitro"), Some("nvme1n1"));
    assert_eq!(d.provider.as_deref(), Some("aws"));
    assert_eq!(d.instance_type.as_deref(), Some("m5.large"));
    assert_eq!(d.disk_kind.as_deref(), Some("EBS"));
    assert_eq!(d.volume_id.as_deref(), Some("vol-0a1b2c3d4e5f67890"));
    assert_eq!(d.device_bytes, Some(100 << 30));
    assert_eq!(vcpus(&tree("ebs-nitro")), Some(2));
    // gp2 or gp3 cannot be told from inside: asked for, not guessed.
    let note = undeclared_note(&d).unwrap();
    assert!(note.contains("aws:gp2:SIZE or aws:gp3:SIZE"), "{note}");
    assert!(
        note.contains("vol-0a1b2c3d4e5f67890") && note.contains("m5.large"),
        "{note}"
    );
    assert!(contradictions(&model("aws:gp2:100GiB"), &d, Some("nvme1n1")).is_empty());
    let said = contradictions(&model("aws:gp2:500GiB"), &d, Some("nvme1n1"));
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains("500 GiB") && said[0].contains("100.0 GiB"),
        "{said:?}"
    );
    // Its instance's EBS limits come from the table.
    let limit =
        diskbench_volumes::predict::instance_limit(Catalogue::builtin(), &d, "gp2", Some(2))
            .unwrap();
    assert_eq!(
        (limit.baseline_iops, limit.burst_iops),
        (3600.0, Some(18750.0))
    );
    // Instance storage is not a network volume.
    let local = detect(&tree("ebs-nitro"), Some("nvme2n1"));
    assert_eq!(local.disk_kind.as_deref(), Some("EC2 instance store"));
    assert_eq!(local.volume_id, None);
    let said = contradictions(&model("aws:gp3:75GiB"), &local, None);
    assert!(said.iter().any(|s| s.contains("local disk")), "{said:?}");
}

#[test]
fn an_azure_vm_and_its_managed_disk() {
    let d = detect(&tree("azure"), Some("sdc"));
    assert_eq!(d.provider.as_deref(), Some("azure"));
    assert_eq!(d.disk_kind.as_deref(), Some("Azure managed disk"));
    assert_eq!(d.device_bytes, Some(128 << 30));
    assert!(contradictions(&model("azure:P10"), &d, Some("sdc")).is_empty());
    let said = contradictions(&model("aws:gp2:128GiB"), &d, Some("sdc"));
    assert!(
        said.iter()
            .any(|s| s.contains("aws") && s.contains("azure")),
        "{said:?}"
    );
}

#[test]
fn a_gce_vm_over_nvme_and_scsi_with_its_vcpu_cap() {
    for dev in ["nvme0n2", "sdb"] {
        let d = detect(&tree("gce"), Some(dev));
        assert_eq!(d.provider.as_deref(), Some("gcp"), "{dev}");
        assert_eq!(d.disk_kind.as_deref(), Some("GCE persistent disk"), "{dev}");
        assert_eq!(d.device_bytes, Some(200 << 30));
    }
    let d = detect(&tree("gce"), Some("sdb"));
    assert_eq!(vcpus(&tree("gce")), Some(8));
    let cap =
        diskbench_volumes::predict::instance_limit(Catalogue::builtin(), &d, "pd-ssd", Some(8))
            .unwrap();
    assert_eq!(cap.baseline_iops, 15000.0);
    assert!(contradictions(&model("gcp:pd-ssd:200GB"), &d, None).is_empty());
}

#[test]
fn bare_metal_is_no_cloud_and_nothing_is_asked() {
    let d = detect(&tree("bare-metal"), Some("nvme0n1"));
    assert_eq!((d.provider.as_ref(), d.disk_kind.as_ref()), (None, None));
    assert_eq!(undeclared_note(&d), None);
    assert_eq!(d.device_bytes, Some(1_875_385_008 * 512));
    // A missing tree or device says nothing rather than failing.
    let nothing = detect(&tree("no-such-tree"), Some("sda"));
    assert_eq!(nothing, Default::default());
}
