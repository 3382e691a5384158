//! The I/O space of one file, as the runner lays it out and every offset
//! generator walks it: a base offset and a number of equal blocks. It is
//! its own file because the files' layout, the offset generator and the
//! skewed distributions all take it, and none of them should need another.

/// The I/O space of one file: `blocks` blocks of `block_bytes` from `base`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub base: u64,
    pub blocks: u64,
    pub block_bytes: u64,
}
