//! fio's file-handling options as understood ([`FileOptions`]): how big each
//! file is, what is done to a file before it is written, how many files stay
//! open, when files are removed, and `sync_file_range`.
//!
//! They live apart from [`crate::JobSpec`]'s core fields because they change
//! how files are made and kept, not what I/O is done: the parser fills them,
//! the runner's file code and one worker hook read them.

use serde::{Deserialize, Serialize};

/// fio's `sync=`: the flag the job's files are opened with so that each
/// write returns only once it is stable: O_SYNC (data and metadata) or
/// O_DSYNC (data, and the metadata needed to read it back), as
/// PostgreSQL's `open_sync` and `open_datasync` WAL methods open theirs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SyncWrites {
    #[default]
    None,
    Sync,
    Dsync,
}

impl SyncWrites {
    /// fio's values: none or 0, sync or 1, dsync.
    pub fn parse(text: &str) -> Option<SyncWrites> {
        match text {
            "none" | "0" => Some(SyncWrites::None),
            "sync" | "1" => Some(SyncWrites::Sync),
            "dsync" => Some(SyncWrites::Dsync),
            _ => None,
        }
    }
    pub const NAMES: &'static str = "none (or 0), sync (or 1: O_SYNC), dsync (O_DSYNC)";
}

/// fio's `fallocate=`: what is done to a file diskbench creates (or extends)
/// before the job writes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fallocate {
    /// Nothing: a file that is only written stays empty (sparse) until the
    /// writes allocate its blocks, so a full disk fails in the middle of the run.
    None,
    /// fallocate(2); where the filesystem cannot, nothing (fio's default).
    #[default]
    Native,
    /// posix_fallocate(3): the C library writes the blocks where the
    /// filesystem cannot allocate them.
    Posix,
    /// fallocate(2) with FALLOC_FL_KEEP_SIZE: blocks reserved, length unchanged.
    Keep,
    /// ftruncate(2) to the final length: sparse, but full length.
    Truncate,
}

impl Fallocate {
    pub fn parse(text: &str) -> Option<Fallocate> {
        Some(match text {
            "none" | "0" => Fallocate::None,
            "native" => Fallocate::Native,
            "posix" | "1" => Fallocate::Posix,
            "keep" => Fallocate::Keep,
            "truncate" => Fallocate::Truncate,
            _ => return None,
        })
    }
    pub fn fio_name(self) -> &'static str {
        match self {
            Fallocate::None => "none",
            Fallocate::Native => "native",
            Fallocate::Posix => "posix",
            Fallocate::Keep => "keep",
            Fallocate::Truncate => "truncate",
        }
    }
    pub const NAMES: &'static str = "none, native, posix, keep, truncate, 0 (none) or 1 (posix)";
}

/// fio's `sync_file_range=FLAGS:N`: every `every` writes, sync_file_range(2)
/// over what the file of the last write got since its previous call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncFileRange {
    pub wait_before: bool,
    pub write: bool,
    pub wait_after: bool,
    pub every: u32,
}

impl SyncFileRange {
    /// `wait_before,write`: the flags in fio's spelling and order.
    pub fn flag_names(&self) -> String {
        let names = [
            (self.wait_before, "wait_before"),
            (self.write, "write"),
            (self.wait_after, "wait_after"),
        ];
        let on: Vec<&str> = names.iter().filter(|n| n.0).map(|n| n.1).collect();
        on.join(",")
    }
}

/// `filesize=SIZE` or `filesize=LOW-HIGH`: each file's length; with a
/// range, each file draws its own (a multiple of the smallest block size).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeRange {
    pub min_bytes: u64,
    pub max_bytes: u64,
}

fn yes() -> bool {
    true
}

/// `filesize`, `fallocate`, `unlink`, `unlink_each_loop`, `create_on_open`,
/// `allow_file_create`, `create_only`, `openfiles`, `sync_file_range`,
/// `filename_format`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileOptions {
    /// Each file's length; `size` then only bounds the bytes of I/O, as in fio.
    #[serde(default)]
    pub filesize: Option<SizeRange>,
    #[serde(default)]
    pub fallocate: Fallocate,
    /// Remove the job's files when it ends (a named file only when diskbench
    /// created it).
    #[serde(default)]
    pub unlink: bool,
    /// Remove and create the files again between loops (`loops`).
    #[serde(default)]
    pub unlink_each_loop: bool,
    /// Create files when the job opens them (empty), not before it starts.
    #[serde(default)]
    pub create_on_open: bool,
    /// Off: a file that does not exist (or is too short) is an error.
    #[serde(default = "yes")]
    pub allow_file_create: bool,
    /// Prepare the files, do no I/O.
    #[serde(default)]
    pub create_only: bool,
    /// Files open at once (`None`: all of them, fio's default of `nrfiles`).
    #[serde(default)]
    pub openfiles: Option<u32>,
    #[serde(default)]
    pub sync_file_range: Option<SyncFileRange>,
    /// `sync=`: files opened O_SYNC or O_DSYNC.
    #[serde(default)]
    pub sync: SyncWrites,
    /// `filename_format`: the names of the files diskbench makes, with
    /// `$jobname`, `$jobnum` (the clone), `$filenum` and `$clientuid` (empty:
    /// no client/server) replaced; `None` is fio's `$jobname.$jobnum.$filenum`.
    #[serde(default)]
    pub filename_format: Option<String>,
    /// `filename=a:b:c`: the files named after the first (which is the
    /// target). `size` is split evenly among all of them and the I/O goes
    /// round them, as with `nrfiles` generated files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_named: Vec<std::path::PathBuf>,
}

impl crate::JobSpec {
    /// The files each clone does I/O on: `nrfiles` generated ones, or the
    /// ones `filename=` names.
    pub fn files_per_clone(&self) -> u32 {
        match &self.target {
            crate::FileTarget::Named(_) => 1 + self.file_options.also_named.len() as u32,
            crate::FileTarget::Generated { nrfiles, .. } => *nrfiles,
        }
    }
}

impl FileOptions {
    /// The name of file `file` of clone `clone` of job `job`: fio's
    /// `filename_format`, which may hold a relative path.
    pub fn generated_name(&self, job: &str, clone: u32, file: u32) -> String {
        match &self.filename_format {
            None => format!("{job}.{clone}.{file}"),
            Some(format) => format
                .replace("$jobname", job)
                .replace("$jobnum", &clone.to_string())
                .replace("$filenum", &file.to_string())
                .replace("$clientuid", ""),
        }
    }
}

impl Default for FileOptions {
    fn default() -> FileOptions {
        FileOptions {
            filesize: None,
            fallocate: Fallocate::Native,
            unlink: false,
            unlink_each_loop: false,
            create_on_open: false,
            allow_file_create: true,
            create_only: false,
            openfiles: None,
            sync_file_range: None,
            sync: SyncWrites::None,
            filename_format: None,
            also_named: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallocate_names_round_trip_and_aliases() {
        for name in ["none", "native", "posix", "keep", "truncate"] {
            assert_eq!(Fallocate::parse(name).unwrap().fio_name(), name);
        }
        assert_eq!(Fallocate::parse("0"), Some(Fallocate::None));
        assert_eq!(Fallocate::parse("1"), Some(Fallocate::Posix));
        assert_eq!(Fallocate::parse("yes"), None);
    }

    #[test]
    fn flags_are_named_in_fio_order() {
        let r = SyncFileRange {
            wait_after: true,
            wait_before: true,
            write: false,
            every: 2,
        };
        assert_eq!(r.flag_names(), "wait_before,wait_after");
    }
}
