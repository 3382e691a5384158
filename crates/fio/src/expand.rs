//! Expanding an option value before it is interpreted: `${VAR}` from the
//! environment, fio's keywords `$ncpus`, `$mb_memory` and `$pagesize`, and
//! arithmetic.
//!
//! The rules follow fio's HOWTO, checked against fio 3.33:
//! - `${VAR}` is replaced by the variable's value, in job files (on the
//!   command line the shell does it). fio puts in an empty string when the
//!   variable is unset; diskbench refuses and names the variable, because an
//!   empty `size=` or `filename=` changes the job without a word.
//! - a keyword is replaced by its number wherever it appears, as text:
//!   `bs=$pagesize` is 4096 and `size=$mb_memory` is that many *bytes*
//!   (fio's own example `size=8*$mb_memory` is therefore 8 bytes per MiB of
//!   memory); text after the keyword stays (`$pagesizek` is `4096k`).
//! - when a keyword was replaced and the value holds `+ - * / % ^ ( )`, the
//!   whole value is one whole-number expression, as fio evaluates it (units
//!   inside, as in `$ncpus*4k`, are an error there too).
//! - without a keyword, a numeric value wrapped in parentheses, `(4096*2)`, is
//!   an expression, and for a time option its result is microseconds, as the
//!   HOWTO says ("for time values in expressions, units are microseconds by
//!   default"). (The Debian build of fio 3.33 lacks this parser and refuses
//!   such values; diskbench follows the documentation.)
//!
//! The environment and the machine's numbers come from an [`Env`], so tests
//! can give fixed ones.

use crate::arith;
use crate::error::FioError;
use crate::options::ValueKind;
use std::cell::OnceCell;

/// fio's keywords, longest first so that a prefix never shadows a longer name.
const KEYWORDS: [&str; 3] = ["mb_memory", "pagesize", "ncpus"];

/// The machine's numbers behind fio's keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SysValues {
    pub ncpus: u64,
    pub mb_memory: u64,
    pub pagesize: u64,
}

impl SysValues {
    /// From /proc and /sys, as fio gets them from sysconf: online CPUs, total
    /// memory in MiB, page size. Falls back to plausible values off Linux.
    fn probe() -> SysValues {
        let ncpus = std::fs::read_to_string("/sys/devices/system/cpu/online")
            .ok()
            .and_then(|s| count_cpu_list(s.trim()))
            .or_else(|| {
                std::thread::available_parallelism()
                    .ok()
                    .map(|n| n.get() as u64)
            })
            .unwrap_or(1);
        let mb_memory = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("MemTotal:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            })
            .map_or(0, |kib| kib / 1024);
        let pagesize = std::fs::read("/proc/self/auxv")
            .ok()
            .and_then(|bytes| auxv_pagesize(&bytes))
            .unwrap_or(4096);
        SysValues {
            ncpus,
            mb_memory,
            pagesize,
        }
    }

    fn get(&self, keyword: &str) -> u64 {
        match keyword {
            "ncpus" => self.ncpus,
            "mb_memory" => self.mb_memory,
            _ => self.pagesize,
        }
    }
}

/// `0-3,6,8-9` -> 7.
fn count_cpu_list(list: &str) -> Option<u64> {
    let mut n = 0u64;
    for part in list.split(',') {
        n += match part.split_once('-') {
            Some((a, b)) => b.parse::<u64>().ok()?.checked_sub(a.parse::<u64>().ok()?)? + 1,
            None => {
                part.parse::<u64>().ok()?;
                1
            }
        };
    }
    (n > 0).then_some(n)
}

/// AT_PAGESZ from the auxiliary vector (pairs of native-endian words).
fn auxv_pagesize(bytes: &[u8]) -> Option<u64> {
    const AT_PAGESZ: u64 = 6;
    const WORD: usize = std::mem::size_of::<usize>();
    let word = |c: &[u8]| -> u64 {
        let mut b = [0u8; 8];
        b[..WORD].copy_from_slice(c);
        u64::from_ne_bytes(b)
    };
    bytes
        .chunks_exact(2 * WORD)
        .map(|pair| (word(&pair[..WORD]), word(&pair[WORD..])))
        .find(|&(key, _)| key == AT_PAGESZ)
        .map(|(_, v)| v)
        .filter(|&v| v > 0)
}

type VarFn = Box<dyn Fn(&str) -> Option<String>>;

/// Where environment variables and the machine's numbers come from.
pub(crate) struct Env {
    var: VarFn,
    sys: OnceCell<SysValues>,
}

impl Env {
    /// The process environment and this machine (probed on first use).
    pub(crate) fn real() -> Env {
        Env {
            var: Box::new(|name| std::env::var(name).ok()),
            sys: OnceCell::new(),
        }
    }

    /// Fixed variables and numbers, for tests.
    #[cfg(test)]
    pub(crate) fn fixed(vars: &[(&str, &str)], sys: SysValues) -> Env {
        let vars: std::collections::HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Env {
            var: Box::new(move |name| vars.get(name).cloned()),
            sys: OnceCell::from(sys),
        }
    }

    fn sys(&self) -> &SysValues {
        self.sys.get_or_init(SysValues::probe)
    }
}

/// Expands one value of `option`. `env_vars` is false on the command line,
/// where the shell has already replaced `${VAR}`.
pub(crate) fn value(
    option: &str,
    text: &str,
    kind: ValueKind,
    env: &Env,
    env_vars: bool,
) -> Result<String, FioError> {
    let err = |problem: String| FioError::Expand {
        option: option.to_string(),
        value: text.to_string(),
        problem,
    };
    let with_vars = if env_vars && text.contains("${") {
        let (with_vars, unset) = env_variables(text, env).map_err(|e| err(e.to_string()))?;
        // fio goes on with the empty string, and fails on an option left
        // without a value (`bs=${FIO_BS}`: "failed parsing"): so do we,
        // naming the variable.
        if let (Some(name), true) = (unset.first(), with_vars.trim().is_empty()) {
            return Err(err(format!(
                "environment variable '{name}' is not set, which leaves {option}= without \
                 a value (fio puts in an empty string and fails too): set it (e.g. \
                 {name}=... diskbench fio FILE) or write the value in the file"
            )));
        }
        with_vars
    } else {
        text.to_string()
    };
    let (expanded, had_keyword) = keywords(&with_vars, env);
    if had_keyword && expanded.contains(|c| "+-*/%^()".contains(c)) {
        if let Some(bad) = expanded
            .chars()
            .find(|c| !(c.is_ascii_digit() || c.is_whitespace() || "+-*/%^()".contains(*c)))
        {
            return Err(err(format!(
                "'{bad}' in an expression with $ncpus, $mb_memory or $pagesize: such an \
                 expression takes whole numbers and + - * / % ^ ( ) only, as in fio \
                 (write sizes in bytes, e.g. bs=$pagesize*2 or size=$mb_memory*2*1048576)"
            )));
        }
        return arith::eval(&expanded)
            .map(|n| n.to_string())
            .map_err(|e| err(e.to_string()));
    }
    let trimmed = expanded.trim();
    if kind != ValueKind::Text && trimmed.starts_with('(') && trimmed.ends_with(')') {
        let n = arith::eval(trimmed).map_err(|e| err(e.to_string()))?;
        return Ok(match kind {
            ValueKind::Time => format!("{n}us"),
            _ => n.to_string(),
        });
    }
    Ok(expanded)
}

/// A `${NAME}` that cannot be read.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
enum VarError {
    #[error("'${{' without a closing '}}': write ${{NAME}}")]
    Unclosed,
    #[error("'${{}}' names no variable: write ${{NAME}}")]
    NoName,
}

/// Replaces every `${NAME}`; an unset variable becomes an empty string, as
/// in fio (`x${UNSET}y` is `xy`). Returns the text and the unset names.
fn env_variables(text: &str, env: &Env) -> Result<(String, Vec<String>), VarError> {
    let mut out = String::with_capacity(text.len());
    let mut unset = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(VarError::Unclosed);
        };
        let name = &after[..end];
        if name.is_empty() {
            return Err(VarError::NoName);
        }
        match (env.var)(name) {
            Some(v) => out.push_str(&v),
            None => unset.push(name.to_string()),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok((out, unset))
}

/// Replaces `$ncpus`, `$mb_memory` and `$pagesize`; says whether any was there.
fn keywords(text: &str, env: &Env) -> (String, bool) {
    if !text.contains('$') {
        return (text.to_string(), false);
    }
    let mut out = String::with_capacity(text.len());
    let mut found = false;
    let mut rest = text;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        match KEYWORDS.iter().find(|k| after.starts_with(*k)) {
            Some(k) => {
                out.push_str(&env.sys().get(k).to_string());
                found = true;
                rest = &after[k.len()..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    (out, found)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYS: SysValues = SysValues {
        ncpus: 2,
        mb_memory: 24105,
        pagesize: 4096,
    };

    fn env() -> Env {
        Env::fixed(&[("SIZE", "64m"), ("EMPTY", ""), ("DIR", "/mnt/x")], SYS)
    }

    fn num(text: &str) -> Result<String, FioError> {
        value("bs", text, ValueKind::Number, &env(), true)
    }

    fn problem(r: Result<String, FioError>) -> String {
        match r {
            Err(FioError::Expand { problem, .. }) => problem,
            other => panic!("expected an expansion error, got {other:?}"),
        }
    }

    #[test]
    fn keywords_like_fio() {
        // Each checked against fio 3.33 (bs echoed in `job options`).
        assert_eq!(num("$pagesize").unwrap(), "4096");
        assert_eq!(num("$pagesize*2").unwrap(), "8192");
        assert_eq!(num("2*$pagesize").unwrap(), "8192");
        assert_eq!(num("($pagesize*2)").unwrap(), "8192");
        assert_eq!(num("$pagesize *\t2").unwrap(), "8192");
        assert_eq!(num("$pagesize*(1+1)").unwrap(), "8192");
        assert_eq!(num("$pagesize+4096").unwrap(), "8192");
        assert_eq!(num("$pagesizek").unwrap(), "4096k");
        assert_eq!(num("$ncpus/3").unwrap(), "0");
        assert_eq!(num("$ncpus-1").unwrap(), "1");
        assert_eq!(num("$ncpus+$ncpus").unwrap(), "4");
        assert_eq!(num("$mb_memory/1000").unwrap(), "24");
        assert_eq!(num("$bogus").unwrap(), "$bogus");
        assert_eq!(num("a$b$").unwrap(), "a$b$");
    }

    #[test]
    fn units_inside_a_keyword_expression_are_refused() {
        let p = problem(num("$ncpus*4k"));
        assert!(p.contains("'k' in an expression"), "{p}");
        assert!(p.contains("$mb_memory*2*1048576"), "{p}");
        assert!(problem(num("$pagesize/0")).contains("division by zero"));
    }

    #[test]
    fn parenthesised_arithmetic() {
        assert_eq!(num("(4096*2)").unwrap(), "8192");
        assert_eq!(num(" (1+1) ").unwrap(), "2");
        let t = value("runtime", "(2*500)", ValueKind::Time, &env(), true);
        assert_eq!(t.unwrap(), "1000us");
        // Keyword expressions are plain numbers, seconds for times (fio: bc).
        let t = value("runtime", "$ncpus*30", ValueKind::Time, &env(), true);
        assert_eq!(t.unwrap(), "60");
        // Text options and unparenthesised numbers are left alone.
        let f = value("filename", "(a)", ValueKind::Text, &env(), true);
        assert_eq!(f.unwrap(), "(a)");
        assert_eq!(num("7/2").unwrap(), "7/2");
        assert!(problem(num("(4k*2)")).contains("'k' cannot appear"));
    }

    #[test]
    fn environment_variables() {
        assert_eq!(num("${SIZE}").unwrap(), "64m");
        let f = value(
            "filename",
            "${DIR}/f${EMPTY}",
            ValueKind::Text,
            &env(),
            true,
        );
        assert_eq!(f.unwrap(), "/mnt/x/f");
        let p = problem(num("${NOPE}"));
        assert!(p.contains("environment variable 'NOPE' is not set"), "{p}");
        assert!(p.contains("leaves bs= without a value"), "{p}");
        // Elsewhere an unset variable is an empty string, as in fio.
        let d = value("description", "x${NOPE}y", ValueKind::Text, &env(), true);
        assert_eq!(d.unwrap(), "xy");
        assert!(problem(num("${SIZE")).contains("without a closing"));
        assert!(problem(num("${}")).contains("names no variable"));
        // On the command line the shell expands variables, not diskbench.
        let cl = value("filename", "${NOPE}", ValueKind::Text, &env(), false);
        assert_eq!(cl.unwrap(), "${NOPE}");
        let e = num("${NOPE}").unwrap_err().to_string();
        assert!(e.starts_with("bs=${NOPE}: "), "{e}");
    }

    #[test]
    fn machine_numbers() {
        assert_eq!(count_cpu_list("0-3,6,8-9"), Some(7));
        assert_eq!(count_cpu_list("0"), Some(1));
        assert_eq!(count_cpu_list("x"), None);
        assert_eq!(count_cpu_list("3-1"), None);
        let sys = SysValues::probe();
        assert!(sys.ncpus >= 1 && sys.pagesize >= 4096, "{sys:?}");
        let mut auxv = Vec::new();
        for (k, v) in [(3usize, 1usize), (6, 16384), (0, 0)] {
            auxv.extend_from_slice(&k.to_ne_bytes());
            auxv.extend_from_slice(&v.to_ne_bytes());
        }
        assert_eq!(auxv_pagesize(&auxv), Some(16384));
        assert_eq!(auxv_pagesize(&[1, 2, 3]), None);
    }
}
