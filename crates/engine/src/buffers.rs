//! Aligned I/O buffers, one per slot, filled with incompressible random data.
//! O_DIRECT needs memory aligned to the device's DIO alignment; a plain
//! `Vec<u8>` gives no such promise.
//!
//! Pools of 2 MiB or more are 2 MiB-aligned and asked for transparent huge
//! pages. Each buffer is then physically contiguous, so a 1 MiB direct I/O
//! is one segment instead of 256 scattered pages. A device with a segment
//! limit (virtio-blk: 254) otherwise splits every such I/O in two, and
//! sequential 1 MiB reads ran at 60% of fio's speed.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

const HUGE_PAGE: usize = 2 << 20;

/// Where the buffers live: the heap for small pools, a private mapping for
/// pools that should have huge pages.
enum Memory {
    Heap {
        ptr: NonNull<u8>,
        layout: Layout,
    },
    Mapped {
        base: NonNull<u8>,
        map_len: usize,
        ptr: NonNull<u8>,
        len: usize,
    },
}

impl Memory {
    fn heap(len: usize, align: usize) -> Memory {
        let layout = Layout::from_size_align(len, align).expect("buffer layout");
        // SAFETY: `layout` has a non-zero size (slots and slot_bytes are at least 1).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        Memory::Heap { ptr, layout }
    }

    /// A fresh anonymous mapping (zero and untouched), 2 MiB-aligned and marked
    /// MADV_HUGEPAGE before any page is faulted in. Falls back to the heap.
    fn huge(len: usize) -> Memory {
        let len = len.next_multiple_of(HUGE_PAGE);
        let map_len = len + HUGE_PAGE;
        // SAFETY: an anonymous private mapping with no address hint; the result
        // is checked against MAP_FAILED before use.
        let raw = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == libc::MAP_FAILED {
            return Memory::heap(len, HUGE_PAGE);
        }
        let base = NonNull::new(raw.cast::<u8>()).expect("mmap never returns null on success");
        let offset = (HUGE_PAGE - base.as_ptr() as usize % HUGE_PAGE) % HUGE_PAGE;
        // SAFETY: offset < HUGE_PAGE, so ptr..ptr+len lies inside the mapping of len + HUGE_PAGE.
        let ptr = unsafe { NonNull::new_unchecked(base.as_ptr().add(offset)) };
        // SAFETY: the range is inside our own mapping; MADV_HUGEPAGE only changes how
        // it is backed, and failure (THP disabled) leaves small pages, which is fine.
        unsafe { libc::madvise(ptr.as_ptr().cast(), len, libc::MADV_HUGEPAGE) };
        Memory::Mapped {
            base,
            map_len,
            ptr,
            len,
        }
    }

    fn ptr(&self) -> *mut u8 {
        match self {
            Memory::Heap { ptr, .. } | Memory::Mapped { ptr, .. } => ptr.as_ptr(),
        }
    }

    fn len(&self) -> usize {
        match self {
            Memory::Heap { layout, .. } => layout.size(),
            Memory::Mapped { len, .. } => *len,
        }
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
        }
    }
}

/// The slots' buffers, and which of them the kernel holds. A slot is lent
/// when an asynchronous engine hands its buffer to the kernel and given back
/// when its completion is reaped; safe code gets no reference to a lent
/// slot, so it can never read or write memory the kernel is writing.
pub struct BufferPool {
    memory: Memory,
    slot_bytes: usize,
    slots: usize,
    lent: Vec<bool>,
}

// SAFETY: the pool owns its allocation exclusively; moving it to another thread is fine.
unsafe impl Send for BufferPool {}

impl BufferPool {
    /// `slots` buffers of `slot_bytes` each, every one aligned to `align` (a power of two).
    pub fn new(slots: usize, slot_bytes: usize, align: usize) -> BufferPool {
        let align = align.max(64).next_power_of_two();
        let slot_bytes = slot_bytes.max(1).next_multiple_of(align);
        let total = slot_bytes * slots.max(1);
        let memory = if total >= HUGE_PAGE {
            Memory::huge(total)
        } else {
            Memory::heap(total, align)
        };
        let mut pool = BufferPool {
            memory,
            slot_bytes,
            slots: slots.max(1),
            lent: vec![false; slots.max(1)],
        };
        fill_random(pool.all_mut(), 0x9e37_79b9_7f4a_7c15);
        pool
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
        assert_eq!(pool.slot_ptr(0) as usize % HUGE_PAGE, 0);
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
