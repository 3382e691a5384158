//! Aligned I/O buffers, one per slot, filled with incompressible random data.
//! O_DIRECT needs memory aligned to the device's DIO alignment; a plain
//! `Vec<u8>` gives no such promise.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

pub struct BufferPool {
    ptr: NonNull<u8>,
    layout: Layout,
    slot_bytes: usize,
    slots: usize,
}

// SAFETY: the pool owns its allocation exclusively; moving it to another thread is fine.
unsafe impl Send for BufferPool {}

impl BufferPool {
    /// `slots` buffers of `slot_bytes` each, every one aligned to `align` (a power of two).
    pub fn new(slots: usize, slot_bytes: usize, align: usize) -> BufferPool {
        let align = align.max(64).next_power_of_two();
        let slot_bytes = slot_bytes.max(1).next_multiple_of(align);
        let total = slot_bytes * slots.max(1);
        let layout = Layout::from_size_align(total, align).expect("buffer layout");
        // SAFETY: `layout` has a non-zero size (slots and slot_bytes are at least 1).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        let mut pool = BufferPool {
            ptr,
            layout,
            slot_bytes,
            slots: slots.max(1),
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

    pub fn slot(&mut self, slot: u32) -> &mut [u8] {
        let ptr = self.slot_ptr(slot);
        // SAFETY: `slot_ptr` checked that the slot lies inside the allocation, whose
        // bytes are initialised; `&mut self` guarantees no other reference into it.
        // Only this slot is borrowed, so the kernel may still own the others.
        unsafe { std::slice::from_raw_parts_mut(ptr, self.slot_bytes) }
    }

    /// Raw pointer to a slot, for engines that hand it to the kernel. It is
    /// computed without borrowing the pool as a slice, so handing one slot to
    /// the kernel does not alias the slots that the kernel is already using.
    /// Panics when `slot` is out of range.
    pub fn slot_ptr(&mut self, slot: u32) -> *mut u8 {
        assert!(
            (slot as usize) < self.slots,
            "buffer slot {slot} out of range (the pool has {} slots)",
            self.slots
        );
        // SAFETY: slot < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.as_ptr().add(slot as usize * self.slot_bytes) }
    }

    pub fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: ptr points to `layout.size()` initialised bytes owned by self,
        // and `&mut self` guarantees no other reference exists.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }
}

impl Drop for BufferPool {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with exactly this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
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
    fn slots_are_aligned_and_random() {
        let mut pool = BufferPool::new(4, 4096, 4096);
        for s in 0..4 {
            assert_eq!(pool.slot_ptr(s) as usize % 4096, 0);
        }
        let a = pool.slot(0).to_vec();
        let b = pool.slot(1).to_vec();
        assert_ne!(a, b);
        assert!(a.iter().filter(|&&x| x == 0).count() < 100);
    }
}
