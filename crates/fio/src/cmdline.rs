//! Stage one: fio's argv, split into sections of raw options.
//!
//! Like ripgrep's two-stage argument parsing, this stage only decides what
//! each argument *is* (which option, which value, which job it belongs to)
//! and leaves what the values *mean* to [`crate::jobs`]. Keeping the two apart
//! means every name-level error (unknown option, not carried out, missing
//! value) is found in argv order before any value is looked at, and the
//! second stage can work on clean data.
//!
//! fio's command-line rules, as its documentation gives them:
//! - `--name=X` starts a new job; `--name=global` starts a section of options
//!   shared by the jobs after it; options before the first `--name` are
//!   global too.
//! - an option that takes a value accepts `--opt=value` and `--opt value`
//!   (fio parses its long options with getopt, which allows both);
//!   set-only options (`--time_based`, `--group_reporting`) stand alone or
//!   take `=value`.
//! - a single leading dash works as well as two (`-name=x`), as with getopt's
//!   long-only mode.
//! - anything that is not an option is a job file (`-` is standard input);
//!   where it stands among the options does not matter, as with getopt.
//! - values may use fio's keywords and arithmetic (`--bs='$pagesize*2'`), as
//!   the HOWTO documents (fio 3.33 itself refuses them on the command line).

use crate::error::{FioError, Origin};
use crate::expand::{self, Env};
use crate::options::{self, Arity, Key, Lookup, OptDef};
use crate::run_opts::{self, take_value, CliOptions, Info};
use crate::suggest::closest;
use crate::OutputFormat;
use model::units::parse_bool;

/// One job option as given, before its value is interpreted.
#[derive(Clone, Debug)]
pub(crate) struct RawOpt {
    pub def: &'static OptDef,
    /// `None` only for a flag given bare (`--time_based`).
    pub value: Option<String>,
    /// The job-file line it came from; `None` on the command line.
    pub at: Option<Origin>,
}

#[derive(Debug)]
pub(crate) enum SectionKind {
    Global,
    Job(String),
}

#[derive(Debug)]
pub(crate) struct Section {
    pub kind: SectionKind,
    /// For a job, its `name` option comes first, as fio echoes it.
    pub opts: Vec<RawOpt>,
    /// The `[section]` line in a job file; `None` on the command line.
    pub at: Option<Origin>,
}

impl Section {
    pub(crate) fn new(kind: SectionKind, at: Option<Origin>) -> Section {
        Section {
            kind,
            opts: Vec::new(),
            at,
        }
    }
}

#[derive(Debug)]
pub(crate) struct RawArgs {
    pub sections: Vec<Section>,
    /// Positional arguments, in order.
    pub job_files: Vec<String>,
    /// `--section=NAME`, each given.
    pub sections_wanted: Vec<String>,
    pub parse_only: bool,
    pub output_format: Vec<OutputFormat>,
    pub output: Option<String>,
    pub allow_destructive: bool,
    /// `--append-terse`: terse after the formats chosen.
    pub append_terse: bool,
    pub cli: CliOptions,
    pub info: Option<Info>,
}

pub(crate) fn split<I: IntoIterator<Item = String>>(
    args: I,
    env: &Env,
) -> Result<RawArgs, FioError> {
    let mut args = args.into_iter().peekable();
    let mut raw = RawArgs {
        sections: vec![Section::new(SectionKind::Global, None)],
        job_files: Vec::new(),
        sections_wanted: Vec::new(),
        parse_only: false,
        output_format: vec![OutputFormat::Normal],
        output: None,
        allow_destructive: false,
        append_terse: false,
        cli: CliOptions::default(),
        info: None,
    };
    // A bare flag just before a non-option: `--time_based 1` is a likely
    // slip worth its own message.
    let mut after_bare_flag: Option<&'static str> = None;
    while let Some(arg) = args.next() {
        let Some((name, inline)) = option_parts(&arg) else {
            if let Some(rest) = arg.strip_prefix(['\u{2013}', '\u{2014}', '\u{2212}']) {
                let rest = rest.trim_start_matches(['\u{2013}', '\u{2014}', '\u{2212}', '-']);
                return Err(FioError::TypographicDash(arg.clone(), rest.to_string()));
            }
            // `--time_based 1` is a likely slip; `--time_based job.fio` is not.
            if let Some(flag) = after_bare_flag {
                if parse_bool(&arg).is_ok() && !std::path::Path::new(&arg).exists() {
                    return Err(FioError::FlagValue {
                        option: flag.to_string(),
                        value: arg,
                    });
                }
            }
            after_bare_flag = None;
            raw.job_files.push(arg);
            continue;
        };
        after_bare_flag = None;
        if run_opts::REMOTE.contains(&name) {
            return Err(FioError::Remote(name.to_string()));
        }
        match options::lookup(name) {
            Lookup::Unknown => {
                return Err(FioError::Unknown {
                    option: name.to_string(),
                    suggestion: closest(name, options::known_names()).map(str::to_string),
                })
            }
            Lookup::NotCarriedOut => return Err(FioError::NotCarriedOut(name.to_string())),
            Lookup::Run(run) if run == options::ALLOW_DESTRUCTIVE || run == options::PARSE_ONLY => {
                let on = match inline {
                    None => {
                        after_bare_flag = Some(run);
                        true
                    }
                    Some(v) => parse_bool(v).map_err(|e| FioError::RunOption {
                        option: run.to_string(),
                        value: v.to_string(),
                        problem: e.to_string(),
                    })?,
                };
                if run == options::PARSE_ONLY {
                    raw.parse_only = on;
                } else {
                    raw.allow_destructive = on;
                }
            }
            Lookup::Run(run) if run_opts::names().any(|n| n == run) => {
                let taken = run_opts::Taken {
                    formats: &mut raw.output_format,
                    append_terse: &mut raw.append_terse,
                    cli: &mut raw.cli,
                    info: &mut raw.info,
                };
                run_opts::take(run, inline, &mut args, taken)?;
            }
            Lookup::Run(run) => {
                let value = take_value(run, inline, &mut args)?;
                if run == options::OUTPUT_FORMAT {
                    raw.output_format = parse_output_formats(&value)?;
                } else if run == options::SECTION {
                    raw.sections_wanted.push(value);
                } else {
                    raw.output = Some(value);
                }
            }
            Lookup::Job(def) => {
                let value = match def.arity {
                    Arity::Value => Some(take_value(def.name, inline, &mut args)?),
                    Arity::Flag => {
                        if inline.is_none() {
                            after_bare_flag = Some(def.name);
                        }
                        inline.map(str::to_string)
                    }
                };
                let value = match value {
                    Some(v) => Some(expand::value(
                        def.name,
                        &v,
                        def.key.value_kind(),
                        env,
                        false,
                    )?),
                    None => None,
                };
                push_option(&mut raw.sections, def, value);
            }
        }
    }
    if raw.append_terse && !raw.output_format.contains(&OutputFormat::Terse) {
        raw.output_format.push(OutputFormat::Terse);
    }
    Ok(raw)
}

/// `--name=X` starts a section; every other option joins the current one.
fn push_option(sections: &mut Vec<Section>, def: &'static OptDef, value: Option<String>) {
    if def.key == Key::Name {
        let name = value.unwrap_or_default();
        let section = if name == "global" {
            Section::new(SectionKind::Global, None)
        } else {
            let mut job = Section::new(SectionKind::Job(name.clone()), None);
            job.opts.push(RawOpt {
                def,
                value: Some(name),
                at: None,
            });
            job
        };
        sections.push(section);
    } else if let Some(section) = sections.last_mut() {
        section.opts.push(RawOpt {
            def,
            value,
            at: None,
        });
    }
}

/// Splits `--opt=value` into `("opt", Some("value"))`; `None` for a non-option.
fn option_parts(arg: &str) -> Option<(&str, Option<&str>)> {
    let body = match arg.strip_prefix("--") {
        Some(body) => body,
        None => arg.strip_prefix('-')?,
    };
    let (name, value) = match body.split_once('=') {
        Some((name, value)) => (name, Some(value)),
        None => (body, None),
    };
    if name.is_empty() {
        return None;
    }
    Some((name, value))
}

/// `normal`, `json`, `json+`, `terse`, `ndjson` or a comma list of them (`normal,json+`), as fio takes it.
pub(crate) fn parse_output_formats(text: &str) -> Result<Vec<OutputFormat>, FioError> {
    let err = |problem: String| FioError::RunOption {
        option: options::OUTPUT_FORMAT.to_string(),
        value: text.to_string(),
        problem,
    };
    let mut formats = Vec::new();
    for part in text.split(',').map(str::trim) {
        let format = match part {
            "normal" => OutputFormat::Normal,
            "json" => OutputFormat::Json,
            "json+" => OutputFormat::JsonPlus,
            "terse" => OutputFormat::Terse,
            "ndjson" => OutputFormat::Ndjson,
            _ => {
                let mut problem = format!(
                    "'{part}' is not an output format: use normal, json, json+, terse or ndjson, or several \
                     as normal,json"
                );
                if let Some(s) = closest(part, ["normal", "json", "json+", "terse", "ndjson"]) {
                    problem.push_str(&format!("; did you mean '{s}'?"));
                }
                return Err(err(problem));
            }
        };
        if !formats.contains(&format) {
            formats.push(format);
        }
    }
    Ok(formats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_strs(args: &[&str]) -> Result<RawArgs, FioError> {
        split(args.iter().map(|s| s.to_string()), &Env::real())
    }

    #[test]
    fn option_parts_forms() {
        assert_eq!(option_parts("--bs=4k"), Some(("bs", Some("4k"))));
        assert_eq!(option_parts("-bs=4k"), Some(("bs", Some("4k"))));
        assert_eq!(option_parts("--time_based"), Some(("time_based", None)));
        assert_eq!(
            option_parts("--filename=a=b"),
            Some(("filename", Some("a=b")))
        );
        assert_eq!(option_parts("job.fio"), None);
        assert_eq!(option_parts("--"), None);
        assert_eq!(option_parts("-"), None);
        assert_eq!(option_parts("--=x"), None);
    }

    #[test]
    fn sections_follow_names() {
        let raw = split_strs(&["--bs=8k", "--name=a", "--iodepth", "4", "--name=global"])
            .expect("parses");
        assert_eq!(raw.sections.len(), 3);
        assert_eq!(raw.sections[0].opts.len(), 1);
        assert!(matches!(&raw.sections[1].kind, SectionKind::Job(n) if n == "a"));
        assert_eq!(raw.sections[1].opts[1].value.as_deref(), Some("4"));
        assert!(matches!(raw.sections[2].kind, SectionKind::Global));
    }

    #[test]
    fn positional_arguments_are_job_files_wherever_they_stand() {
        let raw = split_strs(&["a.fio", "--size=1m", "--time_based", "b.fio", "-"]).unwrap();
        assert_eq!(raw.job_files, ["a.fio", "b.fio", "-"]);
        assert_eq!(raw.sections.len(), 1);
        assert_eq!(raw.sections[0].opts.len(), 2);
        let err = split_strs(&["--name=a", "--time_based", "1"]).unwrap_err();
        assert!(matches!(err, FioError::FlagValue { .. }), "{err:?}");
    }

    #[test]
    fn parse_only_and_sections() {
        let raw = split_strs(&["--parse-only", "--section=a", "--section", "b", "j.fio"]).unwrap();
        assert!(raw.parse_only);
        assert_eq!(raw.sections_wanted, ["a", "b"]);
        assert_eq!(raw.job_files, ["j.fio"]);
        assert!(!split_strs(&["--parse-only=0"]).unwrap().parse_only);
    }

    #[test]
    fn typographic_dashes_are_named() {
        let err = split_strs(&["\u{2013}name=test"]).unwrap_err();
        assert_eq!(
            err,
            FioError::TypographicDash("\u{2013}name=test".into(), "name=test".into())
        );
        assert!(err.to_string().contains("e.g. --name=test"), "{err}");
    }

    #[test]
    fn keywords_expand_on_the_command_line() {
        let raw = split_strs(&["--name=a", "--iodepth=$ncpus*0+3"]).unwrap();
        assert_eq!(raw.sections[1].opts[1].value.as_deref(), Some("3"));
    }

    #[test]
    fn a_value_is_not_taken_from_the_next_option() {
        let err = split_strs(&["--name=a", "--bs", "--size=1g"]).unwrap_err();
        assert_eq!(err, FioError::MissingValue("bs".into()));
        let err = split_strs(&["--name=a", "--bs"]).unwrap_err();
        assert_eq!(err, FioError::MissingValue("bs".into()));
    }

    #[test]
    fn output_formats() {
        use OutputFormat::*;
        assert_eq!(parse_output_formats("json").unwrap(), vec![Json]);
        assert_eq!(
            parse_output_formats("normal,json").unwrap(),
            vec![Normal, Json]
        );
        assert_eq!(parse_output_formats("json,json").unwrap(), vec![Json]);
        let msg = parse_output_formats("jsno").unwrap_err().to_string();
        assert!(msg.contains("did you mean 'json'"), "{msg}");
        assert_eq!(
            parse_output_formats("normal,json+,terse").unwrap(),
            vec![Normal, JsonPlus, Terse]
        );
    }
}
