//! Block devices: reading is allowed, writing needs --allow-destructive.
//! Uses a loop device over a scratch file, never a real disk.

mod common;
use common::*;
use std::process::Command as StdCommand;

struct Loop {
    device: String,
}

impl Loop {
    fn attach(image: &std::path::Path) -> Option<Loop> {
        if !is_root() {
            return None;
        }
        let out = StdCommand::new("losetup")
            .args(["-f", "--show"])
            .arg(image)
            .output()
            .ok()?;
        out.status.success().then(|| Loop {
            device: String::from_utf8_lossy(&out.stdout).trim().to_string(),
        })
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = StdCommand::new("losetup")
            .args(["-d", &self.device])
            .status();
    }
}

#[test]
fn writes_to_a_block_device_need_allow_destructive() {
    let dir = real_dir();
    let image = dir.path().join("disk.img");
    let pattern: Vec<u8> = (0..(4u32 << 20)).map(|i| (i % 251) as u8).collect();
    std::fs::write(&image, &pattern).unwrap();
    let Some(dev) = Loop::attach(&image) else {
        eprintln!("skipped: needs root and a free loop device");
        return;
    };
    let filename = format!("--filename={}", dev.device);

    let out = diskbench()
        .args(["fio", "--name=w", "--rw=write", "--bs=64k", &filename])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
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
