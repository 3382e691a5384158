//! The device half of the testbed: a sparse image file attached to a loop
//! device with `losetup`, direct I/O on where the image's filesystem allows
//! it, so reads and writes reach the image rather than a second page cache.

use crate::error::TestbedError;
use std::fs;
use std::path::Path;
use std::process::Command;

/// Attaches `image` to the first free loop device and returns its path.
pub fn attach(image: &Path) -> Result<String, TestbedError> {
    let mut last = String::new();
    for direct in [true, false] {
        let mut cmd = Command::new("losetup");
        cmd.args(["-f", "--show"]);
        if direct {
            cmd.arg("--direct-io=on");
        }
        let out = cmd
            .arg(image)
            .output()
            .map_err(TestbedError::io("running losetup"))?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).trim().to_string());
        }
        last = String::from_utf8_lossy(&out.stderr).trim().to_string();
    }
    Err(TestbedError::refused(
        format!("losetup {}", image.display()),
        last,
    ))
}

/// Detaches every loop device backed by `image` (one left by a test that
/// was killed, too).
pub fn detach_all(image: &Path) -> Result<(), TestbedError> {
    let out = Command::new("losetup")
        .arg("-j")
        .arg(image)
        .output()
        .map_err(TestbedError::io("running losetup"))?;
    let listing = String::from_utf8_lossy(&out.stdout);
    // Lines read `/dev/loop3: [2049]:1234 (/path/to/image)`.
    for device in listing.lines().filter_map(|l| l.split(':').next()) {
        let out = Command::new("losetup")
            .args(["-d", device])
            .output()
            .map_err(TestbedError::io("running losetup"))?;
        if !out.status.success() {
            return Err(TestbedError::refused(
                format!("losetup -d {device}"),
                String::from_utf8_lossy(&out.stderr).trim(),
            ));
        }
    }
    Ok(())
}

/// `/dev/loop3` -> `loop3`, its name under /sys/block.
pub fn kernel_name(device: &str) -> &str {
    device.rsplit('/').next().unwrap_or(device)
}

/// The device's `MAJOR:MINOR`, as the cgroup files want it.
pub fn majmin(device: &str) -> Result<String, TestbedError> {
    let path = format!("/sys/block/{}/dev", kernel_name(device));
    fs::read_to_string(&path)
        .map(|s| s.trim().to_string())
        .map_err(TestbedError::io(path))
}

/// I/Os the device has completed, reads plus writes, from
/// /sys/block/DEV/stat (fields 1 and 5).
pub fn completed_ios(kernel_name: &str) -> Result<u64, TestbedError> {
    let path = format!("/sys/block/{kernel_name}/stat");
    let text = fs::read_to_string(&path).map_err(TestbedError::io(&path))?;
    parse_completed(&text).ok_or(TestbedError::Unexpected { path, text })
}

fn parse_completed(stat: &str) -> Option<u64> {
    let fields: Vec<u64> = stat
        .split_whitespace()
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    Some(fields.first()? + fields.get(4)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completed_ios_are_reads_plus_writes() {
        let stat = "    1200        0    9600    50     34        2     272     9    0    60    59    0    0    0    0    0    0\n";
        assert_eq!(parse_completed(stat), Some(1234));
        assert_eq!(parse_completed("12 0 3"), None);
        assert_eq!(parse_completed("x 0 0 0 1"), None);
    }

    #[test]
    fn the_kernel_name_is_the_last_part() {
        assert_eq!(kernel_name("/dev/loop7"), "loop7");
        assert_eq!(kernel_name("loop7"), "loop7");
    }
}
