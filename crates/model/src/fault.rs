//! Fault-injection rules (`--inject-fault KIND@DIR:N[/M]`), shared by the
//! CLI, which parses them, and the engine wrapper that applies them.
//!
//! They exist to test what diskbench does when a disk misbehaves: that an
//! I/O error ends the job with a message naming the I/O, and that `verify=`
//! catches data the device stored or returned wrongly. A real failing disk
//! cannot be had on demand, so the wrapper makes the N-th read or write of
//! each worker fail or lie in a precise, repeatable way. Only the text form
//! and the schedule live here; this crate does no I/O.

use crate::direction::Direction;
use std::fmt;
use std::str::FromStr;

/// The grammar, for error messages and help text.
pub const FAULT_GRAMMAR: &str = "KIND@DIR:N[/M] (KIND@DIR one of bitflip@read, bitflip@write, \
     drop@write, misdirect@write, short@read, eio@read, eio@write, enospc@write, erofs@write; \
     N >= 1 is the first I/O hit, counted per worker from 1; /M also hits every M-th I/O of \
     that direction after N), e.g. eio@read:5/100";

/// What happens to an I/O the rule hits. The engine wrapper
/// (`engine::FaultyEngine`) documents the exact effect of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Bit 0 of the last byte flips: in the buffer before a write reaches
    /// the device, or in the buffer after a read completes.
    Bitflip,
    /// A write is reported done but never reaches the device.
    Drop,
    /// A write lands at another offset of the same file.
    Misdirect,
    /// A read is reported with half its length.
    Short,
    /// The I/O fails with EIO without reaching the device.
    Eio,
    /// The write fails with ENOSPC without reaching the device.
    Enospc,
    /// The write fails with EROFS without reaching the device.
    Erofs,
}

impl FaultKind {
    const ALL: [FaultKind; 7] = [
        FaultKind::Bitflip,
        FaultKind::Drop,
        FaultKind::Misdirect,
        FaultKind::Short,
        FaultKind::Eio,
        FaultKind::Enospc,
        FaultKind::Erofs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Bitflip => "bitflip",
            FaultKind::Drop => "drop",
            FaultKind::Misdirect => "misdirect",
            FaultKind::Short => "short",
            FaultKind::Eio => "eio",
            FaultKind::Enospc => "enospc",
            FaultKind::Erofs => "erofs",
        }
    }

    /// Whether the kind applies to reads, to writes.
    fn directions(self) -> (bool, bool) {
        match self {
            FaultKind::Bitflip | FaultKind::Eio => (true, true),
            FaultKind::Short => (true, false),
            FaultKind::Drop | FaultKind::Misdirect | FaultKind::Enospc | FaultKind::Erofs => {
                (false, true)
            }
        }
    }

    /// True for the kinds that fail the I/O with an errno.
    pub fn is_error(self) -> bool {
        matches!(self, FaultKind::Eio | FaultKind::Enospc | FaultKind::Erofs)
    }
}

/// One rule: `kind` on the `first`-th I/O of direction `dir` (counted per
/// worker, from 1), and then on every `every`-th one after it when given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultRule {
    pub kind: FaultKind,
    pub dir: Direction,
    pub first: u64,
    pub every: Option<u64>,
}

impl FaultRule {
    /// Whether the `n`-th I/O (from 1) of the rule's direction is hit.
    #[inline]
    pub fn hits(&self, n: u64) -> bool {
        match self.every {
            _ if n == self.first => true,
            Some(m) => n > self.first && (n - self.first).is_multiple_of(m),
            None => false,
        }
    }

    pub fn parse(text: &str) -> Result<FaultRule, FaultParseError> {
        let bad = |why: String| FaultParseError {
            text: text.to_string(),
            why,
        };
        let (kind_text, rest) = text
            .split_once('@')
            .ok_or_else(|| bad("no '@' between the kind and the direction".into()))?;
        let kind = FaultKind::ALL
            .into_iter()
            .find(|k| k.name() == kind_text.trim())
            .ok_or_else(|| {
                bad(format!(
                    "unknown kind '{kind_text}' (bitflip, drop, misdirect, short, eio, enospc, erofs)"
                ))
            })?;
        let (dir_text, count) = rest
            .split_once(':')
            .ok_or_else(|| bad("no ':N' after the direction".into()))?;
        let dir = match dir_text.trim() {
            "read" => Direction::Read,
            "write" => Direction::Write,
            other => return Err(bad(format!("unknown direction '{other}' (read or write)"))),
        };
        let (reads, writes) = kind.directions();
        if (dir == Direction::Read && !reads) || (dir == Direction::Write && !writes) {
            let only = if reads { "read" } else { "write" };
            return Err(bad(format!(
                "{} applies to {only}s only: use {}@{only}",
                kind.name(),
                kind.name()
            )));
        }
        let (first_text, every_text) = match count.split_once('/') {
            Some((n, m)) => (n, Some(m)),
            None => (count, None),
        };
        let number = |what: &str, t: &str| match t.trim().parse::<u64>() {
            Ok(v) if v >= 1 => Ok(v),
            _ => Err(bad(format!(
                "{what} '{t}' is not a whole number of at least 1"
            ))),
        };
        let first = number("N", first_text)?;
        let every = every_text.map(|m| number("M", m)).transpose()?;
        Ok(FaultRule {
            kind,
            dir,
            first,
            every,
        })
    }
}

impl FromStr for FaultRule {
    type Err = FaultParseError;
    fn from_str(s: &str) -> Result<FaultRule, FaultParseError> {
        FaultRule::parse(s)
    }
}

impl fmt::Display for FaultRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = match self.dir {
            Direction::Read => "read",
            Direction::Write => "write",
        };
        write!(f, "{}@{dir}:{}", self.kind.name(), self.first)?;
        if let Some(m) = self.every {
            write!(f, "/{m}")?;
        }
        Ok(())
    }
}

/// A rule that does not parse: the text, the part that is wrong, the grammar.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a fault: {why}; the form is {FAULT_GRAMMAR}")]
pub struct FaultParseError {
    pub text: String,
    pub why: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_parses_and_prints_back() {
        for text in [
            "bitflip@read:1",
            "bitflip@write:3",
            "drop@write:2",
            "misdirect@write:7",
            "short@read:4",
            "eio@read:5/100",
            "eio@write:1/1",
            "enospc@write:9",
            "erofs@write:10/3",
        ] {
            let rule = FaultRule::parse(text).unwrap();
            assert_eq!(rule.to_string(), text);
        }
    }

    #[test]
    fn the_schedule_is_n_then_every_m() {
        let r = FaultRule::parse("eio@read:5/100").unwrap();
        let hit: Vec<u64> = (1..=400).filter(|&n| r.hits(n)).collect();
        assert_eq!(hit, [5, 105, 205, 305]);
        let once = FaultRule::parse("eio@read:3").unwrap();
        assert_eq!((1..=100).filter(|&n| once.hits(n)).count(), 1);
        assert!(once.hits(3));
    }

    #[test]
    fn errors_name_the_bad_part_and_show_the_grammar() {
        for (text, says) in [
            ("eio", "no '@'"),
            ("oops@read:1", "unknown kind 'oops'"),
            ("eio@sideways:1", "unknown direction 'sideways'"),
            ("eio@read", "no ':N'"),
            ("eio@read:0", "N '0'"),
            ("eio@read:x", "N 'x'"),
            ("eio@read:5/0", "M '0'"),
            ("eio@read:5/", "M ''"),
            ("short@write:1", "short applies to reads only"),
            ("enospc@read:1", "enospc applies to writes only"),
            ("drop@read:1", "use drop@write"),
        ] {
            let e = FaultRule::parse(text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
            assert!(e.contains("KIND@DIR:N[/M]"), "{text}: {e}");
            assert!(e.starts_with(&format!("'{text}'")), "{e}");
        }
    }
}
