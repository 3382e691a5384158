//! Where a buffer pool's memory comes from (fio's `iomem`), and how much of
//! it the kernel really backed with huge pages.
//!
//! Without `iomem`, a pool that holds large buffers is a private mapping
//! asked for transparent huge pages (see `buffers` for when and why); with
//! `iomem=malloc`, `mmap`, `mmapshared` or `shm` the memory is what fio
//! would use, and it is marked MADV_NOHUGEPAGE: fio's buffers are plain
//! pages unless THP happens to back them (`enabled=always`), and a
//! comparison with fio must not depend on that chance. `mmaphuge` and
//! `shmhuge` take hugetlbfs pages, which exist only when reserved in
//! `/proc/sys/vm/nr_hugepages`; without them the job fails and says so, as
//! fio's job does (fio 3.33: `err=12 ... func=mmap`), rather than quietly
//! measuring with other memory.
//!
//! Mappings get a PROT_NONE guard page on each side. Two anonymous
//! mappings with the same flags that touch are merged into one area by the
//! kernel, and the huge-page count comes from the area's line in
//! `/proc/self/smaps`: without guards, two workers' pools would share a
//! line and each would report both.

use model::{IoMem, MemoryKind};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::io;
use std::ptr::NonNull;

/// The transparent huge page size on x86-64 and arm64 (4 KiB base pages).
pub(crate) const HUGE_PAGE: usize = 2 << 20;

pub(crate) enum Memory {
    Heap {
        ptr: NonNull<u8>,
        layout: Layout,
    },
    /// `ptr..ptr+len` inside the mapping `base..base+map_len`.
    Mapped {
        base: NonNull<u8>,
        map_len: usize,
        ptr: NonNull<u8>,
        len: usize,
    },
    /// A SysV segment attached at `base`, already marked for removal.
    Shm {
        base: NonNull<u8>,
        ptr: NonNull<u8>,
        len: usize,
    },
}

fn page_size() -> usize {
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    usize::try_from(page)
        .ok()
        .filter(|&p| p > 0)
        .unwrap_or(4096)
}

/// The hugetlbfs page size (`Hugepagesize:` in /proc/meminfo), which
/// MAP_HUGETLB and SHM_HUGETLB use.
pub(crate) fn hugetlb_page_size() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("Hugepagesize:"))?;
            let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024)
        })
        .unwrap_or(HUGE_PAGE)
}

/// `madvise`, on a range of our own memory; failure only leaves the
/// kernel's default backing, so it is ignored.
fn advise(ptr: *mut u8, len: usize, advice: libc::c_int) {
    let page = page_size();
    let start = (ptr as usize).next_multiple_of(page);
    let end = (ptr as usize + len) / page * page;
    if end > start {
        // SAFETY: the range is whole pages inside memory the pool owns;
        // MADV_(NO)HUGEPAGE only changes how it is backed, never its contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, advice) };
    }
}

impl Memory {
    /// `len` bytes aligned to `align`, as `iomem` asks; `huge` is the
    /// default's choice of transparent huge pages. Only `Default` never fails.
    pub(crate) fn allocate(
        iomem: IoMem,
        len: usize,
        align: usize,
        huge: bool,
    ) -> io::Result<(Memory, MemoryKind)> {
        let plain = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        Ok(match iomem {
            IoMem::Default if huge => {
                match Memory::map(len.next_multiple_of(HUGE_PAGE), HUGE_PAGE, plain) {
                    Ok(m) => {
                        advise(m.ptr(), m.len(), libc::MADV_HUGEPAGE);
                        (m, MemoryKind::MmapThp)
                    }
                    Err(_) => (Memory::heap(len, align), MemoryKind::Heap),
                }
            }
            IoMem::Default => (Memory::heap(len, align), MemoryKind::Heap),
            IoMem::Malloc => (Memory::heap(len, align), MemoryKind::Heap),
            IoMem::Mmap => (Memory::map(len, align, plain)?, MemoryKind::Mmap),
            IoMem::MmapShared => (
                Memory::map(len, align, libc::MAP_SHARED | libc::MAP_ANONYMOUS)?,
                MemoryKind::MmapShared,
            ),
            IoMem::MmapHuge => (Memory::map_hugetlb(len)?, MemoryKind::MmapHugetlb),
            IoMem::Shm => (Memory::shm(len, align, 0)?, MemoryKind::Shm),
            IoMem::ShmHuge => (
                Memory::shm(len, align, libc::SHM_HUGETLB)?,
                MemoryKind::ShmHugetlb,
            ),
        })
        .map(|(m, kind)| {
            if !matches!(iomem, IoMem::Default | IoMem::MmapHuge | IoMem::ShmHuge) {
                // fio's plain pages (see the module comment).
                advise(m.ptr(), m.len(), libc::MADV_NOHUGEPAGE);
            }
            (m, kind)
        })
    }

    fn heap(len: usize, align: usize) -> Memory {
        let layout = Layout::from_size_align(len.max(1), align).expect("buffer layout");
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Memory::Heap { ptr, layout }
    }

    /// A fresh anonymous mapping of `len` bytes aligned to `align`, with a
    /// PROT_NONE guard page on each side (see the module comment).
    fn map(len: usize, align: usize, flags: libc::c_int) -> io::Result<Memory> {
        let page = page_size();
        let align = align.max(page);
        let len = len.max(1).next_multiple_of(page);
        // One page of guard below, and enough slack to align, which leaves
        // at least one page of guard above.
        let map_len = len + align + page;
        // SAFETY: an anonymous mapping with no address hint; the result is
        // checked against MAP_FAILED before use.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                flags,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let base = NonNull::new(raw.cast::<u8>()).expect("mmap never returns null on success");
        let start = (base.as_ptr() as usize + page).next_multiple_of(align);
        let offset = start - base.as_ptr() as usize;
        // SAFETY: page <= offset <= align, so ptr..ptr+len (and a page after
        // it) lies inside the mapping of len + align + page bytes.
        let ptr = unsafe { NonNull::new_unchecked(base.as_ptr().add(offset)) };
        let memory = Memory::Mapped {
            base,
            map_len,
            ptr,
            len,
        };
        let tail = offset + len;
        // SAFETY: both ranges are whole pages of our own mapping outside the
        // buffers, which nothing ever reads or writes.
        unsafe {
            libc::mprotect(base.as_ptr().cast(), offset, libc::PROT_NONE);
            libc::mprotect(
                base.as_ptr().add(tail).cast(),
                map_len - tail,
                libc::PROT_NONE,
            );
        }
        Ok(memory)
    }

    /// A private mapping of hugetlbfs pages. Hugetlb areas never merge with
    /// their neighbours, so it needs no guards.
    fn map_hugetlb(len: usize) -> io::Result<Memory> {
        let len = len.max(1).next_multiple_of(hugetlb_page_size());
        // SAFETY: as in `map`; MAP_HUGETLB reserves the pages now, so a
        // missing reservation fails here (ENOMEM), not with SIGBUS later.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_HUGETLB,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let base = NonNull::new(raw.cast::<u8>()).expect("mmap never returns null on success");
        Ok(Memory::Mapped {
            base,
            map_len: len,
            ptr: base,
            len,
        })
    }

    /// A SysV segment, removed (IPC_RMID) as soon as it is attached: it then
    /// lives only as long as this process keeps it attached, so a crash
    /// cannot leak it.
    fn shm(len: usize, align: usize, flags: libc::c_int) -> io::Result<Memory> {
        let unit = match flags & libc::SHM_HUGETLB {
            0 => page_size(),
            _ => hugetlb_page_size(),
        };
        let align = align.max(unit);
        let len = len.max(1).next_multiple_of(unit);
        let seg_len = len + (align - unit);
        // SAFETY: shmget takes plain integers.
        let id =
            unsafe { libc::shmget(libc::IPC_PRIVATE, seg_len, libc::IPC_CREAT | 0o600 | flags) };
        if id < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: attaching a segment we just made, at an address of the
        // kernel's choice.
        let raw = unsafe { libc::shmat(id, std::ptr::null(), 0) };
        let attached = io::Error::last_os_error();
        // SAFETY: marks the segment for removal once detached; it is never
        // looked up again by id. Done before checking shmat, so a failed
        // attach leaves nothing behind either.
        unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
        if raw as isize == -1 {
            return Err(attached);
        }
        let base = NonNull::new(raw.cast::<u8>()).expect("shmat never returns null on success");
        let start = (base.as_ptr() as usize).next_multiple_of(align);
        // SAFETY: the segment is attached at a multiple of `unit`, so
        // start - base <= align - unit and start..start+len fits in seg_len.
        let ptr =
            unsafe { NonNull::new_unchecked(base.as_ptr().add(start - base.as_ptr() as usize)) };
        Ok(Memory::Shm { base, ptr, len })
    }

    pub(crate) fn ptr(&self) -> *mut u8 {
        match self {
            Memory::Heap { ptr, .. } | Memory::Mapped { ptr, .. } | Memory::Shm { ptr, .. } => {
                ptr.as_ptr()
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Memory::Heap { layout, .. } => layout.size(),
            Memory::Mapped { len, .. } | Memory::Shm { len, .. } => *len,
        }
    }

    /// Bytes of this memory backed by huge pages, from /proc/self/smaps; 0
    /// when it cannot be read.
    pub(crate) fn huge_page_bytes(&self) -> u64 {
        let start = self.ptr() as usize;
        std::fs::read_to_string("/proc/self/smaps")
            .map(|smaps| huge_bytes_in(&smaps, start, start + self.len()))
            .unwrap_or(0)
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        match self {
            // SAFETY: allocated in `heap` with exactly this layout.
            Memory::Heap { ptr, layout } => unsafe { dealloc(ptr.as_ptr(), *layout) },
            // SAFETY: `base` and `map_len` are exactly what mmap returned and was given.
            Memory::Mapped { base, map_len, .. } => unsafe {
                libc::munmap(base.as_ptr().cast(), *map_len);
            },
            // SAFETY: `base` is what shmat returned; detaching the last
            // attachment frees the segment (it is marked IPC_RMID).
            Memory::Shm { base, .. } => unsafe {
                libc::shmdt(base.as_ptr().cast());
            },
        }
    }
}

/// Huge-page bytes of the areas of `smaps` (the text of /proc/PID/smaps)
/// that overlap `start..end`: transparent (`AnonHugePages`, and shmem's
/// `ShmemPmdMapped`) and hugetlbfs (`Private_Hugetlb`, `Shared_Hugetlb`).
/// Each area counts at most its overlap, so an area that also holds other
/// memory (the heap) cannot make the figure larger than the range.
pub(crate) fn huge_bytes_in(smaps: &str, start: usize, end: usize) -> u64 {
    const HUGE_FIELDS: [&str; 4] = [
        "AnonHugePages:",
        "ShmemPmdMapped:",
        "Private_Hugetlb:",
        "Shared_Hugetlb:",
    ];
    let mut total = 0u64;
    let mut overlap = 0u64;
    let mut huge = 0u64;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((lo, hi)) = area_range(first) {
            total += huge.min(overlap);
            overlap = (hi.min(end).saturating_sub(lo.max(start))) as u64;
            huge = 0;
        } else if overlap > 0 && HUGE_FIELDS.contains(&first) {
            let kb: u64 = line
                .split_whitespace()
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            huge += kb * 1024;
        }
    }
    total + huge.min(overlap)
}

/// `7f00-7f80` (an area's header) as a range.
fn area_range(word: &str) -> Option<(usize, usize)> {
    let (lo, hi) = word.split_once('-')?;
    Some((
        usize::from_str_radix(lo, 16).ok()?,
        usize::from_str_radix(hi, 16).ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMAPS: &str = "\
00400000-00600000 r-xp 00000000 fd:00 1 /bin/x
AnonHugePages:      2048 kB
7f0000000000-7f0000600000 rw-p 00000000 00:00 0
Size:               6144 kB
AnonHugePages:      4096 kB
Private_Hugetlb:       0 kB
7f0000600000-7f0000800000 rw-s 00000000 00:01 5 /SYSV00000000 (deleted)
Shared_Hugetlb:     2048 kB
";

    #[test]
    fn counts_only_the_areas_in_range_and_at_most_their_overlap() {
        let base = 0x7f00_0000_0000usize;
        assert_eq!(huge_bytes_in(SMAPS, base, base + (6 << 20)), 4 << 20);
        assert_eq!(huge_bytes_in(SMAPS, base, base + (8 << 20)), 6 << 20);
        // Only 1 MiB of the first area is ours: never more than that.
        assert_eq!(huge_bytes_in(SMAPS, base, base + (1 << 20)), 1 << 20);
        assert_eq!(huge_bytes_in(SMAPS, 0x1000, 0x2000), 0);
        assert_eq!(huge_bytes_in("garbage\n-\nx-y z\n", 0, usize::MAX), 0);
    }

    #[test]
    fn mappings_have_guards_and_alignment() {
        let (m, kind) = Memory::allocate(IoMem::Mmap, 3 << 20, 4096, false).unwrap();
        assert_eq!(kind, MemoryKind::Mmap);
        assert_eq!(m.ptr() as usize % 4096, 0);
        assert_eq!(m.huge_page_bytes(), 0, "MADV_NOHUGEPAGE");
        let (m, _) = Memory::allocate(IoMem::Default, 2 << 20, 4096, true).unwrap();
        assert_eq!(m.ptr() as usize % HUGE_PAGE, 0);
        // The guards keep the buffers an area of their own in smaps.
        let (start, end) = (m.ptr() as usize, m.ptr() as usize + m.len());
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let area = smaps
            .lines()
            .filter_map(|l| area_range(l.split_whitespace().next().unwrap_or("")))
            .find(|&(lo, hi)| lo <= start && start < hi);
        assert_eq!(area, Some((start, end)));
    }

    #[test]
    fn shm_is_removed_at_once() {
        let Ok((m, kind)) = Memory::allocate(IoMem::Shm, 1 << 20, 4096, false) else {
            return eprintln!("skipping: SysV shared memory refused here");
        };
        assert_eq!(kind, MemoryKind::Shm);
        // SAFETY: the segment is ours and 1 MiB long.
        unsafe { m.ptr().write_bytes(7, 1 << 20) };
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let header = smaps
            .lines()
            .find(|l| {
                area_range(l.split_whitespace().next().unwrap_or(""))
                    .is_some_and(|(lo, hi)| lo <= m.ptr() as usize && (m.ptr() as usize) < hi)
            })
            .unwrap();
        assert!(header.contains("(deleted)"), "{header}");
    }
}
