//! A dbench-like file-server load: many clients, each working in its own
//! tree (`clients/clientN/...`), creating, writing, reading, listing,
//! renaming and deleting files the way a Windows file server's clients do.
//!
//! Users of dbench (the 2014 EBS benchmark measures EBS volumes with `dbench 1` and
//! `dbench 4`) bring its loadfile, Debian's `/usr/share/dbench/client.txt`
//! recorded from a NetBench run, and expect its figures: this module replays
//! that format as dbench's fileio backend does ([`ops`]) and prints dbench's
//! table and `Throughput X MB/sec` line ([`report`]). Without a loadfile it
//! replays a built-in office mix written in the same format ([`mix`]).
//!
//! The load is buffered, as dbench's is: its MB/sec mixes page-cache speed
//! with the disk's (Flush is an fsync; `sync` opens files O_SYNC, as
//! `dbench -s`). What diskbench adds: p99 per operation from histograms,
//! each status the server would not have returned reported with its
//! `file:line`, and the bytes divided by the measured phase's exact length.
//!
//! Layout: [`loadfile`] parses (every error before any I/O), [`ops`] maps
//! one operation onto the filesystem, [`replay`] runs the clients and times
//! them, [`report`] prints.

pub mod loadfile;
mod mix;
mod ops;
mod pattern;
pub mod replay;
pub mod report;
pub mod status;

pub use loadfile::{LineProblem, Loadfile, LoadfileError, OpKind};
pub use ops::ClientConfig;
pub use replay::{
    run, Mismatch, Options, Phase, Progress, ProgressFn, Summary, TraceEntry, MAX_MISMATCHES,
};

/// The name the built-in mix goes by in errors and output.
pub const BUILTIN_MIX: &str = "built-in mix";

/// The built-in mix as loadfile text (for `--show-mix`).
pub fn builtin_mix_text() -> String {
    mix::text()
}

/// The built-in mix, parsed.
pub fn builtin_mix() -> Loadfile {
    // The mix is generated here and parsed by the tests; it cannot fail.
    Loadfile::parse(BUILTIN_MIX, &mix::text()).unwrap_or_else(|e| unreachable!("{e}"))
}

/// Fails early when the clients' files cannot fit in `dir`: an upper bound
/// (every file the load writes, at its largest, deletes ignored) against the
/// space free. A directory that cannot be examined passes: opening it later
/// says why.
pub fn check_space(load: &Loadfile, clients: u32, dir: &std::path::Path) -> Result<(), NoSpace> {
    let need = load.data_bytes().saturating_mul(u64::from(clients));
    let Ok((free, _)) = engine::sys::free_space(dir) else {
        return Ok(());
    };
    if need > free {
        return Err(NoSpace {
            clients,
            load: load.name.clone(),
            need,
            dir: dir.to_path_buf(),
            free,
        });
    }
    Ok(())
}

/// The clients' files cannot fit where they are to be written.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{clients} client{s} of {load} need up to {need_text} and {dir_text} has {free_text} free: \
     use fewer clients or another directory",
    s = if *clients == 1 { "" } else { "s" },
    need_text = model::units::format_bytes_binary(*need),
    dir_text = dir.display(),
    free_text = model::units::format_bytes_binary(*free)
)]
pub struct NoSpace {
    pub clients: u32,
    pub load: String,
    pub need: u64,
    pub dir: std::path::PathBuf,
    pub free: u64,
}

#[cfg(test)]
mod tests;
