//! What the targets share: a scratch directory for the parsers that only
//! read files, and the guards that keep a fuzzed input from naming a file
//! that never ends or blocks (`/dev/zero`, `/proc/kmsg`, a FIFO, standard
//! input). Those would be hangs of the harness, not bugs of the parser: the
//! parsers read what they are given, as fio does.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Files a fuzzed job file may `include` (by these bare names only).
pub const INCLUDED: &[(&str, &str)] = &[
    ("inc.fio", "bs=8k\niodepth=2\n"),
    ("loop.fio", "include loop.fio\n"),
    ("deep.fio", "include inc.fio\nrw=randread\n"),
];

/// A directory of this process's own, in memory where possible
/// (`/dev/shm`), holding the files of [`INCLUDED`].
pub fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = match Path::new("/dev/shm").is_dir() {
            true => PathBuf::from("/dev/shm"),
            false => std::env::temp_dir(),
        };
        let dir = base.join(format!("diskbench-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        for (name, text) in INCLUDED {
            std::fs::write(dir.join(name), text).expect("write an included file");
        }
        dir
    })
}

/// Writes `data` to `name` in the scratch directory; returns its path.
pub fn write(name: &str, data: &[u8]) -> String {
    let path = scratch().join(name);
    std::fs::write(&path, data).expect("write the input file");
    path.display().to_string()
}

/// Whether a job file's `include` lines stay inside the scratch directory:
/// each names a file there by a bare name (no '/', no '\\'). Mirrors how
/// `crates/fio/src/jobfile.rs` finds an include (a line, trimmed, cut at the
/// first ';' or '#', starting with "include" and white space).
pub fn includes_stay_inside(text: &str) -> bool {
    text.lines().all(|line| {
        let t = line.trim();
        let body = t.find([';', '#']).map_or(t, |i| &t[..i]).trim();
        match body.strip_prefix("include") {
            Some(rest) if rest.starts_with(char::is_whitespace) => !rest.contains(['/', '\\']),
            _ => true,
        }
    })
}

/// Whether a command-line argument, if taken for a job file, is one that
/// reading cannot hang on: not `-` (standard input), and when it exists, a
/// regular file or a directory outside `/dev`, `/proc`, `/sys` and `/run`.
pub fn safe_as_job_file(arg: &str) -> bool {
    if arg == "-" {
        return false;
    }
    let path = Path::new(arg);
    let Ok(meta) = std::fs::metadata(path) else {
        return true; // Missing (or unreadable): a clean error.
    };
    let Ok(canonical) = std::fs::canonicalize(path) else {
        return false;
    };
    let special = ["/dev", "/proc", "/sys", "/run"]
        .iter()
        .any(|p| canonical.starts_with(p));
    !special && (meta.is_file() || meta.is_dir())
}
