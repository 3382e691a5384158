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

/// CPU use of the calling thread so far, with io_uring's kernel threads
/// working for it (see [`io_uring_helpers_cpu_ns`]) counted as system time.
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
    let helpers = io_uring_helpers_cpu_ns(thread_id());
    CpuUsage {
        user_ns: ns(ru.ru_utime),
        system_ns: ns(ru.ru_stime) + helpers,
        kernel_helpers_ns: helpers,
        wall_ns: 0,
        voluntary_ctx: ru.ru_nvcsw as u64,
        involuntary_ctx: ru.ru_nivcsw as u64,
        minor_faults: ru.ru_minflt as u64,
        major_faults: ru.ru_majflt as u64,
    }
}

/// The calling thread's id (gettid).
pub fn thread_id() -> u32 {
    // SAFETY: gettid takes no argument and cannot fail.
    unsafe { libc::gettid() as u32 }
}

/// CPU time (ns) of the kernel threads io_uring runs for the thread `owner`
/// of this process: `iou-wrk-OWNER` (io-wq workers, which do the buffered
/// I/O that cannot be done inline) and `iou-sqp-OWNER` (the SQPOLL thread).
/// They are threads of this process, but getrusage(RUSAGE_THREAD) of the
/// owner does not see them; their time is read from each one's schedstat.
/// A worker that exits between two readings takes its time with it.
pub fn io_uring_helpers_cpu_ns(owner: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    let names = [format!("iou-wrk-{owner}"), format!("iou-sqp-{owner}")];
    tasks
        .flatten()
        .filter(|task| {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            names.iter().any(|n| comm.trim_end() == n)
        })
        .filter_map(|task| {
            let stat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
            stat.split_whitespace().next()?.parse::<u64>().ok()
        })
        .sum()
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

/// Drops `len` bytes of a file from `offset` out of the page cache, as ioping
/// does before each non-cached read (cheaper than the whole file on a device).
pub fn drop_cache_range(file: &File, offset: u64, len: u64) -> io::Result<()> {
    let (offset, len) = (offset as libc::off_t, len as libc::off_t);
    // SAFETY: plain syscall on a valid fd; no memory is passed.
    let ret =
        unsafe { libc::posix_fadvise(file.as_raw_fd(), offset, len, libc::POSIX_FADV_DONTNEED) };
    if ret != 0 {
        return Err(io::Error::from_raw_os_error(ret));
    }
    Ok(())
}

/// Sleeps `d` in one nanosleep, as ioping does between requests, and returns
/// false when a signal handler ran meanwhile (nanosleep is never restarted),
/// so a stop flag set by the handler is seen at once. `std::thread::sleep`
/// would sleep on, and polling in short naps would wake an idle machine.
pub fn sleep_unless_signalled(d: std::time::Duration) -> bool {
    let ts = libc::timespec {
        tv_sec: d.as_secs().min(libc::time_t::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    };
    // SAFETY: `ts` is a valid timespec on the stack; a null remainder is allowed.
    unsafe { libc::nanosleep(&ts, std::ptr::null_mut()) == 0 }
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

/// Reserves `offset..offset + len` with fallocate(2) (fio's `fallocate=native`
/// and, with `keep_size`, `keep`: FALLOC_FL_KEEP_SIZE leaves the length as it
/// is). Unlike posix_fallocate, nothing is written where the filesystem
/// cannot allocate: the error (EOPNOTSUPP) comes back instead.
pub fn fallocate(file: &File, keep_size: bool, offset: u64, len: u64) -> io::Result<()> {
    let mode = if keep_size {
        libc::FALLOC_FL_KEEP_SIZE
    } else {
        0
    };
    // SAFETY: plain syscall on a valid fd; no memory is passed.
    check(unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            mode,
            offset as libc::off_t,
            len as libc::off_t,
        )
    })
}

/// BLKDISCARD, `_IO(0x12, 119)`: libc does not name it. It is derived from
/// BLKSSZGET, `_IO(0x12, 104)`, so that the architectures whose `_IO` sets
/// a direction bit (mips, powerpc, sparc) get theirs too.
const BLKDISCARD: libc::Ioctl = libc::BLKSSZGET + (119 - 104);

/// Trims (discards) `offset..offset + len`, as fio does: BLKDISCARD on a
/// block device; on a regular file, a hole punched with fallocate(2)
/// (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE), which frees the blocks
/// and leaves the length as it is.
pub fn trim(file: &File, offset: u64, len: u64) -> io::Result<()> {
    use std::os::unix::fs::FileTypeExt;
    if file.metadata()?.file_type().is_block_device() {
        let range: [u64; 2] = [offset, len];
        // SAFETY: BLKDISCARD reads two u64s (start, length) through the
        // pointer, which points at `range`, alive for the call.
        return check(unsafe { libc::ioctl(file.as_raw_fd(), BLKDISCARD, &range) });
    }
    let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
    // SAFETY: plain syscall on a valid fd; no memory is passed.
    check(unsafe {
        libc::fallocate(
            file.as_raw_fd(),
            mode,
            offset as libc::off_t,
            len as libc::off_t,
        )
    })
}

/// sync_file_range(2)'s flags (fio's `sync_file_range=wait_before,write,wait_after`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RangeSync {
    pub wait_before: bool,
    pub write: bool,
    pub wait_after: bool,
}

/// Starts (or waits for) writeback of `offset..offset + len` of a file:
/// sync_file_range(2) with the flags of `how`.
pub fn sync_file_range(file: &File, offset: u64, len: u64, how: RangeSync) -> io::Result<()> {
    let mut flags = 0;
    if how.wait_before {
        flags |= libc::SYNC_FILE_RANGE_WAIT_BEFORE;
    }
    if how.write {
        flags |= libc::SYNC_FILE_RANGE_WRITE;
    }
    if how.wait_after {
        flags |= libc::SYNC_FILE_RANGE_WAIT_AFTER;
    }
    // SAFETY: plain syscall on a valid fd; no memory is passed.
    check(unsafe {
        libc::sync_file_range(
            file.as_raw_fd(),
            offset as libc::off64_t,
            len as libc::off64_t,
            flags,
        )
    })
}

/// Makes `slot`'s descriptor refer to the file `with` has open (dup3), so an
/// engine that holds `slot` does its next I/O to another file without being
/// rebuilt: fio's `openfiles` closing one file and opening the next. The
/// caller keeps `with` or drops it; `slot` keeps its own reference.
/// The engine must have no I/O in flight on `slot` that still looks its
/// descriptor up, and must not have registered it (io_uring's fixed files
/// keep the old file).
pub fn replace_fd(slot: &File, with: &File) -> io::Result<()> {
    let (to, from) = (slot.as_raw_fd(), with.as_raw_fd());
    if to == from {
        return Ok(());
    }
    // SAFETY: both descriptors are valid for the life of the borrows; dup3
    // atomically closes `to`'s old file and points it at `from`'s, so `slot`
    // still owns one valid descriptor and nothing is closed twice.
    let ret = unsafe { libc::dup3(from, to, libc::O_CLOEXEC) };
    if ret == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// What statx says of atomic (untorn) writes to `path` (Linux 6.11+,
/// STATX_WRITE_ATOMIC): the sizes a write with RWF_ATOMIC may have, a power
/// of two from `unit_min` to `unit_max` bytes. Zeros when the file or
/// device has no atomic writes, or the kernel does not know of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AtomicWrite {
    pub unit_min: u32,
    pub unit_max: u32,
    pub segments_max: u32,
}

pub fn atomic_write(path: &Path) -> io::Result<AtomicWrite> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))?;
    let mut st = MaybeUninit::<libc::statx>::zeroed();
    // SAFETY: a valid C string and a writable statx struct the kernel fills.
    check(unsafe {
        libc::statx(
            libc::AT_FDCWD,
            c.as_ptr(),
            0,
            libc::STATX_WRITE_ATOMIC,
            st.as_mut_ptr(),
        )
    })?;
    // SAFETY: statx succeeded and filled the struct (zeroed beforehand, so
    // the fields an older kernel leaves alone read as zero).
    let st = unsafe { st.assume_init() };
    let supported = st.stx_mask & libc::STATX_WRITE_ATOMIC != 0
        && st.stx_attributes & libc::STATX_ATTR_WRITE_ATOMIC as u64 != 0;
    Ok(match supported {
        true => AtomicWrite {
            unit_min: st.stx_atomic_write_unit_min,
            unit_max: st.stx_atomic_write_unit_max,
            segments_max: st.stx_atomic_write_segments_max,
        },
        false => AtomicWrite::default(),
    })
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

/// Whether this process may make files in the directory `path` (write and
/// search permission, as `access(2)` judges them with the real ids): the
/// error is EACCES for a directory whose mode or ACL shuts this user out.
pub fn may_write_in(path: &Path) -> io::Result<()> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))?;
    // SAFETY: a valid C string; access only reads it.
    check(unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) })
}

/// The number of CPUs the system has (online or not): valid CPU numbers are below it.
pub fn cpus_configured() -> usize {
    // SAFETY: sysconf only reads a system value.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_CONF) };
    usize::try_from(n).unwrap_or(1).max(1)
}

/// Makes the calling thread's sleeps end on time: the kernel's default
/// timer slack lets a sleep run 50 us late, which a paced job would count
/// as its own lateness in every I/O's response time. Best effort.
pub fn precise_timers() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and changes only
    // the calling thread's timer slack.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
}

/// Pins the calling thread to `cpus` (fio's `cpus_allowed`), with
/// sched_setaffinity. Fails with EINVAL when one of them does not exist
/// (the kernel alone would drop it silently), or when none may be used.
pub fn pin_thread(cpus: &[u32]) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let capacity = (8 * std::mem::size_of::<libc::cpu_set_t>()).min(cpus_configured());
    for &cpu in cpus {
        let cpu = cpu as usize;
        if cpu >= capacity {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        // SAFETY: `cpu` is below the set's capacity, checked above.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size given; pid 0 is this thread.
    check(unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set) })
}

/// Sets the calling thread's I/O priority (fio's `prioclass`/`prio`),
/// with ioprio_set; `value` is the kernel's ioprio (class << 13 | hint << 3
/// | level). The real-time class needs CAP_SYS_ADMIN or CAP_SYS_NICE (EPERM
/// without).
pub fn set_thread_ioprio(value: u16) -> io::Result<()> {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    // SAFETY: ioprio_set takes three integers; who 0 is the calling thread.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_ioprio_set,
            IOPRIO_WHO_PROCESS,
            0 as libc::c_long,
            libc::c_long::from(value),
        )
    };
    check(ret as libc::c_int)
}

/// The calling thread's I/O priority, as [`set_thread_ioprio`] takes it.
pub fn thread_ioprio() -> io::Result<u16> {
    const IOPRIO_WHO_PROCESS: libc::c_long = 1;
    // SAFETY: ioprio_get takes two integers and returns one.
    let ret = unsafe { libc::syscall(libc::SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0 as libc::c_long) };
    check(ret.min(0) as libc::c_int)?;
    Ok(ret as u16)
}

/// The kernel's page size.
pub fn page_size() -> usize {
    // SAFETY: sysconf only reads a system value.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(n).unwrap_or(4096).max(1)
}

/// A node mask for set_mempolicy and mbind, with its `maxnode` (the kernel
/// reads `maxnode - 1` bits; 0 and a null mask for no nodes).
struct NodeMask {
    bits: Vec<libc::c_ulong>,
    maxnode: libc::c_ulong,
}

impl NodeMask {
    /// The mask of `nodes`; EINVAL for a node past 1023.
    fn of(nodes: &[u32]) -> io::Result<NodeMask> {
        const MAX_NODES: usize = 1024;
        let word = libc::c_ulong::BITS as usize;
        let mut bits = vec![0 as libc::c_ulong; MAX_NODES / word];
        for &n in nodes {
            let n = n as usize;
            if n >= MAX_NODES {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            bits[n / word] |= 1 << (n % word);
        }
        let maxnode = if nodes.is_empty() { 0 } else { MAX_NODES + 1 };
        Ok(NodeMask {
            bits,
            maxnode: maxnode as libc::c_ulong,
        })
    }

    fn ptr(&self) -> *const libc::c_ulong {
        match self.maxnode {
            0 => std::ptr::null(),
            _ => self.bits.as_ptr(),
        }
    }
}

/// Sets the calling thread's NUMA memory policy (fio's `numa_mem_policy`)
/// with set_mempolicy: `mode` is the kernel's `MPOL_*`, `nodes` empty for
/// `MPOL_DEFAULT` and `MPOL_LOCAL`. Later allocations follow it.
pub fn set_thread_mempolicy(mode: i32, nodes: &[u32]) -> io::Result<()> {
    let mask = NodeMask::of(nodes)?;
    // SAFETY: the mask holds `maxnode - 1` bits (or is null with 0); the
    // call reads it and changes only this thread's policy.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_set_mempolicy,
            libc::c_long::from(mode),
            mask.ptr(),
            mask.maxnode,
        )
    };
    check(ret as libc::c_int)
}

/// mbind of `len` bytes at `addr` (page-aligned) to a memory policy, with
/// MPOL_MF_MOVE: the pages already there move to the policy's nodes.
pub(crate) fn mbind(addr: usize, len: usize, mode: i32, nodes: &[u32]) -> io::Result<()> {
    const MPOL_MF_MOVE: libc::c_ulong = 1 << 1;
    let mask = NodeMask::of(nodes)?;
    // SAFETY: mbind only changes the policy of (and may move) the pages of
    // the range, which belongs to the caller's allocation; the contents
    // stay the same, so no reference into it is invalidated.
    let ret = unsafe {
        libc::syscall(
            libc::SYS_mbind,
            addr,
            len,
            libc::c_long::from(mode),
            mask.ptr(),
            mask.maxnode,
            MPOL_MF_MOVE,
        )
    };
    check(ret as libc::c_int)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_is_pinned_to_cpus_that_exist_only() {
        // This test's own thread; the kernel keeps the CPUs this process may use.
        let every: Vec<u32> = (0..cpus_configured() as u32).collect();
        assert!(pin_thread(&every).is_ok());
        assert!(pin_thread(&[cpus_configured() as u32]).is_err());
        assert!(pin_thread(&[1 << 20]).is_err());
    }

    #[test]
    fn a_thread_keeps_the_io_priority_it_is_given() {
        // A thread of its own: the test harness's threads keep theirs.
        std::thread::spawn(|| {
            let idle_3 = (3 << 13) | 3;
            set_thread_ioprio(idle_3).unwrap();
            assert_eq!(thread_ioprio().unwrap(), idle_3);
            // Class 4 does not exist.
            assert!(set_thread_ioprio(4 << 13).is_err());
        })
        .join()
        .unwrap();
    }

    #[test]
    fn memory_policies_take_the_nodes_there_are() {
        std::thread::spawn(|| {
            // Node 0 exists on every Linux machine (the only one without NUMA).
            set_thread_mempolicy(2, &[0]).unwrap();
            set_thread_mempolicy(3, &[0]).unwrap();
            set_thread_mempolicy(4, &[]).unwrap();
            set_thread_mempolicy(0, &[]).unwrap();
            assert!(set_thread_mempolicy(2, &[1000]).is_err());
            assert!(set_thread_mempolicy(2, &[5000]).is_err());
            let mut pool = crate::BufferPool::new(4, 4096, 4096);
            pool.bind_to_nodes(2, &[0]).unwrap();
            pool.bind_to_nodes(0, &[]).unwrap();
        })
        .join()
        .unwrap();
    }

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
    fn fallocate_keep_size_reserves_without_growing() {
        let f = tempfile::tempfile().unwrap();
        fallocate(&f, true, 0, 1 << 20).unwrap();
        let m = f.metadata().unwrap();
        assert_eq!(m.len(), 0);
        assert!(std::os::unix::fs::MetadataExt::blocks(&m) * 512 >= 1 << 20);
        fallocate(&f, false, 0, 1 << 16).unwrap();
        assert_eq!(f.metadata().unwrap().len(), 1 << 16);
    }

    #[test]
    fn a_trim_of_a_file_frees_its_blocks_and_keeps_its_length() {
        use std::io::{Read, Seek, Write};
        use std::os::unix::fs::MetadataExt;
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        let before = f.metadata().unwrap().blocks();
        trim(&f, 0, 1 << 19).unwrap();
        let m = f.metadata().unwrap();
        assert_eq!(m.len(), 1 << 20);
        assert!(
            m.blocks() * 512 <= before * 512 - (1 << 19),
            "{before} -> {}",
            m.blocks()
        );
        let mut back = vec![1u8; 1 << 19];
        f.rewind().unwrap();
        f.read_exact(&mut back).unwrap();
        assert!(back.iter().all(|&b| b == 0));
    }

    #[test]
    fn range_sync_and_fd_replacement() {
        use std::io::{Read, Seek, Write};
        let mut a = tempfile::tempfile().unwrap();
        let mut b = tempfile::tempfile().unwrap();
        a.write_all(b"aaaa").unwrap();
        b.write_all(b"bbbb").unwrap();
        let how = RangeSync {
            write: true,
            wait_after: true,
            ..RangeSync::default()
        };
        sync_file_range(&a, 0, 4, how).unwrap();
        replace_fd(&a, &b).unwrap();
        drop(b);
        let mut text = String::new();
        a.rewind().unwrap();
        a.read_to_string(&mut text).unwrap();
        assert_eq!(text, "bbbb");
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
