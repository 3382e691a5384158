//! NT status codes: what a loadfile line expects and what the replay got.
//!
//! dbench's loadfiles were recorded from a real Windows server, so each line
//! ends with the status the server returned. The replay maps each Unix
//! result onto the status Samba would send for it (ENOENT is
//! `OBJECT_NAME_NOT_FOUND` when the directory exists and
//! `OBJECT_PATH_NOT_FOUND` when it does not, EEXIST is
//! `OBJECT_NAME_COLLISION`, ...) and compares the two exactly.

use std::fmt;
use std::io;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Status {
    #[default]
    Ok,
    ObjectNameNotFound,
    ObjectPathNotFound,
    NoSuchFile,
    ObjectNameCollision,
    FileIsADirectory,
    NotADirectory,
    DirectoryNotEmpty,
    AccessDenied,
    DiskFull,
    InvalidHandle,
    LockNotGranted,
    /// Any other failure; the loadfile never expects it.
    Unsuccessful,
    /// A status the replay never produces (kept so the line still parses
    /// and the mismatch is reported with the loadfile's own spelling).
    Other(Box<str>),
}

const NAMES: &[(Status, &str)] = &[
    (Status::Ok, "NT_STATUS_OK"),
    (
        Status::ObjectNameNotFound,
        "NT_STATUS_OBJECT_NAME_NOT_FOUND",
    ),
    (
        Status::ObjectPathNotFound,
        "NT_STATUS_OBJECT_PATH_NOT_FOUND",
    ),
    (Status::NoSuchFile, "NT_STATUS_NO_SUCH_FILE"),
    (
        Status::ObjectNameCollision,
        "NT_STATUS_OBJECT_NAME_COLLISION",
    ),
    (Status::FileIsADirectory, "NT_STATUS_FILE_IS_A_DIRECTORY"),
    (Status::NotADirectory, "NT_STATUS_NOT_A_DIRECTORY"),
    (Status::DirectoryNotEmpty, "NT_STATUS_DIRECTORY_NOT_EMPTY"),
    (Status::AccessDenied, "NT_STATUS_ACCESS_DENIED"),
    (Status::DiskFull, "NT_STATUS_DISK_FULL"),
    (Status::InvalidHandle, "NT_STATUS_INVALID_HANDLE"),
    (Status::LockNotGranted, "NT_STATUS_LOCK_NOT_GRANTED"),
    (Status::Unsuccessful, "NT_STATUS_UNSUCCESSFUL"),
];

impl Status {
    /// Parses `NT_STATUS_...`; `None` if the text is not a status at all.
    pub fn parse(text: &str) -> Option<Status> {
        if !text.starts_with("NT_STATUS_") || text.len() == "NT_STATUS_".len() {
            return None;
        }
        Some(
            NAMES
                .iter()
                .find(|(_, name)| *name == text)
                .map(|(s, _)| s.clone())
                .unwrap_or_else(|| Status::Other(text.into())),
        )
    }

    pub fn as_str(&self) -> &str {
        match self {
            Status::Other(text) => text,
            known => NAMES
                .iter()
                .find(|(s, _)| s == known)
                .map_or("NT_STATUS_UNSUCCESSFUL", |(_, name)| name),
        }
    }

    /// The status Samba answers for an I/O error on a path. ENOENT needs to
    /// know whether the directory holding the name exists.
    pub fn of_error(e: &io::Error, parent_exists: impl FnOnce() -> bool) -> Status {
        match e.raw_os_error() {
            Some(libc::ENOENT) if parent_exists() => Status::ObjectNameNotFound,
            Some(libc::ENOENT) | Some(libc::ENOTDIR) => Status::ObjectPathNotFound,
            Some(libc::EEXIST) => Status::ObjectNameCollision,
            Some(libc::EISDIR) => Status::FileIsADirectory,
            Some(libc::ENOTEMPTY) => Status::DirectoryNotEmpty,
            Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS) => Status::AccessDenied,
            Some(libc::ENOSPC) | Some(libc::EDQUOT) => Status::DiskFull,
            Some(libc::EBADF) => Status::InvalidHandle,
            Some(libc::EAGAIN) | Some(libc::EDEADLK) => Status::LockNotGranted,
            _ => Status::Unsuccessful,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (status, name) in NAMES {
            assert_eq!(Status::parse(name).as_ref(), Some(status));
            assert_eq!(status.as_str(), *name);
        }
        assert_eq!(
            Status::parse("NT_STATUS_SHARING_VIOLATION")
                .unwrap()
                .as_str(),
            "NT_STATUS_SHARING_VIOLATION"
        );
        assert_eq!(Status::parse("OK"), None);
        assert_eq!(Status::parse("NT_STATUS_"), None);
    }

    #[test]
    fn enoent_depends_on_the_directory() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(Status::of_error(&e, || true), Status::ObjectNameNotFound);
        assert_eq!(Status::of_error(&e, || false), Status::ObjectPathNotFound);
    }
}
