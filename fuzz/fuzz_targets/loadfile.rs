//! dbench loadfiles (`diskbench fileserver --loadfile`): whatever the bytes,
//! `Loadfile::parse` / `Loadfile::read` answer with the operations or an
//! error naming the line, never a panic; neither do the sums the replay
//! takes from a parsed file (operation counts, largest I/O, bytes written).
//!
//! Text that is not UTF-8 goes through `Loadfile::read` (a scratch file),
//! which reads bytes and refuses the bad line by number.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use workloads::fileserver::{Loadfile, LoadfileError};

fuzz_target!(|data: &[u8]| {
    let parsed: Result<Loadfile, LoadfileError> = match std::str::from_utf8(data) {
        Ok(text) => Loadfile::parse("fuzz.txt", text),
        Err(_) => Loadfile::read(std::path::Path::new(&common::write("load.txt", data))),
    };
    match parsed {
        Ok(load) => {
            assert!(!load.lines.is_empty(), "Ok without an operation");
            let _ = (load.counts(), load.max_io(), load.data_bytes());
        }
        Err(e) => assert!(!e.to_string().is_empty(), "an error without a message"),
    }
});
