//! Reading one option value: fio's spelling of patterns, engines, sizes,
//! counts and paths, each turned into the model's type or into an error that
//! names the option, the value and the fix.
//!
//! Sizes, times and booleans use `model::units`, so every front end spells
//! them the same way; this module adds what is particular to fio's options
//! (the forms diskbench recognises but does not run yet, like `bs=4k,8k` or
//! `size=20%`, get their own message rather than "not a size").

use crate::error::{FioError, Scope};
use crate::suggest::closest;
use model::units::{self, UnitError};
use model::{EngineKind, FadviseHint, RwMode};
use std::cell::Cell;
use std::time::Duration;

const RW_NAMES: [&str; 11] = [
    "read",
    "write",
    "randread",
    "randwrite",
    "rw",
    "readwrite",
    "randrw",
    "trim",
    "randtrim",
    "trimwrite",
    "randtrimwrite",
];
const RW_LIST: &str = "read, write, randread, randwrite, rw (readwrite), randrw, trim, \
                       randtrim, trimwrite or randtrimwrite";
const ENGINE_NAMES: [&str; 18] = [
    "sync",
    "psync",
    "io_uring",
    "libaio",
    "null",
    "falloc",
    "ftruncate",
    "pvsync",
    "pvsync2",
    "mmap",
    "posixaio",
    "filecreate",
    "filestat",
    "filedelete",
    "dircreate",
    "dirstat",
    "dirdelete",
    "cpuio",
];

pub(crate) fn rw(scope: &Scope, text: &str) -> Result<RwMode, FioError> {
    if let Some(mode) = RwMode::parse(text) {
        return Ok(mode);
    }
    if let Some((base, _)) = text.split_once(':') {
        if RwMode::parse(base).is_some() {
            return Err(FioError::not_yet(
                scope,
                "rw",
                text,
                " (an offset modifier after ':')",
                &format!(": give the pattern alone, e.g. rw={base}"),
            ));
        }
    }
    let mut problem = format!("not an I/O pattern: use {RW_LIST}");
    push_suggestion(&mut problem, closest(text, RW_NAMES));
    Err(FioError::invalid(scope, "rw", text, problem))
}

pub(crate) fn engine(scope: &Scope, text: &str) -> Result<EngineKind, FioError> {
    if let Some(engine) = EngineKind::parse(text) {
        return Ok(engine);
    }
    if let Some(need) = crate::requirements::engine_needs(text) {
        return Err(crate::requirements::engine_error(text, need));
    }
    let mut problem = format!(
        "diskbench does not run this engine (yet): use one of {}",
        EngineKind::NAMES
    );
    push_suggestion(&mut problem, closest(text, ENGINE_NAMES));
    Err(FioError::invalid(scope, "ioengine", text, problem))
}

/// fio's block size where none is given (or a part of `bs=` is left empty).
pub(crate) const DEFAULT_BS: u64 = 4096;

/// A block size: a size of at least one byte.
pub(crate) fn block_size(scope: &Scope, option: &str, text: &str) -> Result<u64, FioError> {
    match size(scope, option, text)? {
        0 => Err(FioError::invalid(
            scope,
            option,
            text,
            format!("a block size must be at least 1 byte: use e.g. {option}=4k"),
        )),
        bytes => Ok(bytes),
    }
}

/// One direction's `bs`: one size, at least one byte.
pub(crate) fn one_bs(scope: &Scope, text: &str) -> Result<u64, FioError> {
    if text.get(1..).is_some_and(|t| t.contains('-')) || text.contains(':') {
        return Err(FioError::invalid(
            scope,
            "bs",
            text,
            "bs takes one size per direction: give a range as bsrange=4k-64k, \
             or weighted sizes as bssplit=4k/60:64k/40",
        ));
    }
    block_size(scope, "bs", text)
}

/// `size` and `offset`: a size in bytes; fio's percentages are refused.
pub(crate) fn size_or_percent(scope: &Scope, option: &str, text: &str) -> Result<u64, FioError> {
    if text.trim_end().ends_with('%') {
        return Err(FioError::not_yet(
            scope,
            option,
            text,
            " (a percentage of the file or device)",
            &format!(": give a size, e.g. {option}=1g"),
        ));
    }
    size(scope, option, text)
}

pub(crate) fn size(scope: &Scope, option: &str, text: &str) -> Result<u64, FioError> {
    let kb_base_1000 = KB_BASE_1000.with(Cell::get);
    units::parse_size_in(text, kb_base_1000).map_err(|e| FioError::bad_value(scope, option, e))
}

thread_local! {
    /// The `kb_base` of the job whose option is being read (see [`with_kb_base`]).
    static KB_BASE_1000: Cell<bool> = const { Cell::new(false) };
}

/// Runs `read` with sizes read under `kb_base=1000` (or not). fio reads every
/// size of a job under that job's `kb_base`; the readers of sizes are many
/// and nested (`bs`, `bssplit`, ranges, rates, zones), so the setting is
/// scoped around the reading of one option rather than passed down to each.
pub(crate) fn with_kb_base<T>(kb_base_1000: bool, read: impl FnOnce() -> T) -> T {
    let before = KB_BASE_1000.with(|k| k.replace(kb_base_1000));
    let result = read();
    KB_BASE_1000.with(|k| k.set(before));
    result
}

pub(crate) fn duration(scope: &Scope, option: &str, text: &str) -> Result<Duration, FioError> {
    units::parse_duration(text).map_err(|e| FioError::bad_value(scope, option, e))
}

pub(crate) fn boolean(scope: &Scope, option: &str, text: &str) -> Result<bool, FioError> {
    units::parse_bool(text).map_err(|e| FioError::bad_value(scope, option, e))
}

/// A set-only option: bare means on, `=value` is a boolean.
pub(crate) fn flag(scope: &Scope, option: &str, value: Option<&str>) -> Result<bool, FioError> {
    value.map_or(Ok(true), |v| boolean(scope, option, v))
}

/// A whole number, decimal or `0x` hexadecimal as fio allows.
pub(crate) fn int(scope: &Scope, option: &str, text: &str) -> Result<u64, FioError> {
    let t = text.trim();
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"));
    match hex {
        Some(digits) => u64::from_str_radix(digits, 16)
            .map_err(|_| FioError::bad_value(scope, option, UnitError::Int(text.to_string()))),
        None => units::parse_int(t).map_err(|e| FioError::bad_value(scope, option, e)),
    }
}

pub(crate) fn int_u32(scope: &Scope, option: &str, text: &str) -> Result<u32, FioError> {
    let n = int(scope, option, text)?;
    u32::try_from(n).map_err(|_| {
        FioError::invalid(
            scope,
            option,
            text,
            format!("too large: at most {}", u32::MAX),
        )
    })
}

/// A count that must be at least one; the hint says what it counts.
pub(crate) fn at_least_one(
    scope: &Scope,
    option: &str,
    text: &str,
    hint: &str,
) -> Result<u32, FioError> {
    match int_u32(scope, option, text)? {
        0 => Err(FioError::invalid(scope, option, text, hint)),
        n => Ok(n),
    }
}

/// `rwmixread` / `rwmixwrite`: 0 to 100.
pub(crate) fn percent(scope: &Scope, option: &str, text: &str) -> Result<u32, FioError> {
    let n = int_u32(scope, option, text)?;
    if n > 100 {
        return Err(FioError::invalid(
            scope,
            option,
            text,
            format!("a percentage must be between 0 and 100, e.g. {option}=70"),
        ));
    }
    Ok(n)
}

/// `filename`: the paths, separated by ':' as in fio, with `\:` standing
/// for a colon inside a name.
pub(crate) fn path_list(scope: &Scope, option: &str, text: &str) -> Result<Vec<String>, FioError> {
    let mut paths = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                paths.last_mut().expect("one path at least").push(':');
                chars.next();
            }
            ':' => paths.push(String::new()),
            c => paths.last_mut().expect("one path at least").push(c),
        }
    }
    if paths.len() > 1 && paths.iter().any(String::is_empty) {
        return Err(FioError::invalid(
            scope,
            option,
            text,
            "an empty name between ':' separators: give each file's path, e.g. \
             filename=/tmp/a:/tmp/b (write a ':' that is part of a path as '\\:')",
        ));
    }
    if paths.len() == 1 {
        return Ok(vec![single_path(scope, option, text)?]);
    }
    Ok(paths)
}

/// `directory`: one path. fio separates several with ':' and lets `\:`
/// stand for a colon inside a name; diskbench takes one directory only.
pub(crate) fn single_path(scope: &Scope, option: &str, text: &str) -> Result<String, FioError> {
    if option == "filename" && text == "-" {
        return Err(FioError::not_yet(
            scope,
            option,
            text,
            " (standard input or output)",
            ": give a file or device path",
        ));
    }
    let mut path = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                path.push(':');
                chars.next();
            }
            ':' => {
                let what = if option == "directory" {
                    " (several directories)"
                } else {
                    " (several files)"
                };
                return Err(FioError::not_yet(
                    scope,
                    option,
                    text,
                    what,
                    ": give one path (write a ':' that is part of the path as '\\:')",
                ));
            }
            c => path.push(c),
        }
    }
    Ok(path)
}

fn push_suggestion(problem: &mut String, suggestion: Option<&str>) {
    if let Some(s) = suggestion {
        problem.push_str(&format!("; did you mean '{s}'?"));
    }
}

/// `fadvise_hint`: fio's 0, 1, sequential, random (and `normal`).
pub(crate) fn fadvise_hint(scope: &Scope, text: &str) -> Result<FadviseHint, FioError> {
    FadviseHint::parse(text.trim()).ok_or_else(|| {
        FioError::invalid(
            scope,
            "fadvise_hint",
            text,
            format!("use {}", FadviseHint::NAMES),
        )
    })
}

/// fio's longest `percentile_list`.
const MAX_PERCENTILES: usize = 20;

/// `percentile_list=50:99:99.9`: up to 20 numbers from 0 to 100, sorted as
/// fio sorts them (checked with fio 3.33: `99:50` reports 50 then 99).
pub(crate) fn percentile_list(scope: &Scope, text: &str) -> Result<Vec<f64>, FioError> {
    let bad = |problem: String| FioError::invalid(scope, "percentile_list", text, problem);
    let mut list = Vec::new();
    for part in text.split(':').map(str::trim).filter(|p| !p.is_empty()) {
        let p: f64 = part
            .parse()
            .map_err(|_| bad(format!("'{part}' is not a number: use e.g. 50:99:99.9")))?;
        if !(0.0..=100.0).contains(&p) {
            return Err(bad(format!(
                "{part} is not a percentile: each must be from 0 to 100"
            )));
        }
        list.push(p);
    }
    if list.is_empty() || list.len() > MAX_PERCENTILES {
        return Err(bad(format!(
            "give 1 to {MAX_PERCENTILES} percentiles separated by ':', e.g. 50:99:99.9"
        )));
    }
    list.sort_by(f64::total_cmp);
    list.dedup();
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: &Scope = &Scope::Global;

    #[test]
    fn patterns() {
        assert_eq!(rw(G, "readwrite"), Ok(RwMode::ReadWrite));
        assert_eq!(rw(G, "randtrim"), Ok(RwMode::RandTrim));
        assert_eq!(rw(G, "trimwrite"), Ok(RwMode::TrimWrite));
        let msg = rw(G, "randread:8").unwrap_err().to_string();
        assert!(msg.contains("offset modifier"), "{msg}");
        let msg = rw(G, "randred").unwrap_err().to_string();
        assert!(msg.contains("did you mean 'randread'"), "{msg}");
    }

    #[test]
    fn engines() {
        assert_eq!(engine(G, "psync"), Ok(EngineKind::Sync));
        let msg = engine(G, "io_urin").unwrap_err().to_string();
        assert!(msg.contains(EngineKind::NAMES), "{msg}");
        assert!(msg.contains("did you mean 'io_uring'"), "{msg}");
    }

    #[test]
    fn numbers() {
        assert_eq!(int(G, "randseed", "0x10"), Ok(16));
        assert!(int(G, "randseed", "-1").is_err());
        assert!(int_u32(G, "iodepth", "4294967296").is_err());
        assert_eq!(percent(G, "rwmixread", "100"), Ok(100));
    }

    #[test]
    fn paths() {
        assert_eq!(
            single_path(G, "filename", "/dev/dsk/foo@3,0\\:c").unwrap(),
            "/dev/dsk/foo@3,0:c"
        );
        let msg = single_path(G, "filename", "/dev/sda:/dev/sdb")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("several files"), "{msg}");
        assert_eq!(
            path_list(G, "filename", "/tmp/a:b\\:c:d").unwrap(),
            ["/tmp/a", "b:c", "d"]
        );
        assert!(path_list(G, "filename", "a:").is_err());
    }
}

/// One option as the user gave it, and where: what every option module's
/// `apply` reads. The common readings are methods, so an option's line says
/// only what it sets (`Key::Unlink => f.unlink = o.boolean()?`).
#[derive(Clone, Copy)]
pub(crate) struct Given<'a> {
    pub key: crate::options::Key,
    pub scope: &'a Scope,
    pub name: &'a str,
    /// The value as written ("" for a flag given bare).
    pub text: &'a str,
    /// `None` only for a flag given bare (`--time_based`).
    pub value: Option<&'a str>,
}

impl Given<'_> {
    pub(crate) fn flag(&self) -> Result<bool, FioError> {
        flag(self.scope, self.name, self.value)
    }

    pub(crate) fn boolean(&self) -> Result<bool, FioError> {
        boolean(self.scope, self.name, self.text)
    }

    pub(crate) fn int(&self) -> Result<u64, FioError> {
        int(self.scope, self.name, self.text)
    }

    pub(crate) fn int_u32(&self) -> Result<u32, FioError> {
        int_u32(self.scope, self.name, self.text)
    }

    pub(crate) fn size(&self) -> Result<u64, FioError> {
        size(self.scope, self.name, self.text)
    }

    pub(crate) fn duration(&self) -> Result<Duration, FioError> {
        duration(self.scope, self.name, self.text)
    }

    pub(crate) fn percent(&self) -> Result<u32, FioError> {
        percent(self.scope, self.name, self.text)
    }

    /// A count of at least one; `zero` says what to give instead of 0.
    pub(crate) fn at_least_one(&self, zero: &str) -> Result<u32, FioError> {
        at_least_one(self.scope, self.name, self.text, zero)
    }

    /// The value is refused: `problem` says why and what to give instead.
    pub(crate) fn invalid(&self, problem: impl Into<String>) -> FioError {
        FioError::invalid(self.scope, self.name, self.text, problem)
    }
}
