//! Results people already have, from fio's JSON output and GoBonnieGo's
//! `-json` output, turned into `RunResult`s so they join the history and
//! the comparisons beside diskbench's own runs (`diskbench import`; the
//! `gobonniego` command reads its own output back the same way).
//!
//! The format is recognised by its content, not the file name: fio's
//! output has a `"fio version"` key, GoBonnieGo's a `"results"` list of
//! runs with `"iops"`. Anything else is refused with the file's name.
//!
//! This crate only reads and converts: it prints nothing, saves nothing
//! and never panics on any input (the `import_json` fuzz target holds
//! that); what went wrong comes back as an [`ImportError`].

mod check;
mod fio_json;
pub mod gobonniego;
mod hist;

use model::{RunKind, RunResult};
use report::format::count;
use serde_json::Value;
use std::path::Path;

/// What is wrong inside a document, named by the field's path in the file
/// (`jobs[0].read.iops`) with the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Problem(String);

impl From<String> for Problem {
    fn from(text: String) -> Problem {
        Problem(text)
    }
}

impl From<&str> for Problem {
    fn from(text: &str) -> Problem {
        Problem(text.to_string())
    }
}

/// Why a file was not imported; each names the file and says what was expected.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{file}: cannot read it: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    #[error(
        "{file} is not JSON: diskbench imports fio's JSON output (--output-format=json \
         or json+) and GoBonnieGo's -json output; nothing was imported"
    )]
    NotJson { file: String },
    #[error(
        "{file} is JSON but neither fio's output (no \"fio version\" key) nor GoBonnieGo's \
         -json output (no \"results\" list of runs with \"iops\"); nothing was imported"
    )]
    Unknown { file: String },
    #[error("{file}: {problem}; nothing was imported")]
    Bad { file: String, problem: Problem },
}

/// What one file held.
pub struct Imported {
    pub kind: RunKind,
    /// One per fio output file; one per GoBonnieGo run (`-runs N` gives N).
    pub results: Vec<RunResult>,
    /// For the user: e.g. "fio-3.33, 2 jobs".
    pub summary: String,
    /// Each result's identity, from the document's content ([`content_uuid`]),
    /// in the order of `results`.
    pub uuids: Vec<String>,
}

/// The identity of the `index`th run of a document, made from its content
/// (SHA-256 of the document and the index, shaped as a UUID of version 8,
/// the one RFC 9562 leaves to the application): the same result imported
/// again has the same one, so the history, which holds each UUID once, can
/// say it has it already and under which id.
pub fn content_uuid(doc: &Value, index: usize) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(doc.to_string().as_bytes());
    hash.update((index as u64).to_le_bytes());
    let digest = hash.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// Reads and converts one file; the error names the file and says what was expected.
pub fn read(path: &Path, command_line: &[String]) -> Result<Imported, ImportError> {
    let file = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(source) => return Err(ImportError::Read { file, source }),
    };
    let Some(doc) = parse_json(&text) else {
        return Err(ImportError::NotJson { file });
    };
    let converted = if doc.get("fio version").is_some() {
        fio_json::parse(&doc, command_line).map(|r| Imported {
            kind: RunKind::ImportedFio,
            summary: format!("{}, {}", r.tool_version, count(r.jobs.len(), "job")),
            results: vec![r],
            uuids: Vec::new(),
        })
    } else if gobonniego::looks_like(&doc) {
        gobonniego::parse(&doc, command_line).map(|results| Imported {
            kind: RunKind::ImportedGoBonnieGo,
            summary: format!(
                "{}, {}",
                results
                    .first()
                    .map_or("gobonniego", |r| r.tool_version.as_str()),
                count(results.len(), "run")
            ),
            results,
            uuids: Vec::new(),
        })
    } else {
        return Err(ImportError::Unknown { file });
    };
    let mut imported = converted.map_err(|problem| ImportError::Bad { file, problem })?;
    imported.uuids = (0..imported.results.len())
        .map(|i| content_uuid(&doc, i))
        .collect();
    Ok(imported)
}

/// The JSON document in `text`. fio may print notes before its JSON when
/// its output goes to a file, so a document starting on a later line is
/// accepted too.
fn parse_json(text: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return Some(v);
    }
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with('{') {
            return serde_json::from_str(&text[offset..]).ok();
        }
        offset += line.len();
    }
    None
}

/// A whole number at `key` (fio writes some as floats), 0 when absent.
fn uint(v: &Value, key: &str) -> u64 {
    match v.get(key) {
        Some(x) => x
            .as_u64()
            .or_else(|| {
                x.as_f64()
                    .filter(|f| f.is_finite() && *f >= 0.0)
                    .map(|f| f.round() as u64)
            })
            .unwrap_or(0),
        None => 0,
    }
}

/// A number at `key`, `None` when absent or not a number.
fn float(v: &Value, key: &str) -> Option<f64> {
    v.get(key)?.as_f64().filter(|f| f.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> std::path::PathBuf {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn other_files_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let text = write(&dir, "notes.txt", "hello");
        let e = read(&text, &[]).err().unwrap().to_string();
        assert!(e.contains("notes.txt is not JSON"), "{e}");
        let json = write(&dir, "other.json", r#"{"a": 1}"#);
        let e = read(&json, &[]).err().unwrap().to_string();
        assert!(e.contains("other.json is JSON but neither"), "{e}");
        let e = read(&dir.path().join("missing.json"), &[])
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("missing.json: cannot read it"), "{e}");
        let bad = write(
            &dir,
            "bad.json",
            r#"{"fio version": "fio-3.33", "jobs": 5}"#,
        );
        let e = read(&bad, &[]).err().unwrap().to_string();
        assert!(e.starts_with(&format!("{}: ", bad.display())), "{e}");
        assert!(e.ends_with("nothing was imported"), "{e}");
    }

    #[test]
    fn notes_before_fio_json_are_skipped() {
        let v = parse_json("note: both iodepth >= 1 and synchronous engine\n{\"x\": 1}\n").unwrap();
        assert_eq!(v["x"], 1);
    }
}
