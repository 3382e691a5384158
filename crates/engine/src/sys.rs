//! Safe wrappers over the few system calls the runner needs besides I/O:
//! direct-I/O alignment, per-thread CPU use, cache dropping, allocation,
//! free space. They live here so that all of diskbench's `unsafe` sits in
//! this crate.

use model::CpuUsage;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::mem::MaybeUninit;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::io::AsRawFd;
use std::path::Path;

fn check(ret: libc::c_int) -> io::Result<()> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Direct-I/O alignment of an open file: `(memory, offset)` in bytes, from
/// statx(STATX_DIOALIGN). `None` when the kernel or filesystem does not say
/// (or says direct I/O is unsupported: both zero).
pub fn dio_alignment(file: &File) -> Option<(u32, u32)> {
    let mut stx = MaybeUninit::<libc::statx>::zeroed();
    let empty = c"";
    // SAFETY: the fd is valid for the life of `file`, the path is a valid
    // C string, and `stx` points to writable memory of the right size.
    let ret = unsafe {
        libc::statx(
            file.as_raw_fd(),
            empty.as_ptr(),
            libc::AT_EMPTY_PATH,
            libc::STATX_DIOALIGN,
            stx.as_mut_ptr(),
        )
    };
    if ret != 0 {
        return None;
    }
    // SAFETY: statx succeeded and filled the struct (it was zeroed before).
    let stx = unsafe { stx.assume_init() };
    if stx.stx_mask & libc::STATX_DIOALIGN == 0 || stx.stx_dio_offset_align == 0 {
        return None;
    }
    Some((stx.stx_dio_mem_align, stx.stx_dio_offset_align))
}

/// Logical block size of a block device (BLKSSZGET).
pub fn logical_block_size(device: &File) -> io::Result<u32> {
    let mut size: libc::c_int = 0;
    // SAFETY: BLKSSZGET writes one c_int through the pointer, which is valid.
    check(unsafe { libc::ioctl(device.as_raw_fd(), libc::BLKSSZGET, &mut size) })?;
    Ok(size as u32)
}

/// CPU use of the calling thread so far.
pub fn thread_usage() -> CpuUsage {
    let mut ru = MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` points to writable memory for one rusage.
    let ret = unsafe { libc::getrusage(libc::RUSAGE_THREAD, ru.as_mut_ptr()) };
    if ret != 0 {
        return CpuUsage::default();
    }
    // SAFETY: getrusage succeeded and filled the (zeroed) struct.
    let ru = unsafe { ru.assume_init() };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1000;
    CpuUsage {
        user_ns: ns(ru.ru_utime),
        system_ns: ns(ru.ru_stime),
        voluntary_ctx: ru.ru_nvcsw as u64,
        involuntary_ctx: ru.ru_nivcsw as u64,
        minor_faults: ru.ru_minflt as u64,
        major_faults: ru.ru_majflt as u64,
    }
}

/// Drops a file's pages from the page cache (posix_fadvise DONTNEED).
pub fn drop_cache(file: &File) -> io::Result<()> {
    // SAFETY: plain syscall on a valid fd; no memory is passed.
    let ret = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if ret != 0 {
        return Err(io::Error::from_raw_os_error(ret));
    }
    Ok(())
}

/// Access-pattern advice for [`advise`] (posix_fadvise's NORMAL, SEQUENTIAL, RANDOM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Advice {
    Normal,
    Sequential,
    Random,
}

/// Tells the kernel how the whole file will be read (posix_fadvise over
/// offset 0, length 0 = to the end): it steers the page cache's readahead,
/// so it matters for buffered I/O only. This is fio's `fadvise_hint`.
pub fn advise(file: &File, advice: Advice) -> io::Result<()> {
    let flag = match advice {
        Advice::Normal => libc::POSIX_FADV_NORMAL,
        Advice::Sequential => libc::POSIX_FADV_SEQUENTIAL,
        Advice::Random => libc::POSIX_FADV_RANDOM,
    };
    // SAFETY: plain syscall on a valid fd; no memory is passed.
    let ret = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, flag) };
    if ret != 0 {
        return Err(io::Error::from_raw_os_error(ret));
    }
    Ok(())
}

/// Reserves `len` bytes for a file (posix_fallocate), as fio does before writes.
pub fn allocate(file: &File, len: u64) -> io::Result<()> {
    // SAFETY: plain syscall on a valid fd; no memory is passed.
    let ret = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len as libc::off_t) };
    if ret != 0 {
        return Err(io::Error::from_raw_os_error(ret));
    }
    Ok(())
}

/// Bytes available to an unprivileged user on the filesystem holding `path`,
/// and the filesystem's total size.
pub fn free_space(path: &Path) -> io::Result<(u64, u64)> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))?;
    let mut st = MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: valid C string and a writable statvfs.
    check(unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) })?;
    // SAFETY: statvfs succeeded and filled the struct.
    let st = unsafe { st.assume_init() };
    let frsize = st.f_frsize;
    Ok((st.f_bavail * frsize, st.f_blocks * frsize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_usage_grows_with_work() {
        let before = thread_usage();
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let after = thread_usage();
        assert!(after.user_ns + after.system_ns > before.user_ns + before.system_ns);
    }

    #[test]
    fn free_space_of_tmp() {
        let (free, total) = free_space(Path::new("/tmp")).unwrap();
        assert!(total > 0 && free <= total);
        assert!(free_space(Path::new("/no/such/dir")).is_err());
    }

    #[test]
    fn allocate_and_drop_cache() {
        let f = tempfile::tempfile().unwrap();
        allocate(&f, 1 << 20).unwrap();
        assert_eq!(f.metadata().unwrap().len(), 1 << 20);
        drop_cache(&f).unwrap();
        for advice in [Advice::Normal, Advice::Sequential, Advice::Random] {
            advise(&f, advice).unwrap();
        }
    }
}
