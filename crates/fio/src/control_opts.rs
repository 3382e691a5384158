//! `exitall`, `exit_what` and `exitall_on_error`: one job finishing (or
//! failing) ends others, as fio does; `flow`, `flow_id` and `flow_sleep`:
//! jobs of one flow keep their I/Os in the ratio of their weights (see
//! `model::control`).

use crate::error::FioError;
use crate::options::Key;
use crate::values::Given;
use model::control::ExitWhat;
use model::JobSpec;

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    let rules = &mut spec.exit_rules;
    let flow = &mut spec.flow;
    match o.key {
        Key::Flow => flow.weight = o.int_u32()?,
        Key::FlowId => flow.id = o.int_u32()?,
        Key::FlowSleep => flow.sleep_us = o.int()?,
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
    let flow = &job.flow;
    if flow.weight > 0 {
        opts.push(("flow", Some(flow.weight.to_string())));
        if flow.id != 0 {
            opts.push(("flow_id", Some(flow.id.to_string())));
        }
        if flow.sleep_us != 0 {
            opts.push(("flow_sleep", Some(flow.sleep_us.to_string())));
        }
    }
}
