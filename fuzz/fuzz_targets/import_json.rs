//! Imported and stored JSON: `diskbench import`'s readers of fio's JSON
//! output and GoBonnieGo's `-json` output, and the serde shapes the history
//! keeps (`RunResult`, `RunRecord`). None may panic, whatever the bytes.
//!
//! The importers are the `diskbench-import` crate, a dependency here like
//! the parsers of the other targets. Their entry point reads a path, so the
//! input is written to a scratch file first.

#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = common::write("import.json", data);
    match import::read(std::path::Path::new(&path), &["diskbench".into()]) {
        Ok(imported) => {
            for result in &imported.results {
                // What the history stores. (Rendering is left out: see README.md,
                // "Found".)
                let _ = serde_json::to_string(result).expect("a RunResult serializes");
            }
        }
        Err(e) => assert!(!e.to_string().is_empty(), "an error without a message"),
    }
    if let Ok(result) = serde_json::from_slice::<model::RunResult>(data) {
        let _ = serde_json::to_string(&result).expect("a RunResult serializes");
    }
    if let Ok(record) = serde_json::from_slice::<model::RunRecord>(data) {
        let _ = serde_json::to_string(&record).expect("a RunRecord serializes");
    }
});
