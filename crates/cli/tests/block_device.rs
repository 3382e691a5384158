//! Block devices: reading is allowed, writing needs --allow-destructive.
//! Uses a loop device over a scratch file, never a real disk.

mod common;
use common::*;
use std::process::Command as StdCommand;

#[test]
fn writes_to_a_block_device_need_allow_destructive() {
    let dir = real_dir();
    let image = dir.path().join("disk.img");
    let pattern: Vec<u8> = (0..(4u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&image, &pattern).unwrap();
    let Some(dev) = Loop::attach(&image) else {
        testbed::skip("needs root and a free loop device");
        return;
    };
    let filename = format!("--filename={}", dev.device);

    let out = diskbench()
        .args(["fio", "--name=w", "--rw=write", "--bs=64k", &filename])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_of(&out).contains("--allow-destructive"),
        "{}",
        stderr_of(&out)
    );
    assert_eq!(
        std::fs::read(&image).unwrap(),
        pattern,
        "the device was written"
    );

    let out = diskbench()
        .args([
            "fio",
            "--name=r",
            "--rw=read",
            "--bs=64k",
            "--direct=1",
            "--output-format=json",
            &filename,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(json_of(&out)["jobs"][0]["read"]["io_bytes"], 4 << 20);

    let out = diskbench()
        .args([
            "fio",
            "--allow-destructive",
            "--name=w",
            "--rw=write",
            "--bs=64k",
            &filename,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_ne!(std::fs::read(&image).unwrap(), pattern);
}

/// A loop device over a fresh 64 MiB image, prepared by `setup` (mkfs etc.).
fn prepared(
    dir: &std::path::Path,
    setup: &dyn Fn(&std::path::Path, &str) -> bool,
) -> Option<(Loop, std::path::PathBuf)> {
    let image = dir.join("disk.img");
    std::fs::write(&image, vec![0u8; 64 << 20]).unwrap();
    let dev = Loop::attach(&image)?;
    if !setup(&image, &dev.device) {
        testbed::skip(format!("could not prepare {}", dev.device));
        return None;
    }
    Some((dev, image))
}

fn write_job(dev: &str, extra: &[&str]) -> std::process::Output {
    diskbench()
        .args([
            "fio",
            "--name=w",
            "--rw=write",
            "--bs=64k",
            "--size=1m",
            "--no-save",
        ])
        .arg(format!("--filename={dev}"))
        .args(extra)
        .output()
        .unwrap()
}

fn ok(cmd: &mut StdCommand) -> bool {
    cmd.output().is_ok_and(|o| o.status.success())
}

#[test]
fn a_filesystem_is_named_and_a_mounted_one_is_refused_even_with_allow_destructive() {
    let dir = real_dir();
    let Some((dev, _image)) = prepared(dir.path(), &|_, d| {
        ok(StdCommand::new("mkfs.ext4").args(["-q", "-F", "-L", "data", d]))
    }) else {
        testbed::skip("needs root, a loop device and mkfs.ext4");
        return;
    };
    let out = write_job(&dev.device, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(
        err.contains("holds an ext4 filesystem labelled data"),
        "{err}"
    );

    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    if ok(StdCommand::new("mount").arg(&dev.device).arg(&mnt)) {
        let out = write_job(&dev.device, &["--allow-destructive"]);
        let _ = StdCommand::new("umount").arg(&mnt).status();
        assert_eq!(out.status.code(), Some(1));
        let err = stderr_of(&out);
        assert!(err.contains("mounted at"), "{err}");
        assert!(
            err.contains("--allow-mounted-write"),
            "the way out is named: {err}"
        );
    } else {
        testbed::skip("the mounted case: mount failed");
    }
    let out = write_job(&dev.device, &["--allow-destructive"]);
    assert!(out.status.success(), "{}", stderr_of(&out));
}

#[test]
fn swap_and_gpt_signatures_are_named() {
    let dir = real_dir();
    if let Some((dev, _)) = prepared(dir.path(), &|_, d| {
        ok(StdCommand::new("mkswap").args(["-L", "sw", d]))
    }) {
        let err = stderr_of(&write_job(&dev.device, &[]));
        assert!(err.contains("holds a swap area labelled sw"), "{err}");
    }
    let gpt = |image: &std::path::Path, _: &str| {
        use std::os::unix::fs::FileExt;
        let f = std::fs::OpenOptions::new().write(true).open(image).unwrap();
        f.write_all_at(&[0x55, 0xaa], 510).is_ok() && f.write_all_at(b"EFI PART", 512).is_ok()
    };
    if let Some((dev, _)) = prepared(dir.path(), &gpt) {
        let err = stderr_of(&write_job(&dev.device, &[]));
        assert!(err.contains("holds a GPT partition table"), "{err}");
    }
}

/// Every size a job can issue is checked against the device's direct I/O
/// alignment before any I/O: one 512-byte entry of a `bssplit` on a device
/// with 4 KiB sectors used to fail with EINVAL in the middle of the run.
#[test]
fn every_block_size_is_checked_against_the_sector_size_before_any_io() {
    let dir = real_dir();
    let image = dir.path().join("4k.img");
    std::fs::File::create(&image)
        .unwrap()
        .set_len(32 << 20)
        .unwrap();
    let Some(dev) = Loop::attach_with(&image, &["-b", "4096"]) else {
        testbed::skip("needs root and a free loop device");
        return;
    };
    let filename = format!("--filename={}", dev.device);
    let refused = [
        ("--rw=randread --bssplit=512/50:4k/50", "bssplit size=512"),
        ("--rw=randread --bsrange=512-8k", "bsrange size=512"),
        ("--rw=randrw --bs=4k,512", "bs (writes)=512"),
    ];
    for (job, named) in refused {
        let out = diskbench()
            .args(["fio", "--name=a", "--direct=1", "--size=16m", "--no-save"])
            .args(["--allow-destructive", &filename])
            .args(job.split_whitespace())
            .output()
            .unwrap();
        let err = stderr_of(&out);
        assert_eq!(out.status.code(), Some(1), "{job}: {err}");
        assert!(err.contains(named) && err.contains("4096"), "{job}: {err}");
        assert!(!err.contains("os error"), "{job} reached the device: {err}");
    }
    let out = diskbench()
        .args(["fio", "--name=a", "--direct=1", "--size=16m", "--no-save"])
        .args(["--rw=randread", "--bssplit=4k/50:16k/50", &filename])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}
