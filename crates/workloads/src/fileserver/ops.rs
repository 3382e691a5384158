//! One client's view of the filesystem: each loadfile operation carried out
//! as dbench's fileio backend (and Samba behind it) carries it out, with the
//! NT status a server would answer.
//!
//! What dbench does, learnt by running it under strace:
//! - every path lookup starts with stat(); when the name is missing, the
//!   parent directory is read looking for it case-insensitively (Samba's
//!   name resolution on a case-sensitive filesystem). That directory read
//!   is part of the load; `resolve: false` skips it, as dbench's
//!   `--no-resolve`. Unlike dbench, a name found that way is then used;
//! - NTCreateX opens O_RDWR (directories O_RDONLY), mode 0600, then fstat;
//!   a directory request with a creating disposition is mkdir + open;
//! - ReadX/WriteX are pread/pwrite at the line's offset and size; Flush is
//!   fsync; LockX/UnlockX are fcntl write locks (F_SETLKW; whole file here,
//!   one byte in dbench: the same call, uncontended);
//!   QUERY_FILE_INFORMATION is fstat; SET_FILE_INFORMATION fstat and, for
//!   level 1004 (basic information), new times; QUERY_FS_INFORMATION
//!   statfs of the test directory; FIND_FIRST reads the whole directory;
//!   Deltree removes a tree (a missing one is fine).
//!
//! Dispositions follow NT (CREATE fails on an existing name, OPEN_IF
//! creates), where dbench 4.0 approximates (CREATE without O_EXCL).

use super::loadfile::{
    LoadPath, Op, CREATE, DIRECTORY_FILE, NON_DIRECTORY_FILE, OPEN, OPEN_IF, OVERWRITE,
    OVERWRITE_IF, SUPERSEDE,
};
use super::pattern;
use super::status::Status;
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// How the client opens files.
#[derive(Clone, Copy, Debug)]
pub struct ClientConfig {
    /// Look a missing name up case-insensitively in its directory (dbench's default).
    pub resolve: bool,
    /// Open files O_SYNC (dbench -s).
    pub sync: bool,
}

/// What one operation did.
#[derive(Debug, Default, PartialEq)]
pub struct Done {
    pub status: Status,
    pub read: u64,
    pub written: u64,
    /// A ReadX that returned fewer bytes than the loadfile says the server did.
    pub short_read: bool,
    /// The path and error behind a failure, for the report.
    pub detail: Option<String>,
}

impl Done {
    fn ok() -> Done {
        Done::default()
    }
    fn status(status: Status) -> Done {
        Done {
            status,
            ..Done::default()
        }
    }
    fn failed(status: Status, what: &str, path: &Path, e: &io::Error) -> Done {
        Done {
            status,
            detail: Some(format!("{what} {}: {e}", path.display())),
            ..Done::default()
        }
    }
}

enum Found {
    /// The name exists (possibly spelled differently: `path` is the real one).
    Yes {
        path: PathBuf,
        dir: bool,
    },
    No {
        parent_exists: bool,
    },
}

/// An open handle, with its path for error messages.
struct Open {
    file: File,
    path: PathBuf,
}

/// One simulated client: its tree (`clients/clientN`), its open handles.
pub struct Client {
    base: PathBuf,
    name: String,
    config: ClientConfig,
    handles: HashMap<u32, Open>,
    data: Vec<u8>,
    scratch: Vec<u8>,
}

impl Client {
    /// Client `id` (from 0) working in `base`; `max_io` sizes its buffers.
    pub fn new(base: &Path, id: u32, config: ClientConfig, max_io: usize) -> Client {
        Client {
            base: base.to_path_buf(),
            name: format!("client{id}"),
            config,
            handles: HashMap::new(),
            data: random_bytes(max_io, u64::from(id) + 1),
            scratch: vec![0; max_io],
        }
    }

    /// Closes every handle (at the end of each pass over the loadfile).
    pub fn close_all(&mut self) {
        self.handles.clear();
    }

    pub fn path(&self, p: &LoadPath) -> PathBuf {
        if p.per_client {
            self.base.join(p.rel.replace("client1", &self.name))
        } else {
            self.base.join(&*p.rel)
        }
    }

    pub fn execute(&mut self, op: &Op) -> Done {
        match op {
            Op::NtCreateX {
                path,
                options,
                disposition,
                handle,
            } => self.create(&self.path(path), *options, *disposition, *handle),
            Op::Close { handle } => match self.handles.remove(handle) {
                Some(_) => Done::ok(),
                None => Done::status(Status::InvalidHandle),
            },
            Op::Rename { from, to } => self.rename(&self.path(from), &self.path(to)),
            Op::Unlink { path } => self.unlink(&self.path(path)),
            Op::Deltree { path } => deltree(&self.path(path)),
            Op::Rmdir { path } => self.rmdir(&self.path(path)),
            Op::Mkdir { path } => self.mkdir(&self.path(path)),
            Op::Qpathinfo { path } => match self.lookup(&self.path(path)) {
                Found::Yes { .. } => Done::ok(),
                Found::No { parent_exists } => Done::status(not_found(parent_exists)),
            },
            Op::Qfileinfo { handle } => {
                self.with(*handle, "fstat", |f| f.metadata().map(|_| Done::ok()))
            }
            Op::Qfsinfo => match engine::sys::free_space(&self.base) {
                Ok(_) => Done::ok(),
                Err(e) => Done::failed(Status::of_error(&e, || true), "statfs", &self.base, &e),
            },
            Op::Sfileinfo { handle, level } => self.with(*handle, "set times of", |f| {
                f.metadata()?;
                if *level == 1004 {
                    let now = SystemTime::now();
                    f.set_times(fs::FileTimes::new().set_accessed(now).set_modified(now))?;
                }
                Ok(Done::ok())
            }),
            Op::Find { pattern } => self.find(&self.path(pattern)),
            Op::WriteX {
                handle,
                offset,
                size,
            } => {
                let data = &self.data[..*size as usize];
                let Some(open) = self.handles.get(handle) else {
                    return Done::status(Status::InvalidHandle);
                };
                match open.file.write_all_at(data, *offset) {
                    Ok(()) => Done {
                        written: u64::from(*size),
                        ..Done::ok()
                    },
                    Err(e) => Done {
                        status: Status::of_error(&e, || true),
                        detail: Some(format!(
                            "write of {size} bytes at offset {offset} to {}: {e}",
                            open.path.display()
                        )),
                        ..Done::default()
                    },
                }
            }
            Op::ReadX {
                handle,
                offset,
                size,
                returned,
            } => self.read(*handle, *offset, *size as usize, u64::from(*returned)),
            Op::LockX { handle } => self.with(*handle, "lock", |f| {
                rustix::fs::fcntl_lock(f, rustix::fs::FlockOperation::LockExclusive)?;
                Ok(Done::ok())
            }),
            Op::UnlockX { handle } => self.with(*handle, "unlock", |f| {
                rustix::fs::fcntl_lock(f, rustix::fs::FlockOperation::Unlock)?;
                Ok(Done::ok())
            }),
            Op::Flush { handle } => {
                self.with(*handle, "fsync", |f| f.sync_all().map(|_| Done::ok()))
            }
        }
    }

    /// Runs `f` on an open handle; an unknown handle is NT_STATUS_INVALID_HANDLE.
    fn with(&self, handle: u32, what: &str, f: impl FnOnce(&File) -> io::Result<Done>) -> Done {
        let Some(open) = self.handles.get(&handle) else {
            return Done::status(Status::InvalidHandle);
        };
        f(&open.file)
            .unwrap_or_else(|e| Done::failed(Status::of_error(&e, || true), what, &open.path, &e))
    }

    /// stat(), then (when missing and resolving) the parent directory read
    /// for a name that differs only in case.
    fn lookup(&self, path: &Path) -> Found {
        if let Ok(m) = fs::metadata(path) {
            return Found::Yes {
                path: path.to_path_buf(),
                dir: m.is_dir(),
            };
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Found::No {
                parent_exists: false,
            };
        };
        if !self.config.resolve {
            return Found::No {
                parent_exists: parent.is_dir(),
            };
        }
        let Ok(entries) = fs::read_dir(parent) else {
            return Found::No {
                parent_exists: false,
            };
        };
        for entry in entries.flatten() {
            if entry
                .file_name()
                .as_bytes()
                .eq_ignore_ascii_case(name.as_bytes())
            {
                let real = entry.path();
                if let Ok(m) = fs::metadata(&real) {
                    return Found::Yes {
                        path: real,
                        dir: m.is_dir(),
                    };
                }
            }
        }
        Found::No {
            parent_exists: true,
        }
    }

    fn create(&mut self, path: &Path, options: u32, disposition: u32, handle: u32) -> Done {
        let want_dir = options & DIRECTORY_FILE != 0;
        let (path, exists_as_dir, parent_exists) = match self.lookup(path) {
            Found::Yes { path, dir } => (path, Some(dir), true),
            Found::No { parent_exists } => (path.to_path_buf(), None, parent_exists),
        };
        let opened = match exists_as_dir {
            Some(true) if options & NON_DIRECTORY_FILE != 0 => {
                return Done::status(Status::FileIsADirectory)
            }
            Some(true) if disposition == CREATE => {
                return Done::status(Status::ObjectNameCollision)
            }
            Some(true) => File::open(&path),
            Some(false) if want_dir => return Done::status(Status::NotADirectory),
            None if want_dir && disposition != OPEN && disposition != OVERWRITE => {
                fs::DirBuilder::new()
                    .mode(0o700)
                    .create(&path)
                    .and_then(|()| File::open(&path))
            }
            _ => self.open_file(&path, disposition),
        };
        match opened.and_then(|f| f.metadata().map(|_| f)) {
            Ok(file) => {
                self.handles.insert(handle, Open { file, path });
                Done::ok()
            }
            Err(e) => Done::failed(Status::of_error(&e, || parent_exists), "open", &path, &e),
        }
    }

    fn open_file(&self, path: &Path, disposition: u32) -> io::Result<File> {
        let mut o = OpenOptions::new();
        o.read(true).write(true).mode(0o600);
        if self.config.sync {
            o.custom_flags(libc::O_SYNC);
        }
        match disposition {
            SUPERSEDE | OVERWRITE_IF => o.create(true).truncate(true),
            CREATE => o.create_new(true),
            OPEN_IF => o.create(true),
            OVERWRITE => o.truncate(true),
            _ => &mut o,
        };
        match o.open(path) {
            // Opening a directory without saying which (create options 0).
            Err(e) if e.raw_os_error() == Some(libc::EISDIR) => File::open(path),
            other => other,
        }
    }

    fn rename(&self, from: &Path, to: &Path) -> Done {
        let from = match self.lookup(from) {
            Found::Yes { path, .. } => path,
            Found::No { parent_exists } => return Done::status(not_found(parent_exists)),
        };
        if let Found::Yes { .. } = self.lookup(to) {
            return Done::status(Status::ObjectNameCollision);
        }
        match fs::rename(&from, to) {
            Ok(()) => Done::ok(),
            Err(e) => Done::failed(Status::of_error(&e, || true), "rename to", to, &e),
        }
    }

    fn unlink(&self, path: &Path) -> Done {
        match self.lookup(path) {
            Found::No { parent_exists } => Done::status(not_found(parent_exists)),
            Found::Yes { dir: true, .. } => Done::status(Status::FileIsADirectory),
            Found::Yes { path, .. } => match fs::remove_file(&path) {
                Ok(()) => Done::ok(),
                Err(e) => Done::failed(Status::of_error(&e, || true), "unlink", &path, &e),
            },
        }
    }

    fn rmdir(&self, path: &Path) -> Done {
        match self.lookup(path) {
            Found::No { parent_exists } => Done::status(not_found(parent_exists)),
            Found::Yes { dir: false, .. } => Done::status(Status::NotADirectory),
            Found::Yes { path, .. } => match fs::remove_dir(&path) {
                Ok(()) => Done::ok(),
                Err(e) => Done::failed(Status::of_error(&e, || true), "rmdir", &path, &e),
            },
        }
    }

    fn mkdir(&self, path: &Path) -> Done {
        let parent_exists = match self.lookup(path) {
            Found::Yes { .. } => return Done::status(Status::ObjectNameCollision),
            Found::No { parent_exists } => parent_exists,
        };
        match fs::DirBuilder::new().mode(0o777).create(path) {
            Ok(()) => Done::ok(),
            Err(e) => Done::failed(Status::of_error(&e, || parent_exists), "mkdir", path, &e),
        }
    }

    /// Reads the whole directory; OK when something matches the mask.
    fn find(&self, pattern: &Path) -> Done {
        let (Some(dir), Some(mask)) = (pattern.parent(), pattern.file_name()) else {
            return Done::status(Status::ObjectPathNotFound);
        };
        let mask = mask.to_string_lossy();
        // dbench looks the mask up as a name first (it is usually missing).
        if let (Found::Yes { .. }, false) = (self.lookup(pattern), pattern::is_wild(&mask)) {
            return Done::ok();
        }
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                return Done::failed(Status::of_error(&e, || false), "read directory", dir, &e)
            }
        };
        let mut found = [".", ".."]
            .iter()
            .filter(|n| pattern::matches(&mask, n))
            .count();
        for entry in entries.flatten() {
            if pattern::matches(&mask, &entry.file_name().to_string_lossy()) {
                found += 1;
            }
        }
        Done::status(if found > 0 {
            Status::Ok
        } else {
            Status::NoSuchFile
        })
    }

    fn read(&mut self, handle: u32, offset: u64, size: usize, returned: u64) -> Done {
        let Some(open) = self.handles.get(&handle) else {
            return Done::status(Status::InvalidHandle);
        };
        let buf = &mut self.scratch[..size];
        let mut got = 0;
        while got < size {
            match open.file.read_at(&mut buf[got..], offset + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Done {
                        status: Status::of_error(&e, || true),
                        detail: Some(format!(
                            "read of {size} bytes at offset {offset} from {}: {e}",
                            open.path.display()
                        )),
                        ..Done::default()
                    }
                }
            }
        }
        Done {
            read: got as u64,
            short_read: (got as u64) < returned,
            ..Done::ok()
        }
    }
}

fn not_found(parent_exists: bool) -> Status {
    if parent_exists {
        Status::ObjectNameNotFound
    } else {
        Status::ObjectPathNotFound
    }
}

fn deltree(path: &Path) -> Done {
    match fs::remove_dir_all(path) {
        Ok(()) => Done::ok(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Done::ok(),
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => match fs::remove_file(path) {
            Ok(()) => Done::ok(),
            Err(e) => Done::failed(Status::of_error(&e, || true), "deltree", path, &e),
        },
        Err(e) => Done::failed(Status::of_error(&e, || true), "deltree", path, &e),
    }
}

/// Incompressible bytes for WriteX (xorshift; the content is never checked).
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(&x.to_le_bytes());
    }
    out.truncate(len);
    out
}
