//! GoBonnieGo's command line. GoBonnieGo parses its flags with Go's `flag`
//! package: single-dash long flags (`-dir /tmp`), also `--dir`,
//! `-dir=/tmp`, and bare bool flags (`-json`, or `-json=false`). clap does
//! not speak that dialect, so this is a small parser of its own; anything it
//! does not know is a [`FlagError`] that names the flag.

use super::Options;

/// The command line, parsed.
#[derive(Debug)]
pub struct Flags {
    pub opts: Options,
    /// `-size` was given, so the RAM size is not needed for the default.
    pub size_given: bool,
    pub json: bool,
    pub verbose: bool,
    pub version: bool,
    pub help: bool,
}

/// A command line GoBonnieGo would refuse, in words close to Go's `flag`.
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    #[error("unexpected argument '{0}': GoBonnieGo takes only flags (e.g. -dir {0})")]
    NotAFlag(String),
    #[error("flag needs an argument: -{0}")]
    NoValue(String),
    #[error("flag provided but not defined: -{0}")]
    Unknown(String),
    #[error("-dir needs a directory")]
    EmptyDir,
    #[error("invalid value \"{value}\" for flag -{name}: give {want}")]
    BadValue {
        name: String,
        value: String,
        want: &'static str,
    },
    #[error("invalid boolean value \"{value}\" for -{name}: give true or false")]
    BadBool { name: String, value: String },
    #[error(
        "cannot read the RAM size (/proc/meminfo) for the default -size: \
                    give -size in GiB"
    )]
    NoRamSize,
    /// What [`Options::validate`] refuses.
    #[error("{0}")]
    Invalid(#[from] super::Error),
}

/// Go `flag` syntax: `-name`, `--name`, `-name=value`, `-name value`.
pub fn parse(args: &[String]) -> Result<Flags, FlagError> {
    let mut f = Flags {
        opts: Options::defaults(),
        size_given: false,
        json: false,
        verbose: false,
        version: false,
        help: false,
    };
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let body = arg
            .strip_prefix("--")
            .or_else(|| arg.strip_prefix('-'))
            .filter(|b| !b.is_empty() && !b.starts_with('-'))
            .ok_or_else(|| FlagError::NotAFlag(arg.clone()))?;
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        let boolean = |v: Option<&str>| v.map_or(Ok(true), |v| go_bool(name, v));
        match name {
            "h" | "help" => f.help = true,
            "v" => f.verbose = boolean(inline)?,
            "json" => f.json = boolean(inline)?,
            "version" => f.version = boolean(inline)?,
            "no-drop-caches" => f.opts.drop_host_cache = !boolean(inline)?,
            "dir" | "size" | "runs" | "seconds" | "threads" | "iops-duration" => {
                let value = match inline {
                    Some(v) => v,
                    None => {
                        i += 1;
                        args.get(i - 1)
                            .map(String::as_str)
                            .ok_or_else(|| FlagError::NoValue(name.to_string()))?
                    }
                };
                set(&mut f, name, value)?;
            }
            _ => return Err(FlagError::Unknown(name.to_string())),
        }
    }
    Ok(f)
}

fn set(f: &mut Flags, name: &str, value: &str) -> Result<(), FlagError> {
    let o = &mut f.opts;
    match name {
        "dir" if value.is_empty() => return Err(FlagError::EmptyDir),
        "dir" => o.dir = value.into(),
        "size" => {
            o.size_gib = number(name, value, "GiB, e.g. -size 0.5")?;
            f.size_given = true;
        }
        "runs" => o.runs = number(name, value, "a whole number, e.g. -runs 3")?,
        "seconds" => o.seconds = number(name, value, "whole seconds, e.g. -seconds 3600")?,
        "threads" => o.threads = number(name, value, "a whole number, e.g. -threads 4")?,
        _ => o.iops_seconds = number(name, value, "seconds, e.g. -iops-duration 0.5")?,
    }
    Ok(())
}

fn number<T: std::str::FromStr>(
    name: &str,
    value: &str,
    want: &'static str,
) -> Result<T, FlagError> {
    value.trim().parse().map_err(|_| FlagError::BadValue {
        name: name.to_string(),
        value: value.to_string(),
        want,
    })
}

/// Go's `strconv.ParseBool`, which `flag` uses for `-json=false`.
fn go_bool(name: &str, v: &str) -> Result<bool, FlagError> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(FlagError::BadBool {
            name: name.to_string(),
            value: v.to_string(),
        }),
    }
}

/// Refuses what cannot run before anything is written.
pub fn check(f: Flags) -> Result<Flags, FlagError> {
    if f.help || f.version {
        return Ok(f);
    }
    if !f.size_given && runner::probe::mem_total_bytes().is_none() {
        return Err(FlagError::NoRamSize);
    }
    f.opts.validate()?;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Flags, FlagError> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn go_flag_syntax_in_all_its_forms() {
        let f = p(&[
            "-dir",
            "/d",
            "--size=0.25",
            "-runs=3",
            "--threads",
            "4",
            "-json",
        ])
        .unwrap();
        assert_eq!(f.opts.dir, std::path::Path::new("/d"));
        assert_eq!(f.opts.size_gib, 0.25);
        assert_eq!((f.opts.runs, f.opts.threads), (3, 4));
        assert!(f.json && !f.verbose && f.size_given);
        let f = p(&[
            "--iops-duration",
            "0.5",
            "-v",
            "-json=false",
            "-seconds",
            "7",
        ])
        .unwrap();
        assert_eq!(f.opts.iops_seconds, 0.5);
        assert_eq!(f.opts.seconds, 7);
        assert!(f.verbose && !f.json);
        assert!(f.opts.drop_host_cache);
        assert!(!p(&["-no-drop-caches"]).unwrap().opts.drop_host_cache);
        assert!(p(&["--no-drop-caches=false"]).unwrap().opts.drop_host_cache);
    }

    #[test]
    fn bad_flags_say_what_is_wrong() {
        let err = |a: &[&str]| p(a).and_then(check).err().unwrap().to_string();
        assert!(err(&["-bogus"]).contains("not defined: -bogus"));
        assert!(err(&["-size", "abc"]).contains("\"abc\" for flag -size"));
        assert!(err(&["-size"]).contains("needs an argument: -size"));
        assert!(err(&["-threads", "-1"]).contains("-threads"));
        assert!(err(&["-threads", "0"]).contains("-threads 0"));
        assert!(err(&["-size", "0"]).contains("-size 0"));
        assert!(err(&["-json=maybe"]).contains("boolean"));
        assert!(err(&["/tmp"]).contains("unexpected argument '/tmp'"));
    }
}
