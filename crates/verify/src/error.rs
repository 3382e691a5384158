//! Why a job's `verify=` options cannot make a chunk format, each with the
//! option to change: the chunks must fit whole in every write, and each
//! chunk must have room for its header where the job puts it.

use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FormatError {
    #[error(
        "verify_interval={interval} leaves a chunk of {left} bytes at the end of each \
         {min_block}-byte block, too small for the {header_len}-byte header: use a \
         verify_interval that divides bs, or leaves at least {header_len} bytes"
    )]
    Divide {
        interval: u64,
        min_block: u64,
        left: u64,
        header_len: usize,
    },

    #[error(
        "verify_interval={interval} is smaller than verify={algo}'s {header_len}-byte header: \
         raise verify_interval (or bs) to at least {header_len}"
    )]
    HeaderTooBig {
        interval: u64,
        algo: &'static str,
        header_len: usize,
    },

    #[error(
        "verify_offset={offset} must leave room for the {header_len}-byte header: between \
         {header_len} and {most} for verify_interval={interval}"
    )]
    HeaderOffset {
        offset: u64,
        header_len: usize,
        most: u64,
        interval: u64,
    },

    #[error("verify=pattern needs verify_pattern=..., e.g. verify_pattern=0xdeadbeef")]
    NoPattern,

    #[error(
        "verify needs every write to hold whole {interval}-byte chunks, and {size} bytes does \
         not: set verify_interval to a size that divides every block size and blockalign"
    )]
    Chunks { interval: u64, size: u64 },
}
