//! The file and directory operations that metadata benchmarks time: create
//! a file, stat it, unlink it, and the same for directories. Written once
//! here for `diskbench meta` (bonnie++ -n, relative to its directories'
//! descriptors) and fio's file-operation engines (`filecreate`, `filestat`,
//! `filedelete`, `dircreate`, `dirstat`, `dirdelete`, on whole paths), so
//! both time the same system calls.
//!
//! Each takes a directory descriptor and a name, as the `*at` calls do;
//! [`CWD`] with an absolute path names any path.

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{self as rfs, AtFlags, Mode, OFlags};
use std::ffi::OsStr;

pub use rustix::fs::CWD;
pub use rustix::io::Errno;

/// How a file is created: bonnie++ makes a new file it then writes
/// (`O_EXCL`, write only); fio's `filecreate` opens with `O_CREAT|O_RDWR`,
/// and an existing file is simply opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Create {
    NewForWriting,
    OpenOrCreate,
}

/// Creates (or opens, see [`Create`]) the file `name` in `dir`, mode 0600.
pub fn create_file(dir: impl AsFd, name: &OsStr, how: Create) -> Result<OwnedFd, Errno> {
    let flags = match how {
        Create::NewForWriting => OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY,
        Create::OpenOrCreate => OFlags::CREATE | OFlags::RDWR,
    };
    rfs::openat(dir, name, flags | OFlags::CLOEXEC, Mode::RUSR | Mode::WUSR)
}

/// stat(2) of `name` in `dir`, following a symbolic link.
pub fn stat(dir: impl AsFd, name: &OsStr) -> Result<rfs::Stat, Errno> {
    rfs::statat(dir, name, AtFlags::empty())
}

/// lstat(2): the link itself, not what it points to.
pub fn lstat(dir: impl AsFd, name: &OsStr) -> Result<rfs::Stat, Errno> {
    rfs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
}

/// statx(2) asking for every field, following a link.
pub fn statx(dir: impl AsFd, name: &OsStr) -> Result<rfs::Statx, Errno> {
    rfs::statx(dir, name, AtFlags::empty(), rfs::StatxFlags::ALL)
}

/// Removes the file `name` of `dir`.
pub fn unlink(dir: impl AsFd, name: &OsStr) -> Result<(), Errno> {
    rfs::unlinkat(dir, name, AtFlags::empty())
}

/// Creates the directory `name` in `dir`, mode 0700.
pub fn mkdir(dir: impl AsFd, name: &OsStr) -> Result<(), Errno> {
    rfs::mkdirat(dir, name, Mode::RWXU)
}

/// Removes the empty directory `name` of `dir`.
pub fn rmdir(dir: impl AsFd, name: &OsStr) -> Result<(), Errno> {
    rfs::unlinkat(dir, name, AtFlags::REMOVEDIR)
}
