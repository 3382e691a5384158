//! The workloads of the other tools of the articles diskbench grew from
//! (GoBonnieGo, ioping, bonnie++ -n, dbench), each measured the way its
//! original measures (so its users recognise the figures) but honestly
//! (caches dropped, percentiles, its own warnings):
//!
//! - [`gobonniego`]: GoBonnieGo's sequential write / read and 512-byte IOPS;
//! - [`ping`]: ioping's one-request-at-a-time latency probe;
//! - [`meta`]: bonnie++ `-n`'s file create / stat / delete phases;
//! - [`fileserver`]: a dbench-like file-server load and its loadfile replay.
//!
//! Each module owns its options, its measuring loop and its result type; the
//! CLI (`crates/cli/src/cmd_*.rs`) parses flags and prints.

pub mod fileserver;
pub mod gobonniego;
pub mod meta;
pub mod ping;
