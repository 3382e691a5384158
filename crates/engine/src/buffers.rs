//! Aligned I/O buffers, one per slot, filled with incompressible random data.
//! O_DIRECT needs memory aligned to the device's DIO alignment; a plain
//! `Vec<u8>` gives no such promise.
//!
//! By default (no `iomem`), a pool of 1 MiB or more, or one whose buffers
//! are 256 KiB or more, is a 2 MiB-aligned mapping asked for transparent
//! huge pages, rounded up to 2 MiB. Each buffer is then physically
//! contiguous, so a 1 MiB direct I/O is one segment instead of 256
//! scattered pages. A device with a segment limit (virtio-blk: 254; many
//! SCSI and NVMe devices: 64 to 128, i.e. 256 to 512 KiB of 4 KiB pages)
//! otherwise splits every such I/O, and sequential 1 MiB reads ran at 60% of
//! fio's speed. The rule follows the buffer size, not the pool size: a QD1
//! 1 MiB job has a 1 MiB pool, and when only pools of 2 MiB got huge pages,
//! its I/Os were split where the same job at QD2 was not, so the depth
//! changed what the device saw. Rounding a small pool up costs at most
//! 2 MiB per worker. Smaller pools stay on the heap: their I/Os are short
//! enough to fit any segment limit.
//!
//! How much of the pool really is huge pages is measured once it is filled
//! (see `memory`), and reported with the job.

use crate::memory::Memory;
use model::{BufferMemory, IoMem, MemoryKind};
use std::io;

/// Pools at least this large get huge pages by default.
const HUGE_POOL_BYTES: usize = 1 << 20;
/// Pools whose buffers are at least this large get huge pages by default.
const HUGE_SLOT_BYTES: usize = 256 << 10;

/// The slots' buffers, and which of them the kernel holds. A slot is lent
/// when an asynchronous engine hands its buffer to the kernel and given back
/// when its completion is reaped; safe code gets no reference to a lent
/// slot, so it can never read or write memory the kernel is writing.
pub struct BufferPool {
    memory: Memory,
    /// What the memory is, as measured when the pool was made.
    report: BufferMemory,
    slot_bytes: usize,
    slots: usize,
    lent: Vec<bool>,
}

// SAFETY: the pool owns its allocation exclusively; moving it to another thread is fine.
unsafe impl Send for BufferPool {}

impl BufferPool {
    /// `slots` buffers of `slot_bytes` each, every one aligned to `align` (a
    /// power of two), in diskbench's default memory.
    pub fn new(slots: usize, slot_bytes: usize, align: usize) -> BufferPool {
        BufferPool::with_memory(slots, slot_bytes, align, IoMem::Default)
            .expect("the default memory falls back to the heap and cannot fail")
    }

    /// The same in the memory `iomem` asks for; an error when the kernel
    /// refuses it (hugetlbfs pages not reserved, SysV limits).
    pub fn with_memory(
        slots: usize,
        slot_bytes: usize,
        align: usize,
        iomem: IoMem,
    ) -> io::Result<BufferPool> {
        let align = align.max(64).next_power_of_two();
        let slot_bytes = slot_bytes.max(1).next_multiple_of(align);
        let total = slot_bytes * slots.max(1);
        let huge = total >= HUGE_POOL_BYTES || slot_bytes >= HUGE_SLOT_BYTES;
        let (memory, kind) = Memory::allocate(iomem, total, align, huge)?;
        let mut pool = BufferPool {
            report: BufferMemory {
                iomem,
                kind,
                bytes: memory.len() as u64,
                huge_page_bytes: 0,
            },
            memory,
            slot_bytes,
            slots: slots.max(1),
            lent: vec![false; slots.max(1)],
        };
        // Filling faults every page in, so the count below is what the
        // I/Os will use.
        fill_random(pool.all_mut(), model::rng::GOLDEN_GAMMA);
        pool.report.huge_page_bytes = match kind {
            // A small default pool is on the heap, in areas shared with other
            // allocations and not asked for huge pages: smaps cannot tell its
            // share apart, and reading it for every small pool costs time.
            MemoryKind::Heap if iomem == IoMem::Default => 0,
            _ => pool.memory.huge_page_bytes(),
        };
        Ok(pool)
    }

    /// What the buffers are: kind, size and how much is huge pages.
    pub fn memory(&self) -> BufferMemory {
        self.report
    }

    pub fn slots(&self) -> usize {
        self.slots
    }
    pub fn slot_bytes(&self) -> usize {
        self.slot_bytes
    }

    /// The buffer of `slot`, or `None` when it is out of range or lent to
    /// the kernel.
    pub fn slot(&mut self, slot: u32) -> Option<&mut [u8]> {
        if *self.lent.get(slot as usize)? {
            return None;
        }
        let ptr = self.slot_ptr(slot);
        // SAFETY: `slot_ptr` checked that the slot lies inside the allocation, whose
        // bytes are initialised; `&mut self` guarantees no other reference into it,
        // and the slot is not lent, so the kernel is not using it either. Only this
        // slot is borrowed, so the kernel may still own the others.
        Some(unsafe { std::slice::from_raw_parts_mut(ptr, self.slot_bytes) })
    }

    /// Marks `slot` as held by the kernel and returns its buffer's address,
    /// for an engine that is about to hand it over. Panics when `slot` is
    /// out of range (engines check requests first).
    pub(crate) fn lend(&mut self, slot: u32) -> *mut u8 {
        let ptr = self.slot_ptr(slot);
        self.lent[slot as usize] = true;
        ptr
    }

    /// Marks `slot` as back from the kernel: its completion was reaped.
    pub(crate) fn give_back(&mut self, slot: u32) {
        if let Some(lent) = self.lent.get_mut(slot as usize) {
            *lent = false;
        }
    }

    /// True when the kernel holds `slot`.
    pub fn is_lent(&self, slot: u32) -> bool {
        self.lent.get(slot as usize).copied().unwrap_or(false)
    }

    /// Raw pointer to a slot, for engines that hand it to the kernel. It is
    /// computed without borrowing the pool as a slice, so handing one slot to
    /// the kernel does not alias the slots that the kernel is already using.
    /// Panics when `slot` is out of range.
    pub(crate) fn slot_ptr(&mut self, slot: u32) -> *mut u8 {
        assert!(
            (slot as usize) < self.slots,
            "buffer slot {slot} out of range (the pool has {} slots)",
            self.slots
        );
        // SAFETY: slot < slots, so the offset stays inside the allocation.
        unsafe { self.memory.ptr().add(slot as usize * self.slot_bytes) }
    }

    /// Moves the buffers' pages to the NUMA nodes of a memory policy, and
    /// keeps them there (fio's `numa_mem_policy`, for the memory of the
    /// I/Os): mbind with MPOL_MF_MOVE over the pool's pages. `mode` is the
    /// kernel's `MPOL_*`; `nodes` is empty for the policies without nodes.
    pub fn bind_to_nodes(&mut self, mode: i32, nodes: &[u32]) -> std::io::Result<()> {
        let page = crate::sys::page_size();
        let start = self.memory.ptr() as usize / page * page;
        let end = (self.memory.ptr() as usize + self.memory.len()).next_multiple_of(page);
        crate::sys::mbind(start, end - start, mode, nodes)
    }

    fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: the memory holds `len()` initialised (zeroed) bytes owned by self,
        // and `&mut self` guarantees no other reference exists.
        unsafe { std::slice::from_raw_parts_mut(self.memory.ptr(), self.memory.len()) }
    }
}

/// Fills `buf` with xorshift output: incompressible, and fast enough for gigabytes.
pub fn fill_random(buf: &mut [u8], seed: u64) {
    let mut x = seed | 1;
    for chunk in buf.chunks_mut(8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let bytes = x.to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_pools_are_huge_page_aligned_and_usable() {
        let mut pool = BufferPool::new(8, 1 << 20, 4096);
        assert_eq!(pool.slot_ptr(0) as usize % crate::memory::HUGE_PAGE, 0);
        assert_eq!(pool.all_mut().len(), 8 << 20);
        pool.slot(7).unwrap()[(1 << 20) - 1] = 7;
        assert_eq!(pool.slot(7).unwrap()[(1 << 20) - 1], 7);
        let first = pool.slot(0).unwrap()[..64].to_vec();
        assert_ne!(first[..], pool.slot(1).unwrap()[..64]);
    }

    #[test]
    fn slots_are_aligned_and_random() {
        let mut pool = BufferPool::new(4, 4096, 4096);
        for s in 0..4 {
            assert_eq!(pool.slot_ptr(s) as usize % 4096, 0);
        }
        let a = pool.slot(0).unwrap().to_vec();
        let b = pool.slot(1).unwrap().to_vec();
        assert_ne!(a, b);
        assert!(a.iter().filter(|&&x| x == 0).count() < 100);
    }

    #[test]
    fn a_lent_slot_cannot_be_reached_until_it_is_given_back() {
        let mut pool = BufferPool::new(4, 4096, 4096);
        let ptr = pool.lend(2);
        assert_eq!(ptr, pool.slot_ptr(2));
        assert!(pool.is_lent(2));
        assert!(pool.slot(2).is_none());
        assert!(pool.slot(1).is_some(), "the other slots stay free");
        pool.give_back(2);
        assert!(pool.slot(2).is_some());
        assert!(pool.slot(4).is_none(), "out of range");
    }
}
