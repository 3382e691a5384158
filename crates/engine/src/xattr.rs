//! The mark diskbench puts on every file it creates (a `user.diskbench`
//! extended attribute), so that a later run can tell its own test files,
//! which it may overwrite and remove, from a user's files, which it must
//! never write without `--allow-overwrite`.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;

/// The attribute's name; its value says which version made the file.
pub const NAME: &str = "user.diskbench";

fn name() -> CString {
    CString::new(NAME).expect("no NUL in the name")
}

/// Marks `file` as created by diskbench. Fails with ENOTSUP where the
/// filesystem has no user xattrs (then the file cannot be proven ours).
pub fn mark(file: &File, value: &str) -> io::Result<()> {
    let name = name();
    // SAFETY: name is NUL-terminated; value points at value.len() bytes.
    let ret = unsafe {
        libc::fsetxattr(
            file.as_raw_fd(),
            name.as_ptr(),
            value.as_ptr().cast(),
            value.len(),
            0,
        )
    };
    if ret < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether `file` carries diskbench's mark.
pub fn is_marked(file: &File) -> bool {
    let name = name();
    // SAFETY: a size query (null buffer, size 0) on a valid fd.
    let ret = unsafe { libc::fgetxattr(file.as_raw_fd(), name.as_ptr(), std::ptr::null_mut(), 0) };
    ret >= 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marked_file_is_known_and_a_plain_one_is_not() {
        let dir = tempfile::tempdir_in(std::env::temp_dir()).unwrap();
        let path = dir.path().join("f");
        let f = File::create(&path).unwrap();
        assert!(!is_marked(&f));
        match mark(&f, "diskbench-test") {
            Ok(()) => assert!(is_marked(&File::open(&path).unwrap())),
            Err(e) => testbed::skip(format!("{} has no user xattrs ({e})", dir.path().display())),
        }
    }
}
