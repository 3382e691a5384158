//! Test directories left behind by a diskbench that was killed (SIGKILL, a
//! crash, a lost machine) are found and removed by the next run in the same
//! place, and nothing else is touched.
//!
//! Each test directory holds an owner marker: the pid and the process start
//! time (from /proc/PID/stat), so a pid that was reused by another program
//! does not keep a dead run's files alive. A directory is removed only when
//! its name has diskbench's pattern, it holds a readable marker, and the
//! owner is gone.

use std::fs;
use std::path::Path;

pub const MARKER: &str = ".diskbench-owner";

/// The start time of a process in clock ticks since boot, field 22 of /proc/PID/stat.
fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces; fields after it follow the last ')'.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(19)?.parse().ok()
}

/// Writes this process's marker into a fresh test directory.
pub fn mark(dir: &Path) -> std::io::Result<()> {
    let pid = std::process::id();
    let start = start_time(pid).unwrap_or(0);
    fs::write(dir.join(MARKER), format!("{pid} {start}\n"))
}

fn owner_alive(marker: &str) -> bool {
    let mut parts = marker.split_whitespace();
    let (Some(pid), Some(start)) = (parts.next(), parts.next()) else {
        return true; // unreadable: not ours to judge, keep it
    };
    let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
        return true;
    };
    start_time(pid) == Some(start)
}

/// Removes the dead runs' test directories in `parent`; returns what was removed.
pub fn clean(parent: &Path) -> Vec<String> {
    let mut removed = Vec::new();
    for entry in fs::read_dir(parent).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name
            .strip_prefix("diskbench-")
            .and_then(|rest| rest.split_once('-'))
            .is_some_and(|(pid, n)| pid.parse::<u32>().is_ok() && n.parse::<u32>().is_ok());
        if !ours || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(marker) = fs::read_to_string(entry.path().join(MARKER)) else {
            continue;
        };
        if !owner_alive(&marker) && fs::remove_dir_all(entry.path()).is_ok() {
            removed.push(entry.path().display().to_string());
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_dead_owners_marked_dirs_are_removed() {
        let parent = tempfile::tempdir().unwrap();
        let make = |name: &str, marker: Option<&str>| {
            let d = parent.path().join(name);
            fs::create_dir(&d).unwrap();
            fs::write(d.join("f.0.0"), b"x").unwrap();
            if let Some(m) = marker {
                fs::write(d.join(MARKER), m).unwrap();
            }
        };
        make("diskbench-4000000-0", Some("4000000 12345\n")); // no such pid: dead
        let me = std::process::id();
        make(
            &format!("diskbench-{me}-7"),
            Some(&format!("{me} {}\n", start_time(me).unwrap())),
        );
        make(&format!("diskbench-{me}-8"), Some(&format!("{me} 1\n"))); // pid reused: dead
        make("diskbench-4000001-0", None); // no marker: not ours to judge
        make("diskbench-data", Some("4000000 1\n")); // not our name pattern
        let removed = clean(parent.path());
        assert_eq!(removed.len(), 2, "{removed:?}");
        let left: Vec<String> = fs::read_dir(parent.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(left.contains(&format!("diskbench-{me}-7")));
        assert!(left.contains(&"diskbench-4000001-0".to_string()));
        assert!(left.contains(&"diskbench-data".to_string()));
    }
}
