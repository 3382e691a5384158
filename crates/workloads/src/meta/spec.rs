//! What `diskbench meta` creates: bonnie++'s `-n NUM[:MAX[:MIN[:DIRS[:CHUNK]]]]`
//! parsed with its rules (and clearer errors), and each file's name and size,
//! derived from the seed and the file's number so that any phase (and any
//! test) can recompute them without keeping a list.

use super::{FILES_PER_NUM, MAX_DIRS};
use model::rng::splitmix64;

/// Names hold the number in 10 hex digits: at most 2^40 files.
const MAX_NUM: u64 = 1 << 30;
const MAX_FILE_BYTES: u64 = 1 << 40;
const RANDOM_CHARS_MAX: u64 = 12;
const NAME_CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const HEX: &[u8] = b"0123456789abcdef";
const NAME_SALT: u64 = 0x6e61_6d65_7361_6c74;
const SIZE_SALT: u64 = 0x7369_7a65_7361_6c74;

/// `-n NUM[:MAX[:MIN[:DIRS[:CHUNK]]]]`, read as bonnie++ reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileSpec {
    /// Files in units of 1024.
    pub num: u64,
    pub max_bytes: u64,
    pub min_bytes: u64,
    /// Directories the files are spread over (1: all in one).
    pub dirs: u64,
    /// Size of each write and read.
    pub chunk_bytes: u64,
}

impl Default for FileSpec {
    fn default() -> Self {
        FileSpec {
            num: 16,
            max_bytes: 0,
            min_bytes: 0,
            dirs: 1,
            chunk_bytes: 8192,
        }
    }
}

impl FileSpec {
    /// Parses bonnie++'s `-n` value; sizes take k, m, g suffixes (powers of
    /// two). An empty field keeps its default. Errors name the field and the fix.
    pub fn parse(text: &str) -> Result<FileSpec, FileSpecError> {
        let bad = |problem: SpecProblem| FileSpecError {
            text: text.to_string(),
            problem,
        };
        let fields: Vec<&str> = text.split(':').map(str::trim).collect();
        if fields.len() > 5 {
            return Err(bad(SpecProblem::TooManyFields));
        }
        let field = |i: usize| fields.get(i).copied().filter(|s| !s.is_empty());
        let mut spec = FileSpec::default();
        let num = field(0).ok_or_else(|| bad(SpecProblem::NoNum))?;
        spec.num = num
            .parse()
            .map_err(|_| bad(SpecProblem::NumNotWhole(num.to_string())))?;
        if spec.num == 0 {
            return Err(bad(SpecProblem::NumZero));
        }
        if spec.num > MAX_NUM {
            return Err(bad(SpecProblem::NumTooBig));
        }
        if let Some(v) = field(1) {
            spec.max_bytes = size_field("MAX", v).map_err(bad)?;
        }
        if let Some(v) = field(2) {
            spec.min_bytes = size_field("MIN", v).map_err(bad)?;
        }
        if spec.min_bytes > spec.max_bytes {
            return Err(bad(SpecProblem::MinAboveMax {
                min: spec.min_bytes,
                max: spec.max_bytes,
            }));
        }
        if let Some(v) = field(3) {
            spec.dirs = v
                .parse()
                .map_err(|_| bad(SpecProblem::DirsNotWhole(v.to_string())))?;
            if spec.dirs == 0 || spec.dirs > MAX_DIRS {
                return Err(bad(SpecProblem::DirsRange(spec.dirs)));
            }
        }
        if let Some(v) = field(4) {
            spec.chunk_bytes = size_field("CHUNK", v).map_err(bad)?;
            if !spec.chunk_bytes.is_power_of_two() || !(256..=1 << 20).contains(&spec.chunk_bytes) {
                return Err(bad(SpecProblem::Chunk(v.to_string())));
            }
        }
        Ok(spec)
    }

    pub fn files(&self) -> u64 {
        self.num * FILES_PER_NUM
    }
}

fn size_field(what: &'static str, value: &str) -> Result<u64, SpecProblem> {
    let value_of = || (what, value.to_string());
    if value.starts_with('-') {
        let (what, value) = value_of();
        return Err(SpecProblem::Negative { what, value });
    }
    let bytes =
        model::units::parse_size(value).map_err(|source| SpecProblem::BadSize { what, source })?;
    if bytes > MAX_FILE_BYTES {
        let (what, value) = value_of();
        return Err(SpecProblem::TooLarge { what, value });
    }
    Ok(bytes)
}

/// A `-n` value that cannot be read: the value, then what is wrong with it.
#[derive(Debug, PartialEq, thiserror::Error)]
#[error("-n {text}: {problem}")]
pub struct FileSpecError {
    pub text: String,
    pub problem: SpecProblem,
}

/// What is wrong with a `-n` value, and the fix.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum SpecProblem {
    #[error("too many fields: use NUM[:MAX[:MIN[:DIRS[:CHUNK]]]], e.g. -n 16:4096:1024:16")]
    TooManyFields,
    #[error("NUM is missing: give the number of files in units of 1024 (-n 16 = 16384 files)")]
    NoNum,
    #[error(
        "NUM '{0}' is not a whole number: it counts files in units of 1024 (-n 16 = 16384 files)"
    )]
    NumNotWhole(String),
    #[error("NUM 0 means no files: give at least 1 (-n 1 = 1024 files)")]
    NumZero,
    #[error("NUM above {MAX_NUM} is more files than names can number: use a smaller NUM")]
    NumTooBig,
    #[error(
        "MIN ({min}) is larger than MAX ({max}): the order is NUM:MAX:MIN (bonnie++ refuses \
         this too), e.g. -n 16:4096:1024"
    )]
    MinAboveMax { min: u64, max: u64 },
    #[error("DIRS '{0}' is not a whole number of directories")]
    DirsNotWhole(String),
    #[error("DIRS must be 1 to {MAX_DIRS} (1 puts all files in one directory), not {0}")]
    DirsRange(u64),
    #[error("CHUNK must be a power of two from 256 to 1m (as in bonnie++), not {0}")]
    Chunk(String),
    #[error(
        "{what} '{value}': sizes cannot be negative (bonnie++'s -1 and -2, hard and symbolic \
         links, are not supported): give a size in bytes, e.g. 4096 or 4k"
    )]
    Negative { what: &'static str, value: String },
    #[error("{what}: {source}")]
    BadSize {
        what: &'static str,
        source: model::units::UnitError,
    },
    #[error("{what} '{value}' is over 1t: this test is about small files")]
    TooLarge { what: &'static str, value: String },
}

/// The size of file `index`: `min..=max`, the same for the same seed.
pub fn file_size(seed: u64, min: u64, max: u64, index: u64) -> u64 {
    if max <= min {
        return max;
    }
    min + splitmix64(seed ^ SIZE_SALT ^ splitmix64(index)) % (max - min + 1)
}

/// The name of file `index`, as `write_name` makes it.
pub fn file_name(seed: u64, index: u64, random: bool) -> String {
    let mut out = Vec::new();
    write_name(&mut out, seed, index, random);
    String::from_utf8_lossy(&out).into_owned()
}

/// 10 hex digits of the number and 0..=12 random letters or digits: number
/// first for the sequential phases, last for the random ones.
pub(super) fn write_name(out: &mut Vec<u8>, seed: u64, index: u64, random: bool) {
    out.clear();
    let mut h = splitmix64(seed ^ NAME_SALT ^ splitmix64(index));
    let extra = (h % (RANDOM_CHARS_MAX + 1)) as usize;
    let mut chars = [0u8; RANDOM_CHARS_MAX as usize];
    for c in chars.iter_mut().take(extra) {
        h = splitmix64(h);
        *c = NAME_CHARS[(h % NAME_CHARS.len() as u64) as usize];
    }
    if random {
        out.extend_from_slice(&chars[..extra]);
    }
    out.extend(
        (0..10)
            .rev()
            .map(|k| HEX[((index >> (4 * k)) & 0xf) as usize]),
    );
    if !random {
        out.extend_from_slice(&chars[..extra]);
    }
}

/// The number in a sequential-phase name (its first 10 hex digits).
pub(super) fn sequential_index(name: &[u8]) -> Option<u64> {
    let digits = name.get(..10)?;
    digits.iter().try_fold(0u64, |n, &c| {
        let d = (c as char).to_digit(16)?;
        Some(n << 4 | d as u64)
    })
}
