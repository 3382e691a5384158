//! `mmap`: fio's engine of that name. Each file is mapped (MAP_SHARED) and
//! every I/O is a copy between the slot's buffer and the mapping, done in
//! `queue`: the page cache is read and written through page faults instead
//! of read/write system calls.
//!
//! As fio does, the whole file is mapped on its first I/O; when the kernel
//! refuses a mapping that large, only the I/O's own pages are mapped, one
//! I/O at a time. The job's access pattern (`fadvise_hint`) is given to the
//! mapping with posix_madvise, because readahead on a fault follows the
//! mapping's advice, not the descriptor's. A sync (`fsync=`, `end_fsync`)
//! is msync(MS_SYNC) of the mapping, fio's way. With `direct=1` (a file
//! opened O_DIRECT) fio msyncs each I/O's range when it is done and asks
//! POSIX_MADV_DONTNEED, which glibc ignores on Linux; diskbench does the
//! msync and no more.
//!
//! The mapping is never lent as a slice: bytes go in and out by copy,
//! checked against its bounds and the file's length when it was mapped, so
//! nothing borrowed can outlive it. An I/O past the end of the file reads
//! 0 bytes (as pread does) and a write there fails with EINVAL: a mapping
//! cannot make a file longer (fio's FIO_NOEXTEND), so the runner lays out
//! the files this engine writes. The engine truncates nothing; a file cut
//! short by another process while mapped would fault (SIGBUS), in fio too.

use crate::open::{checked_buffer, sync_fd};
use crate::sync::DoneList;
use crate::sys::Advice;
use crate::{BufferPool, Capabilities, Direction, Engine, EngineConfig, EngineError, IoRequest};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileTypeExt;
use std::ptr::NonNull;

fn page_size() -> u64 {
    // SAFETY: sysconf reads a constant of the system; no memory is passed.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if page > 0 {
        page as u64
    } else {
        4096
    }
}

/// A shared mapping of a file's bytes `start..start + len`, unmapped on drop.
/// It hands out no reference into the mapped memory.
struct Mapping {
    ptr: NonNull<u8>,
    start: u64,
    len: usize,
    writable: bool,
}

// SAFETY: the mapping is owned by this value alone (no reference into it
// is ever handed out), so moving it to another thread moves sole access.
unsafe impl Send for Mapping {}

impl Mapping {
    /// Maps `len` bytes of `file` from `start` (a multiple of the page size),
    /// readable, and writable when `writable`.
    fn new(file: &File, start: u64, len: usize, writable: bool) -> io::Result<Mapping> {
        let prot = match writable {
            true => libc::PROT_READ | libc::PROT_WRITE,
            false => libc::PROT_READ,
        };
        // SAFETY: a new mapping at an address the kernel picks: no existing
        // memory is touched; the result is checked before use.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                prot,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                start as libc::off_t,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let ptr = NonNull::new(ptr.cast::<u8>())
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EFAULT))?;
        Ok(Mapping {
            ptr,
            start,
            len,
            writable,
        })
    }

    /// The index in the mapping of `offset..offset + len`, if it lies inside.
    fn index(&self, offset: u64, len: usize) -> Option<usize> {
        let at = offset.checked_sub(self.start)? as usize;
        (at.checked_add(len)? <= self.len).then_some(at)
    }

    /// Copies the mapped bytes at `offset` into `dst`; false when they are
    /// not all inside the mapping (nothing copied).
    fn copy_out(&self, offset: u64, dst: &mut [u8]) -> bool {
        let Some(at) = self.index(offset, dst.len()) else {
            return false;
        };
        // SAFETY: `index` checked that `at..at + dst.len()` lies inside the
        // mapping, which lives as long as `self`; `dst` is a distinct
        // buffer (engine memory, never the mapping itself).
        unsafe {
            std::ptr::copy_nonoverlapping(self.ptr.as_ptr().add(at), dst.as_mut_ptr(), dst.len())
        };
        true
    }

    /// Copies `src` into the mapping at `offset`; false when it does not fit
    /// (nothing copied), or the mapping is read-only.
    fn copy_in(&mut self, offset: u64, src: &[u8]) -> bool {
        let Some(at) = self.index(offset, src.len()).filter(|_| self.writable) else {
            return false;
        };
        // SAFETY: as in `copy_out`; the mapping is writable (PROT_WRITE),
        // so the store does not fault.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), self.ptr.as_ptr().add(at), src.len())
        };
        true
    }

    /// msync(MS_SYNC) of the pages holding `offset..offset + len`, clipped
    /// to the mapping.
    fn sync(&self, offset: u64, len: usize) -> io::Result<()> {
        let page = page_size() as usize;
        let from = offset.saturating_sub(self.start).min(self.len as u64) as usize;
        let from = from - from % page;
        let to = (offset.saturating_sub(self.start) as usize)
            .saturating_add(len)
            .min(self.len);
        if to <= from {
            return Ok(());
        }
        // SAFETY: `from` is page-aligned (the mapping starts on a page) and
        // `from..to` lies inside the mapping; msync reads no user memory.
        let ret =
            unsafe { libc::msync(self.ptr.as_ptr().add(from).cast(), to - from, libc::MS_SYNC) };
        match ret {
            0 => Ok(()),
            _ => Err(io::Error::last_os_error()),
        }
    }

    /// The access pattern of the whole mapping (posix_madvise).
    fn advise(&self, advice: Advice) -> io::Result<()> {
        let flag = match advice {
            Advice::Normal => libc::POSIX_MADV_NORMAL,
            Advice::Sequential => libc::POSIX_MADV_SEQUENTIAL,
            Advice::Random => libc::POSIX_MADV_RANDOM,
        };
        // SAFETY: the range is this mapping; advice changes no memory.
        let ret = unsafe { libc::posix_madvise(self.ptr.as_ptr().cast(), self.len, flag) };
        match ret {
            0 => Ok(()),
            e => Err(io::Error::from_raw_os_error(e)),
        }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping was made by `new` with this address and length
        // and no reference into it exists; it is unmapped once.
        unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

/// One file's mapping and what its descriptor allows.
struct FileMap {
    map: Option<Mapping>,
    /// Opened read-write: the mapping may be written.
    writable: bool,
    /// Opened O_DIRECT: each I/O's range is msynced (see the module doc).
    direct: bool,
    /// The kernel refused a mapping of the whole file: map each I/O's pages.
    chunked: bool,
}

impl FileMap {
    fn new(file: &File) -> FileMap {
        // SAFETY: F_GETFL on a descriptor the config owns; no memory is passed.
        let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) }.max(0);
        FileMap {
            map: None,
            writable: flags & libc::O_ACCMODE == libc::O_RDWR,
            direct: flags & libc::O_DIRECT != 0,
            chunked: false,
        }
    }
}

/// The length of a file or block device now.
fn length(file: &File) -> io::Result<u64> {
    let meta = file.metadata()?;
    if !meta.file_type().is_block_device() {
        return Ok(meta.len());
    }
    // SAFETY: lseek on a descriptor the config owns; every engine does
    // positioned I/O, so moving the descriptor's offset changes nothing.
    let end = unsafe { libc::lseek(file.as_raw_fd(), 0, libc::SEEK_END) };
    match end {
        e if e >= 0 => Ok(e as u64),
        _ => Err(io::Error::last_os_error()),
    }
}

pub struct MmapEngine {
    cfg: EngineConfig,
    buffers: BufferPool,
    done: DoneList,
    files: Vec<FileMap>,
    page: u64,
}

impl MmapEngine {
    pub fn new(cfg: &EngineConfig) -> Result<MmapEngine, EngineError> {
        Ok(MmapEngine {
            cfg: cfg.clone(),
            buffers: cfg.buffers(cfg.depth as usize, cfg.align)?,
            done: DoneList::new(cfg.depth),
            files: cfg.files.iter().map(FileMap::new).collect(),
            page: page_size(),
        })
    }

    /// Makes file `i`'s mapping cover `offset..offset + len` (of a file of
    /// `size` bytes, `offset + len <= size`): the whole file, or when that
    /// is refused, the I/O's pages.
    fn map(&mut self, i: usize, offset: u64, len: u64, size: u64) -> io::Result<()> {
        let file = &self.cfg.files[i];
        let fm = &mut self.files[i];
        fm.map = None; // unmapped before mapping anew, as fio does
        let whole = match fm.chunked {
            false => usize::try_from(size)
                .ok()
                .map(|n| Mapping::new(file, 0, n, fm.writable)),
            true => None,
        };
        let map = match whole {
            Some(Ok(map)) => map,
            _ => {
                fm.chunked = true;
                let start = offset - offset % self.page;
                let end = (offset + len).next_multiple_of(self.page).min(size);
                let n = usize::try_from(end - start)
                    .map_err(|_| io::Error::from_raw_os_error(libc::ENOMEM))?;
                Mapping::new(file, start, n, fm.writable)?
            }
        };
        if let Some(advice) = self.cfg.advice {
            map.advise(advice)?;
        }
        fm.map = Some(map);
        Ok(())
    }

    /// One I/O between `buf` and file `req.file`: bytes moved, or the errno.
    fn transfer(&mut self, req: &IoRequest, buf: &mut [u8]) -> io::Result<u64> {
        let i = req.file as usize;
        let err = |n| Err(io::Error::from_raw_os_error(n));
        if req.dir == Direction::Write && !self.files[i].writable {
            return err(libc::EBADF); // what pwrite says on a read-only descriptor
        }
        let covered = self.files[i]
            .map
            .as_ref()
            .is_some_and(|m| m.index(req.offset, buf.len()).is_some());
        let mut n = buf.len() as u64;
        if !covered {
            let size = length(&self.cfg.files[i])?;
            n = n.min(size.saturating_sub(req.offset));
            if n < buf.len() as u64 && req.dir == Direction::Write {
                return err(libc::EINVAL); // a mapping cannot extend the file
            }
            if n == 0 {
                return Ok(0); // at or past the end: nothing to read
            }
            self.map(i, req.offset, n, size)?;
        }
        let fm = &mut self.files[i];
        let map = fm.map.as_mut().expect("mapped above");
        let part = &mut buf[..n as usize];
        let copied = match req.dir {
            Direction::Read => map.copy_out(req.offset, part),
            Direction::Write => map.copy_in(req.offset, part),
        };
        if !copied {
            return err(libc::EFAULT); // not reached: the mapping covers the I/O
        }
        if fm.direct {
            map.sync(req.offset, n as usize)?;
        }
        Ok(n)
    }
}

impl Engine for MmapEngine {
    owned_buffers_engine!("mmap", Capabilities::io(false));
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        let ptr = checked_buffer(&self.cfg, &mut self.buffers, &req)?;
        // SAFETY: `checked_buffer` checked that `req.len` bytes from `ptr` lie
        // inside this slot's buffer, which `self.buffers` owns; the slot is
        // lent (no other reference to it can be made) until it is given
        // back below. The buffer is not the mapping: `transfer` copies
        // between two distinct memories.
        let buf = unsafe { std::slice::from_raw_parts_mut(ptr, req.len as usize) };
        let res = self.transfer(&req, buf);
        self.buffers.give_back(req.slot);
        self.done.push(req.slot, res);
        Ok(())
    }
    reaps_done_list!();
    /// msync(MS_SYNC) of the file's mapping, as fio's engine syncs; before
    /// any I/O mapped it, and when it is mapped piece by piece (pieces
    /// already unmapped hold dirty pages too), the descriptor's fsync.
    fn sync_file(&mut self, file: u32, data_only: bool) -> Result<(), EngineError> {
        let fm = self.files.get(file as usize);
        match fm.and_then(|f| f.map.as_ref().filter(|_| !f.chunked)) {
            Some(map) => map
                .sync(map.start, map.len)
                .map_err(|source| EngineError::File {
                    op: "msync",
                    path: self.cfg.path(file),
                    source,
                }),
            None => sync_fd(&self.cfg, file, data_only),
        }
    }
    fn trim_file(&mut self, file: u32, offset: u64, len: u64) -> Result<(), EngineError> {
        crate::open::trim_fd(&self.cfg, file, offset, len)
    }
}
