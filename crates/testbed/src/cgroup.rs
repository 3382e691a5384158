//! The throttle half of the testbed: one cgroup whose block-I/O limits on
//! one device are set through whichever controller the machine has, the v1
//! blkio controller (`blkio.throttle.*_device`, one file per limit) or the
//! v2 io controller (`io.max`, all four in one line). The kernel enforces
//! the limit for every process in the cgroup, so a benchmark run inside it
//! sees a device whose speed is known exactly.

use crate::error::TestbedError;
use crate::Limits;
use std::fs;
use std::path::{Path, PathBuf};

const V1: &str = "/sys/fs/cgroup/blkio";
const V2: &str = "/sys/fs/cgroup";

/// Which cgroup controller throttles block I/O here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavour {
    /// cgroup v1 `blkio`, with the throttle policy.
    V1,
    /// cgroup v2 with the `io` controller.
    V2,
}

impl Flavour {
    /// The controller this machine offers, or `None` when it has neither.
    pub fn detect() -> Option<Flavour> {
        if Path::new(V1)
            .join("blkio.throttle.read_iops_device")
            .is_file()
        {
            return Some(Flavour::V1);
        }
        let controllers = fs::read_to_string(Path::new(V2).join("cgroup.controllers")).ok()?;
        controllers
            .split_whitespace()
            .any(|c| c == "io")
            .then_some(Flavour::V2)
    }

    fn root(self) -> &'static Path {
        Path::new(match self {
            Flavour::V1 => V1,
            Flavour::V2 => V2,
        })
    }

    /// Where the cgroup called `name` lives (whether or not it exists).
    pub fn dir(self, name: &str) -> PathBuf {
        self.root().join(name)
    }
}

/// A cgroup throttling one device (`majmin`, as `7:3`). Cloned into the
/// burst-bucket thread, which changes the limits while a test runs.
#[derive(Clone, Debug)]
pub struct Throttle {
    pub flavour: Flavour,
    pub dir: PathBuf,
    pub majmin: String,
}

impl Throttle {
    /// Creates the cgroup (an existing one of the same name is reused).
    pub fn create(flavour: Flavour, name: &str, majmin: &str) -> Result<Throttle, TestbedError> {
        let dir = flavour.dir(name);
        fs::create_dir_all(&dir)
            .map_err(TestbedError::io(format!("creating {}", dir.display())))?;
        if flavour == Flavour::V2 {
            // Lets child cgroups use io.max; already on where systemd runs.
            let _ = fs::write(flavour.root().join("cgroup.subtree_control"), "+io");
        }
        Ok(Throttle {
            flavour,
            dir,
            majmin: majmin.to_string(),
        })
    }

    /// The file a process id is written to, to move that process in.
    pub fn procs(&self) -> PathBuf {
        self.dir.join("cgroup.procs")
    }

    /// Replaces all four limits at once (0 = no limit).
    pub fn set(&self, limits: &Limits) -> Result<(), TestbedError> {
        let mm = &self.majmin;
        match self.flavour {
            Flavour::V1 => {
                for (file, value) in [
                    ("blkio.throttle.read_iops_device", limits.read_iops),
                    ("blkio.throttle.write_iops_device", limits.write_iops),
                    ("blkio.throttle.read_bps_device", limits.read_bps),
                    ("blkio.throttle.write_bps_device", limits.write_bps),
                ] {
                    // Writing 0 removes the device's rule: no limit.
                    self.write(file, &format!("{mm} {value}"))?;
                }
                Ok(())
            }
            Flavour::V2 => {
                let v = |n: u64| match n {
                    0 => "max".to_string(),
                    n => n.to_string(),
                };
                let line = format!(
                    "{mm} riops={} wiops={} rbps={} wbps={}",
                    v(limits.read_iops),
                    v(limits.write_iops),
                    v(limits.read_bps),
                    v(limits.write_bps)
                );
                self.write("io.max", &line)
            }
        }
    }

    /// Sets the read and write IOPS limits, leaving the bandwidth ones: the
    /// burst bucket's one change.
    pub fn set_iops(&self, iops: u64) -> Result<(), TestbedError> {
        let mm = &self.majmin;
        match self.flavour {
            Flavour::V1 => {
                self.write("blkio.throttle.read_iops_device", &format!("{mm} {iops}"))?;
                self.write("blkio.throttle.write_iops_device", &format!("{mm} {iops}"))
            }
            Flavour::V2 => {
                let v = if iops == 0 {
                    "max".to_string()
                } else {
                    iops.to_string()
                };
                self.write("io.max", &format!("{mm} riops={v} wiops={v}"))
            }
        }
    }

    fn write(&self, file: &str, line: &str) -> Result<(), TestbedError> {
        let path = self.dir.join(file);
        fs::write(&path, line).map_err(TestbedError::io(format!(
            "writing {line:?} to {}",
            path.display()
        )))
    }
}

/// Moves every process left in the cgroup at `dir` to the root one and
/// removes the cgroup. A cgroup whose last process has just exited can
/// refuse removal for a moment (EBUSY), so this retries for up to a second.
pub fn remove(flavour: Flavour, dir: &Path) -> Result<(), TestbedError> {
    if !dir.exists() {
        return Ok(());
    }
    let root_procs = flavour.root().join("cgroup.procs");
    let mut last = None;
    for _ in 0..20 {
        if let Ok(pids) = fs::read_to_string(dir.join("cgroup.procs")) {
            for pid in pids.split_whitespace() {
                let _ = fs::write(&root_procs, pid);
            }
        }
        match fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let what = format!("removing {}", dir.display());
    Err(match last {
        Some(e) => TestbedError::io(what)(e),
        None => TestbedError::refused(what, ""),
    })
}
