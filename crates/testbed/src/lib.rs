//! A block device whose speed limit is known exactly, for tests that check
//! a benchmark reports what the device really delivers: a sparse image on a
//! loop device, behind a cgroup block-I/O throttle (cgroup v1 blkio or v2
//! io.max) with exact IOPS and bandwidth limits, which can change while a
//! run goes on and can follow a burst-credit bucket like a cloud disk's.
//!
//! It needs root, a free loop device and a throttle controller;
//! [`Testbed::available`] says which is missing, so a test can skip with
//! the reason. Everything it makes, the image, the loop device's backing
//! file and the cgroup, is named `diskbench-testbed-NAME`, so leftovers of
//! a killed test are easy to find, and the next [`Testbed::up`] of the same
//! name removes them first. Dropping the testbed removes them too.

mod bucket;
mod cgroup;
mod error;
pub mod kube;
mod loopdev;
pub mod postgres;
mod skip;

pub use bucket::{Bucket, BucketDriver, Credits, TICK};
pub use cgroup::Flavour;
pub use error::TestbedError;
pub use skip::skip;

use cgroup::Throttle;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What every testbed's image and cgroup are called, before its name.
pub const PREFIX: &str = "diskbench-testbed-";

/// The image's size: sparse, so it costs only what the tests write.
pub const IMAGE_BYTES: u64 = 512 << 20;

/// Limits on the device for processes in the testbed; 0 is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    pub read_iops: u64,
    pub write_iops: u64,
    pub read_bps: u64,
    pub write_bps: u64,
}

/// A throttled loop device; see the module documentation.
#[derive(Debug)]
pub struct Testbed {
    name: String,
    device: String,
    image: PathBuf,
    throttle: Throttle,
}

impl Testbed {
    /// `Ok` when this machine can hold a testbed, else why not.
    pub fn available() -> Result<Flavour, TestbedError> {
        if !is_root() {
            return Err(TestbedError::unavailable(
                "needs root (a loop device and a cgroup)",
            ));
        }
        let flavour = Flavour::detect().ok_or_else(|| {
            TestbedError::unavailable("no cgroup blkio (v1) or io (v2) controller with a throttle")
        })?;
        match Command::new("losetup").arg("-f").output() {
            Ok(out) if out.status.success() => Ok(flavour),
            Ok(out) => Err(TestbedError::unavailable(format!(
                "no free loop device: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
            Err(e) => Err(TestbedError::unavailable(format!("no losetup: {e}"))),
        }
    }

    /// Makes testbed `name` (letters, digits, `-` and `_`) with `limits`:
    /// a [`IMAGE_BYTES`] image in the temp directory ($TMPDIR), its loop
    /// device, and a cgroup throttling that device.
    pub fn up(name: &str, limits: Limits) -> Result<Testbed, TestbedError> {
        Testbed::up_in(&std::env::temp_dir(), name, limits)
    }

    /// [`Testbed::up`] with the image in `dir`: in memory (`/dev/shm`) the
    /// device's only latency is the throttle's, not the disk's under the
    /// image, whose flushes wait for whatever else the machine writes.
    pub fn up_in(dir: &Path, name: &str, limits: Limits) -> Result<Testbed, TestbedError> {
        let valid = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if name.is_empty() || !name.chars().all(valid) {
            return Err(TestbedError::BadName(name.to_string()));
        }
        let flavour = Testbed::available()?;
        let full = format!("{PREFIX}{name}");
        let image = dir.join(format!("{full}.img"));
        tear_down(flavour, &flavour.dir(&full), &image)?;
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(IMAGE_BYTES))
            .map_err(TestbedError::io(format!("creating {}", image.display())))?;
        let device = loopdev::attach(&image).inspect_err(|_| {
            let _ = std::fs::remove_file(&image);
        })?;
        // From here on, Drop undoes whatever was made.
        let mut tb = Testbed {
            name: name.to_string(),
            device,
            image,
            throttle: Throttle {
                flavour,
                dir: flavour.dir(&full),
                majmin: String::new(),
            },
        };
        tb.throttle = Throttle::create(flavour, &full, &loopdev::majmin(&tb.device)?)?;
        tb.throttle.set(&limits)?;
        Ok(tb)
    }

    /// The testbed's name, without the prefix.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The loop device, as `/dev/loop3`.
    pub fn device(&self) -> &str {
        &self.device
    }

    /// The cgroup's directory.
    pub fn cgroup(&self) -> &Path {
        &self.throttle.dir
    }

    /// A command that runs `program` inside the throttled cgroup; add its
    /// arguments and environment as usual. A shell moves itself into the
    /// cgroup and then execs `program`, so the program's first I/O is
    /// already throttled and nothing else is.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", r#"echo $$ > "$1" && shift && exec "$@""#, "sh"])
            .arg(self.throttle.procs())
            .arg(program);
        cmd
    }

    /// Replaces the limits while the testbed is in use (0 = no limit).
    pub fn set(&self, limits: Limits) -> Result<(), TestbedError> {
        self.throttle.set(&limits)
    }

    /// Starts a thread that sets the read and write IOPS limits every
    /// [`TICK`] from `bucket`'s credits and the I/Os the device completed;
    /// it runs until the returned driver is stopped or dropped, or for
    /// `bucket.for_at_most`.
    pub fn bucket(&self, bucket: Bucket) -> BucketDriver {
        BucketDriver::start(self.throttle.clone(), self.device.clone(), bucket)
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        if let Err(e) = tear_down(self.throttle.flavour, &self.throttle.dir, &self.image) {
            eprintln!(
                "testbed {}: {e}; leftovers are named {PREFIX}{}",
                self.name, self.name
            );
        }
    }
}

/// Removes a testbed's cgroup, loop device and image, whichever exist.
fn tear_down(flavour: Flavour, cgroup: &Path, image: &Path) -> Result<(), TestbedError> {
    cgroup::remove(flavour, cgroup)?;
    if image.exists() {
        loopdev::detach_all(image)?;
        std::fs::remove_file(image)
            .map_err(TestbedError::io(format!("removing {}", image.display())))?;
    }
    Ok(())
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(2) == Some("0"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_that_could_escape_its_directory_is_refused() {
        for bad in ["", "../x", "a b", "a/b"] {
            let err = Testbed::up(bad, Limits::default()).unwrap_err().to_string();
            assert!(err.contains("use letters"), "{bad:?}: {err}");
        }
    }

    /// The whole life of a testbed where the machine allows one: the limit
    /// is in the cgroup, a command runs inside it, `set` changes it, and
    /// nothing is left after the drop.
    #[test]
    fn up_exec_set_and_drop_leave_nothing_behind() {
        if let Err(why) = Testbed::available() {
            crate::skip(why);
            return;
        }
        let name = format!("unit-{}", std::process::id());
        let limits = Limits {
            read_iops: 1234,
            ..Limits::default()
        };
        let tb = Testbed::up(&name, limits).unwrap();
        let majmin = loopdev::majmin(tb.device()).unwrap();
        let rules = |tb: &Testbed| {
            match tb.throttle.flavour {
                Flavour::V1 => {
                    std::fs::read_to_string(tb.cgroup().join("blkio.throttle.read_iops_device"))
                }
                Flavour::V2 => std::fs::read_to_string(tb.cgroup().join("io.max")),
            }
            .unwrap()
        };
        assert!(rules(&tb).contains(&majmin), "{}", rules(&tb));
        assert!(rules(&tb).contains("1234"), "{}", rules(&tb));

        let out = tb.command("cat").arg("/proc/self/cgroup").output().unwrap();
        let inside = String::from_utf8_lossy(&out.stdout);
        assert!(inside.contains(&format!("{PREFIX}{name}")), "{inside}");

        tb.set(Limits::default()).unwrap();
        assert!(!rules(&tb).contains("1234"), "{}", rules(&tb));

        let (cgroup, image, device) = (
            tb.cgroup().to_path_buf(),
            tb.image.clone(),
            tb.device.clone(),
        );
        drop(tb);
        assert!(!cgroup.exists());
        assert!(!image.exists());
        let listing = Command::new("losetup")
            .args(["-l", "-n", "-O", "NAME,BACK-FILE"])
            .output()
            .unwrap();
        let listing = String::from_utf8_lossy(&listing.stdout);
        assert!(
            !listing.contains(&*image.to_string_lossy()),
            "{device} is still attached: {listing}"
        );
    }
}
