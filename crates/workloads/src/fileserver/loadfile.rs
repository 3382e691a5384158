//! dbench's NetBench loadfile format, parsed whole before any I/O so a bad
//! line stops the run with `file:line: reason` before a file is touched.
//!
//! One operation a line, as dbench 4's `client.txt` (recorded from a real
//! Windows server under NetBench):
//!
//! ```text
//! [SECONDS] OPERATION ARGUMENTS... NT_STATUS_EXPECTED
//! NTCreateX "\clients\client1\~dmtmp\WORD\CHAP10.DOC" 0x40 0x2 10042 NT_STATUS_OK
//! WriteX 10042 0 65536 65536 NT_STATUS_OK
//! ```
//!
//! The optional first column is a time in seconds from the start of the
//! loop (dbench 4 waits for it; Debian's client.txt has none). Paths are
//! quoted, with backslashes; handles are the numbers NTCreateX hands out.
//! Numbers are decimal or `0x` hexadecimal. Empty lines and `#` comments are
//! skipped. A path may not climb out of the test directory (`..`).

use super::status::Status;
use std::collections::HashMap;
use std::path::Path;
use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum LoadfileError {
    #[error("cannot read the loadfile {path}: {error}; give the path of a dbench loadfile (Debian's dbench package installs /usr/share/dbench/client.txt)")]
    Read { path: String, error: String },
    #[error("{file}:{line}: {reason}")]
    Line {
        file: String,
        line: usize,
        reason: LineProblem,
    },
    #[error("{file}: no operations in the file; a loadfile has one a line, e.g. NTCreateX \"\\clients\\client1\\f\" 0x40 0x5 1 NT_STATUS_OK")]
    Empty { file: String },
}

/// What is wrong with one line of a loadfile, and how to write it.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum LineProblem {
    #[error("the line is not UTF-8 text; is this a dbench loadfile?")]
    NotUtf8,
    #[error("too many lines")]
    TooManyLines,
    #[error("a quote is not closed: close the path with \"")]
    QuoteOpen,
    #[error("'{0}' is not a time in seconds (the optional first column)")]
    BadTime(String),
    #[error("a time but no operation")]
    NoOperation,
    #[error("unknown operation '{keyword}'{hint}; a dbench loadfile uses {known}")]
    Unknown {
        keyword: String,
        /// ` (did you mean X?)` when a known keyword differs only in case.
        hint: String,
        known: String,
    },
    #[error("{keyword} needs {usage} and the expected status (e.g. NT_STATUS_OK)")]
    NoStatus {
        keyword: String,
        usage: &'static str,
    },
    #[error(
        "the line must end with the status the server returned (e.g. NT_STATUS_OK), not \
         '{status}'; {keyword} takes {usage}"
    )]
    BadStatus {
        status: String,
        keyword: String,
        usage: &'static str,
    },
    #[error(
        "{keyword} takes {wanted} argument{s} ({usage}) before the status, found {found}",
        s = if *wanted == 1 { "" } else { "s" }
    )]
    ArgCount {
        keyword: String,
        wanted: usize,
        usage: &'static str,
        found: usize,
    },
    #[error("disposition {0} is not one of NT's 0 (supersede) .. 5 (overwrite_if)")]
    Disposition(String),
    #[error("'{text}' is not a number (the {field} of {keyword})")]
    NotNumber {
        text: String,
        field: String,
        keyword: &'static str,
    },
    #[error("'{text}' is too large for the {field} of {keyword}")]
    TooLarge {
        text: String,
        field: String,
        keyword: &'static str,
    },
    #[error("the path '{text}' {why}")]
    BadPath { text: String, why: &'static str },
    #[error("{0} of the test directory itself is refused: name a file or directory in it")]
    TestDirectory(&'static str),
    #[error("offset {0} is beyond what a file can hold")]
    Offset(String),
}

/// The operations, in the order dbench prints its table, with the names it prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    NtCreateX,
    Close,
    Rename,
    Unlink,
    Deltree,
    Rmdir,
    Mkdir,
    Qpathinfo,
    Qfileinfo,
    Qfsinfo,
    Sfileinfo,
    Find,
    WriteX,
    ReadX,
    LockX,
    UnlockX,
    Flush,
}

impl OpKind {
    pub const ALL: [OpKind; 17] = [
        OpKind::NtCreateX,
        OpKind::Close,
        OpKind::Rename,
        OpKind::Unlink,
        OpKind::Deltree,
        OpKind::Rmdir,
        OpKind::Mkdir,
        OpKind::Qpathinfo,
        OpKind::Qfileinfo,
        OpKind::Qfsinfo,
        OpKind::Sfileinfo,
        OpKind::Find,
        OpKind::WriteX,
        OpKind::ReadX,
        OpKind::LockX,
        OpKind::UnlockX,
        OpKind::Flush,
    ];
    pub const COUNT: usize = Self::ALL.len();

    /// dbench's name in its result table.
    pub fn name(self) -> &'static str {
        self.names().0
    }

    /// The keyword in a loadfile, and the arguments it takes.
    pub fn keyword(self) -> &'static str {
        self.names().1
    }

    fn names(self) -> (&'static str, &'static str, &'static str) {
        match self {
            OpKind::NtCreateX => (
                "NTCreateX",
                "NTCreateX",
                "PATH CREATE_OPTIONS DISPOSITION HANDLE",
            ),
            OpKind::Close => ("Close", "Close", "HANDLE"),
            OpKind::Rename => ("Rename", "Rename", "OLD_PATH NEW_PATH"),
            OpKind::Unlink => ("Unlink", "Unlink", "PATH ATTRIBUTES"),
            OpKind::Deltree => ("Deltree", "Deltree", "PATH"),
            OpKind::Rmdir => ("Rmdir", "Rmdir", "PATH"),
            OpKind::Mkdir => ("Mkdir", "Mkdir", "PATH"),
            OpKind::Qpathinfo => ("Qpathinfo", "QUERY_PATH_INFORMATION", "PATH LEVEL"),
            OpKind::Qfileinfo => ("Qfileinfo", "QUERY_FILE_INFORMATION", "HANDLE LEVEL"),
            OpKind::Qfsinfo => ("Qfsinfo", "QUERY_FS_INFORMATION", "LEVEL"),
            OpKind::Sfileinfo => ("Sfileinfo", "SET_FILE_INFORMATION", "HANDLE LEVEL"),
            OpKind::Find => ("Find", "FIND_FIRST", "PATTERN LEVEL MAX_COUNT COUNT"),
            OpKind::WriteX => ("WriteX", "WriteX", "HANDLE OFFSET SIZE RETURNED"),
            OpKind::ReadX => ("ReadX", "ReadX", "HANDLE OFFSET SIZE RETURNED"),
            OpKind::LockX => ("LockX", "LockX", "HANDLE OFFSET SIZE"),
            OpKind::UnlockX => ("UnlockX", "UnlockX", "HANDLE OFFSET SIZE"),
            OpKind::Flush => ("Flush", "Flush", "HANDLE"),
        }
    }

    fn usage(self) -> &'static str {
        self.names().2
    }

    fn of_keyword(word: &str) -> Option<OpKind> {
        Self::ALL.into_iter().find(|k| k.keyword() == word)
    }
}

/// A path from the loadfile: backslashes turned into slashes, relative to
/// the test directory. dbench gives each client its own tree by replacing
/// `client1` in every path with `clientN` (N from 0), and so does the replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadPath {
    pub rel: Box<str>,
    pub per_client: bool,
}

/// NT create dispositions (what NTCreateX does when the name exists or not).
pub const SUPERSEDE: u32 = 0;
pub const OPEN: u32 = 1;
pub const CREATE: u32 = 2;
pub const OPEN_IF: u32 = 3;
pub const OVERWRITE: u32 = 4;
pub const OVERWRITE_IF: u32 = 5;
/// NTCreateX create options.
pub const DIRECTORY_FILE: u32 = 0x1;
pub const NON_DIRECTORY_FILE: u32 = 0x40;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    NtCreateX {
        path: LoadPath,
        options: u32,
        disposition: u32,
        handle: u32,
    },
    Close {
        handle: u32,
    },
    Rename {
        from: LoadPath,
        to: LoadPath,
    },
    Unlink {
        path: LoadPath,
    },
    Deltree {
        path: LoadPath,
    },
    Rmdir {
        path: LoadPath,
    },
    Mkdir {
        path: LoadPath,
    },
    Qpathinfo {
        path: LoadPath,
    },
    Qfileinfo {
        handle: u32,
    },
    Qfsinfo,
    Sfileinfo {
        handle: u32,
        level: u32,
    },
    Find {
        pattern: LoadPath,
    },
    WriteX {
        handle: u32,
        offset: u64,
        size: u32,
    },
    ReadX {
        handle: u32,
        offset: u64,
        size: u32,
        returned: u32,
    },
    LockX {
        handle: u32,
    },
    UnlockX {
        handle: u32,
    },
    Flush {
        handle: u32,
    },
}

impl Op {
    pub fn kind(&self) -> OpKind {
        match self {
            Op::NtCreateX { .. } => OpKind::NtCreateX,
            Op::Close { .. } => OpKind::Close,
            Op::Rename { .. } => OpKind::Rename,
            Op::Unlink { .. } => OpKind::Unlink,
            Op::Deltree { .. } => OpKind::Deltree,
            Op::Rmdir { .. } => OpKind::Rmdir,
            Op::Mkdir { .. } => OpKind::Mkdir,
            Op::Qpathinfo { .. } => OpKind::Qpathinfo,
            Op::Qfileinfo { .. } => OpKind::Qfileinfo,
            Op::Qfsinfo => OpKind::Qfsinfo,
            Op::Sfileinfo { .. } => OpKind::Sfileinfo,
            Op::Find { .. } => OpKind::Find,
            Op::WriteX { .. } => OpKind::WriteX,
            Op::ReadX { .. } => OpKind::ReadX,
            Op::LockX { .. } => OpKind::LockX,
            Op::UnlockX { .. } => OpKind::UnlockX,
            Op::Flush { .. } => OpKind::Flush,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// 1-based line number in the file.
    pub number: u32,
    /// Seconds from the start of the loop (the optional first column).
    pub at: Option<f64>,
    pub op: Op,
    pub expect: Status,
}

#[derive(Clone, Debug)]
pub struct Loadfile {
    /// The name errors and the header use (the path as given, or "built-in mix").
    pub name: String,
    pub lines: Vec<Line>,
}

impl Loadfile {
    pub fn read(path: &Path) -> Result<Loadfile, LoadfileError> {
        let bytes = std::fs::read(path).map_err(|e| LoadfileError::Read {
            path: path.display().to_string(),
            error: e.to_string(),
        })?;
        Loadfile::parse_bytes(&path.display().to_string(), &bytes)
    }

    pub fn parse(name: &str, text: &str) -> Result<Loadfile, LoadfileError> {
        Loadfile::parse_bytes(name, text.as_bytes())
    }

    fn parse_bytes(name: &str, bytes: &[u8]) -> Result<Loadfile, LoadfileError> {
        let mut lines = Vec::new();
        for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let err = |reason: LineProblem| LoadfileError::Line {
                file: name.to_string(),
                line: i + 1,
                reason,
            };
            let text = std::str::from_utf8(raw).map_err(|_| err(LineProblem::NotUtf8))?;
            let text = text.trim();
            if text.is_empty() || text.starts_with('#') {
                continue;
            }
            let number = u32::try_from(i + 1).map_err(|_| err(LineProblem::TooManyLines))?;
            lines.push(parse_line(number, text).map_err(err)?);
        }
        if lines.is_empty() {
            return Err(LoadfileError::Empty { file: name.into() });
        }
        Ok(Loadfile {
            name: name.to_string(),
            lines,
        })
    }

    /// How many times each operation appears in one pass of the file.
    pub fn counts(&self) -> [u64; OpKind::COUNT] {
        let mut counts = [0u64; OpKind::COUNT];
        for line in &self.lines {
            counts[line.op.kind() as usize] += 1;
        }
        counts
    }

    /// The largest ReadX or WriteX, for the clients' buffers.
    pub fn max_io(&self) -> usize {
        self.lines
            .iter()
            .map(|l| match l.op {
                Op::WriteX { size, .. } | Op::ReadX { size, .. } => size as usize,
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }

    /// An upper bound on the bytes one client keeps on disk: the furthest
    /// byte written to each path, summed (deletes ignored).
    pub fn data_bytes(&self) -> u64 {
        let mut open: HashMap<u32, &str> = HashMap::new();
        let mut extent: HashMap<&str, u64> = HashMap::new();
        for line in &self.lines {
            match &line.op {
                Op::NtCreateX { path, handle, .. } => {
                    open.insert(*handle, &path.rel);
                }
                Op::WriteX {
                    handle,
                    offset,
                    size,
                } => {
                    if let Some(path) = open.get(handle) {
                        let end = extent.entry(path).or_default();
                        *end = (*end).max(offset.saturating_add(u64::from(*size)));
                    }
                }
                _ => {}
            }
        }
        extent.values().sum()
    }
}

/// Splits a line into words; a double-quoted word may hold spaces.
fn words(text: &str) -> Result<Vec<&str>, LineProblem> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').ok_or(LineProblem::QuoteOpen)?;
            out.push(&quoted[..end]);
            rest = quoted[end + 1..].trim_start();
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            out.push(&rest[..end]);
            rest = rest[end..].trim_start();
        }
    }
    Ok(out)
}

fn parse_line(number: u32, text: &str) -> Result<Line, LineProblem> {
    let mut words = words(text)?;
    let mut at = None;
    if let Some(first) = words.first() {
        if first.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            let bad_time = || LineProblem::BadTime(first.to_string());
            let secs: f64 = first.parse().map_err(|_| bad_time())?;
            if !(0.0..=1e9).contains(&secs) {
                return Err(bad_time());
            }
            at = Some(secs);
            words.remove(0);
        }
    }
    let Some((&keyword, rest)) = words.split_first() else {
        return Err(LineProblem::NoOperation);
    };
    let kind = OpKind::of_keyword(keyword).ok_or_else(|| unknown(keyword))?;
    let Some((&status, args)) = rest.split_last() else {
        return Err(LineProblem::NoStatus {
            keyword: keyword.to_string(),
            usage: kind.usage(),
        });
    };
    let expect = Status::parse(status).ok_or_else(|| LineProblem::BadStatus {
        status: status.to_string(),
        keyword: keyword.to_string(),
        usage: kind.usage(),
    })?;
    let wanted = kind.usage().split(' ').count();
    if args.len() != wanted {
        return Err(LineProblem::ArgCount {
            keyword: keyword.to_string(),
            wanted,
            usage: kind.usage(),
            found: args.len(),
        });
    }
    let op = build(kind, args)?;
    Ok(Line {
        number,
        at,
        op,
        expect,
    })
}

fn unknown(keyword: &str) -> LineProblem {
    let known: Vec<&str> = OpKind::ALL.iter().map(|k| k.keyword()).collect();
    let hint = OpKind::ALL
        .iter()
        .find(|k| {
            k.keyword().eq_ignore_ascii_case(keyword) || k.name().eq_ignore_ascii_case(keyword)
        })
        .map(|k| format!(" (did you mean {}?)", k.keyword()))
        .unwrap_or_default();
    LineProblem::Unknown {
        keyword: keyword.to_string(),
        hint,
        known: known.join(", "),
    }
}

/// The operation `kind` with its fields `a` (the line's words after the
/// keyword, their count already checked).
fn build(kind: OpKind, a: &[&str]) -> Result<Op, LineProblem> {
    let f = Fields { kind, a };
    Ok(match kind {
        OpKind::NtCreateX => {
            let disposition = f.small(2)?;
            if disposition > OVERWRITE_IF {
                return Err(LineProblem::Disposition(a[2].to_string()));
            }
            Op::NtCreateX {
                path: f.path(0)?,
                options: f.small(1)?,
                disposition,
                handle: f.small(3)?,
            }
        }
        OpKind::Close => Op::Close {
            handle: f.small(0)?,
        },
        OpKind::Rename => Op::Rename {
            from: f.named(0)?,
            to: f.named(1)?,
        },
        OpKind::Unlink => {
            f.small(1)?;
            Op::Unlink { path: f.named(0)? }
        }
        OpKind::Deltree => Op::Deltree { path: f.named(0)? },
        OpKind::Rmdir => Op::Rmdir { path: f.named(0)? },
        OpKind::Mkdir => Op::Mkdir { path: f.named(0)? },
        OpKind::Qpathinfo => {
            f.small(1)?;
            Op::Qpathinfo { path: f.path(0)? }
        }
        OpKind::Qfileinfo => {
            f.small(1)?;
            Op::Qfileinfo {
                handle: f.small(0)?,
            }
        }
        OpKind::Qfsinfo => {
            f.small(0)?;
            Op::Qfsinfo
        }
        OpKind::Sfileinfo => Op::Sfileinfo {
            handle: f.small(0)?,
            level: f.small(1)?,
        },
        OpKind::Find => {
            f.small(1)?;
            f.small(2)?;
            f.small(3)?;
            Op::Find {
                pattern: f.named(0)?,
            }
        }
        OpKind::WriteX => {
            f.small(3)?;
            Op::WriteX {
                handle: f.small(0)?,
                offset: offset(f.num(1)?, a[1])?,
                size: f.small(2)?,
            }
        }
        OpKind::ReadX => Op::ReadX {
            handle: f.small(0)?,
            offset: offset(f.num(1)?, a[1])?,
            size: f.small(2)?,
            returned: f.small(3)?,
        },
        OpKind::LockX | OpKind::UnlockX => {
            f.num(1)?;
            f.num(2)?;
            let handle = f.small(0)?;
            if kind == OpKind::LockX {
                Op::LockX { handle }
            } else {
                Op::UnlockX { handle }
            }
        }
        OpKind::Flush => Op::Flush {
            handle: f.small(0)?,
        },
    })
}

/// A loadfile line's fields, read with errors that name the field and the
/// operation.
struct Fields<'a> {
    kind: OpKind,
    a: &'a [&'a str],
}

impl Fields<'_> {
    /// The name of field `i`, from the operation's usage line.
    fn name(&self, i: usize) -> String {
        self.kind
            .usage()
            .split(' ')
            .nth(i)
            .unwrap_or("argument")
            .to_ascii_lowercase()
            .replace('_', " ")
    }

    fn num(&self, i: usize) -> Result<u64, LineProblem> {
        number(self.a[i]).ok_or_else(|| LineProblem::NotNumber {
            text: self.a[i].to_string(),
            field: self.name(i),
            keyword: self.kind.keyword(),
        })
    }

    fn small(&self, i: usize) -> Result<u32, LineProblem> {
        u32::try_from(self.num(i)?).map_err(|_| LineProblem::TooLarge {
            text: self.a[i].to_string(),
            field: self.name(i),
            keyword: self.kind.keyword(),
        })
    }

    fn path(&self, i: usize) -> Result<LoadPath, LineProblem> {
        load_path(self.a[i]).map_err(|why| LineProblem::BadPath {
            text: self.a[i].to_string(),
            why,
        })
    }

    /// A path that must name something inside the test directory.
    fn named(&self, i: usize) -> Result<LoadPath, LineProblem> {
        let p = self.path(i)?;
        if p.rel.is_empty() {
            return Err(LineProblem::TestDirectory(self.kind.keyword()));
        }
        Ok(p)
    }
}

fn offset(value: u64, text: &str) -> Result<u64, LineProblem> {
    if value > i64::MAX as u64 / 2 {
        return Err(LineProblem::Offset(text.to_string()));
    }
    Ok(value)
}

fn number(text: &str) -> Option<u64> {
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn load_path(text: &str) -> Result<LoadPath, &'static str> {
    if text.contains('\0') {
        return Err("holds a NUL byte");
    }
    let mut parts = Vec::new();
    for part in text.split(['\\', '/']) {
        match part {
            "" | "." => {}
            ".." => {
                return Err(
                    "climbs out of the test directory with '..'; loadfile paths stay inside it",
                )
            }
            p => parts.push(p),
        }
    }
    let rel = parts.join("/");
    Ok(LoadPath {
        per_client: rel.contains("client1"),
        rel: rel.into(),
    })
}

#[cfg(test)]
mod tests;
