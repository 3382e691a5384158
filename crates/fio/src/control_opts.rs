//! `exitall`, `exit_what` and `exitall_on_error`: one job finishing (or
//! failing) ends others, as fio does (see `model::control`).

use crate::error::FioError;
use crate::options::Key;
use crate::values::Given;
use model::control::ExitWhat;
use model::JobSpec;

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let rules = &mut spec.exit_rules;
    match o.key {
        Key::ExitAll => rules.exitall = o.flag()?,
        Key::ExitAllOnError => rules.on_error = o.flag()?,
        Key::ExitWhat => {
            rules.what = ExitWhat::parse(o.text.trim())
                .ok_or_else(|| o.invalid("use group (the default), stonewall or all"))?
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// What `--parse-only` shows of these.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    let rules = &job.exit_rules;
    if rules.exitall {
        opts.push(("exitall", None));
        if rules.what != ExitWhat::Group {
            opts.push(("exit_what", Some(rules.what.fio_name().to_string())));
        }
    }
    if rules.on_error {
        opts.push(("exitall_on_error", None));
    }
}
