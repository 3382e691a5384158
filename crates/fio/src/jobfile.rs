//! Stage one for job files: fio's ini format, read into the same sections of
//! raw options that the command line gives, each option remembering its
//! `file:line`.
//!
//! The syntax, from fio's HOWTO and checked against fio 3.33:
//! - `[name]` starts a job, `[global]` (exactly, case-sensitive) a section of
//!   defaults for the jobs below it in the same file; several `[global]`
//!   sections add up. Spaces inside the brackets are trimmed (`[ a ]` is `a`).
//! - one `option=value` or bare `option` (a flag, `time_based`) per line;
//!   spaces around the name and the value are trimmed, names are
//!   case-sensitive.
//! - a line starting with `;` or `#` is a comment, and so is the rest of a
//!   line from the first `;` or `#` (fio cuts `filename=/a#b` to `/a`).
//! - `include FILE` inside a section pulls in the lines of FILE, resolved
//!   relative to the including file; included files may not hold sections.
//!   diskbench refuses include loops by name (fio fails on them less clearly).
//! - an option before the first section, or an `include` there, is an error.
//! - CRLF line ends and a leading byte-order mark are accepted.
//! - with `--section=NAME`, the other job sections are skipped unread, as in
//!   fio (an error inside one does not count; `[global]` always counts).
//!
//! Values are expanded here (`${VAR}`, `$ncpus`, arithmetic: see `expand`), so
//! the next stage sees the same plain values as from the command line.

use crate::cmdline::{RawOpt, Section, SectionKind};
use crate::error::{FioError, Origin};
use crate::expand::{self, Env};
use crate::options::{self, Arity, Lookup};
use crate::suggest::closest;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Larger than any real job file: a guard against `include /dev/zero`.
const MAX_FILE_BYTES: u64 = 16 << 20;
/// Deeper include chains than this are refused.
const MAX_INCLUDE_DEPTH: usize = 32;

/// The sections of one job file, and the names of every job section in it
/// (skipped ones too, for `--section`'s "did you mean").
pub(crate) struct JobFile {
    pub sections: Vec<Section>,
    pub job_names: Vec<String>,
}

/// Reads the job file at `path` (`-` is standard input). `wanted` are the
/// `--section` names; empty means every section.
pub(crate) fn read(path: &str, wanted: &[String], env: &Env) -> Result<JobFile, FioError> {
    let mut reader = Reader {
        env,
        wanted,
        file: JobFile {
            sections: Vec::new(),
            job_names: Vec::new(),
        },
        stack: Vec::new(),
        skipping: false,
    };
    let text = if path == "-" {
        load_stdin()?
    } else {
        load(Path::new(path), path)?
    };
    let shown = if path == "-" { "<stdin>" } else { path };
    if let Some(missing) = crate::requirements::scan(shown, &text) {
        return Err(missing);
    }
    reader.read_text(Path::new(path), shown, &text, false)?;
    Ok(reader.file)
}

fn load(path: &Path, shown: &str) -> Result<String, FioError> {
    let problem = |p: String| FioError::JobFile {
        file: shown.to_string(),
        problem: p,
    };
    if path.is_dir() {
        return Err(problem("is a directory, not a job file".into()));
    }
    let file = std::fs::File::open(path).map_err(|e| problem(e.to_string()))?;
    read_limited(file, shown)
}

fn load_stdin() -> Result<String, FioError> {
    read_limited(std::io::stdin().lock(), "<stdin>")
}

/// The text of the job file `shown`, read from `source`.
fn read_limited(source: impl Read, shown: &str) -> Result<String, FioError> {
    let problem = |p: String| FioError::JobFile {
        file: shown.to_string(),
        problem: p,
    };
    let mut bytes = Vec::new();
    source
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| problem(e.to_string()))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(problem(format!(
            "larger than {} MiB: not a job file",
            MAX_FILE_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|_| problem("not text (not valid UTF-8)".into()))
}

struct Reader<'a> {
    env: &'a Env,
    wanted: &'a [String],
    file: JobFile,
    /// The files being read, outermost first (canonical paths), to find loops.
    stack: Vec<PathBuf>,
    /// Inside a job section that `--section` leaves out.
    skipping: bool,
}

impl Reader<'_> {
    fn read_text(
        &mut self,
        path: &Path,
        shown: &str,
        text: &str,
        included: bool,
    ) -> Result<(), FioError> {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.stack.push(canonical);
        // Editors on Windows may start a file with a byte-order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        for (i, line) in text.lines().enumerate() {
            let at = Origin {
                file: shown.to_string(),
                line: i + 1,
            };
            self.line(path, &at, line, included).map_err(|e| match e {
                located @ FioError::At { .. } => located,
                other => other.located(Some(&at)),
            })?;
        }
        self.stack.pop();
        Ok(())
    }

    fn line(
        &mut self,
        path: &Path,
        at: &Origin,
        line: &str,
        included: bool,
    ) -> Result<(), FioError> {
        let t = line.trim();
        if t.is_empty() || t.starts_with([';', '#']) {
            return Ok(());
        }
        if t.starts_with('[') {
            if included {
                return Err(FioError::Syntax(format!(
                    "'{t}': an included file may not hold sections (as in fio): \
                     put the section in the including file"
                )));
            }
            return self.header(t, at);
        }
        let body = strip_comment(t);
        if body == "include" {
            return Err(FioError::Syntax(
                "'include' needs a file name: include FILE".into(),
            ));
        }
        if let Some(target) = include_target(body) {
            return self.include(path, at, target);
        }
        if self.skipping {
            return Ok(());
        }
        if self.file.sections.is_empty() {
            return Err(FioError::Syntax(format!(
                "'{body}' comes before any section: put options under [global] \
                 (for every job) or under a [jobname]"
            )));
        }
        let opt = self.option(body, at)?;
        if let Some(section) = self.file.sections.last_mut() {
            section.opts.push(opt);
        }
        Ok(())
    }

    /// `name=value` or a bare `name`, looked up and expanded.
    fn option(&self, body: &str, at: &Origin) -> Result<RawOpt, FioError> {
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.trim())),
            None => (body, None),
        };
        if name.is_empty() {
            return Err(FioError::Syntax(format!(
                "'{body}' has no option name before '=': write option=value"
            )));
        }
        let def = match options::lookup(name) {
            Lookup::Job(def) => def,
            Lookup::Run(run) => return Err(FioError::RunOptionInFile(run.to_string())),
            Lookup::NotCarriedOut => return Err(FioError::NotCarriedOut(name.to_string())),
            Lookup::Unknown => {
                return Err(FioError::Unknown {
                    option: name.to_string(),
                    suggestion: closest(name, options::job_names()).map(str::to_string),
                })
            }
        };
        let value = match (value, def.arity) {
            (Some(""), _) | (None, Arity::Value) => {
                return Err(FioError::MissingValue(def.name.to_string()))
            }
            (Some(v), _) => Some(expand::value(
                def.name,
                v,
                def.key.value_kind(),
                self.env,
                true,
            )?),
            (None, Arity::Flag) => None,
        };
        Ok(RawOpt {
            def,
            value,
            at: Some(at.clone()),
        })
    }

    fn header(&mut self, t: &str, at: &Origin) -> Result<(), FioError> {
        let Some(end) = t.find(']') else {
            return Err(FioError::Syntax(format!(
                "'{t}': a section header needs a closing ']', e.g. [job1]"
            )));
        };
        let name = t[1..end].trim();
        let rest = t[end + 1..].trim();
        if !(rest.is_empty() || rest.starts_with([';', '#'])) {
            return Err(FioError::Syntax(format!(
                "'{rest}' after the section header [{name}]: put options on lines of their own"
            )));
        }
        if name.is_empty() {
            return Err(FioError::Syntax(
                "'[]' names no section: use [global] or a job name, e.g. [job1]".into(),
            ));
        }
        let kind = if name == "global" {
            SectionKind::Global
        } else {
            self.file.job_names.push(name.to_string());
            SectionKind::Job(name.to_string())
        };
        self.skipping = matches!(&kind, SectionKind::Job(n)
            if !self.wanted.is_empty() && !self.wanted.iter().any(|w| w == n));
        if !self.skipping {
            self.file
                .sections
                .push(Section::new(kind, Some(at.clone())));
        }
        Ok(())
    }

    fn include(&mut self, path: &Path, at: &Origin, target: &str) -> Result<(), FioError> {
        if self.skipping {
            return Ok(());
        }
        if self.file.sections.is_empty() {
            return Err(FioError::Syntax(format!(
                "'include {target}' comes before any section: put it under [global] \
                 or under a [jobname]"
            )));
        }
        let full = match path.parent() {
            Some(dir) if Path::new(target).is_relative() => dir.join(target),
            _ => PathBuf::from(target),
        };
        let shown = full.display().to_string();
        let canonical = std::fs::canonicalize(&full).unwrap_or_else(|_| full.clone());
        if self.stack.contains(&canonical) {
            let mut chain: Vec<String> =
                self.stack.iter().map(|p| p.display().to_string()).collect();
            chain.push(canonical.display().to_string());
            return Err(FioError::IncludeLoop(chain.join(" -> ")));
        }
        if self.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(FioError::Syntax(format!(
                "includes nest deeper than {MAX_INCLUDE_DEPTH} files"
            )));
        }
        let text = load(&full, &shown).map_err(|e| e.located(Some(at)))?;
        self.read_text(&full, &shown, &text, true)
    }
}

/// The text before the first `;` or `#`, trimmed.
fn strip_comment(t: &str) -> &str {
    t.find([';', '#']).map_or(t, |i| &t[..i]).trim()
}

/// `include FILE` -> `FILE`.
fn include_target(body: &str) -> Option<&str> {
    let rest = body.strip_prefix("include")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    Some(rest.trim()).filter(|t| !t.is_empty())
}
