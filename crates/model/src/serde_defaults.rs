//! The values serde fills in for fields a saved job or result lacks, so
//! histories written before a field existed still read: a count of 1, a
//! switch that is on. Shared by the job and the option groups it holds.

pub(crate) fn one() -> u32 {
    1
}

pub(crate) fn default_true() -> bool {
    true
}
