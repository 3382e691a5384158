//! The results of the commands that stand in for other tools, in those
//! tools' own formats, so their users read the lines they know: `ping`
//! as ioping prints ([`ping`]), `meta` as bonnie++'s file test prints
//! ([`meta`]), each with diskbench's additions (percentiles, how the I/O
//! was done) and a JSON document.
//!
//! Every function here is a function of a finished result and returns
//! text or JSON: the measuring loops are the `workloads` crate's, and the
//! `diskbench` binary prints what these return.

pub mod meta;
pub mod ping;
