//! `numa_cpu_nodes` and `numa_mem_policy` (see `model::numa`), and
//! `cpus_allowed_policy` (`shared`, or `split`: one CPU of `cpus_allowed`
//! per thread). Their
//! syntax is checked here, with fio's messages' rules (a node list for
//! `bind`, `interleave` and `prefer`, one node for `prefer`, none for
//! `default` and `local`); whether the nodes exist is the runner's check,
//! when the job starts, as fio finds out when it runs.

use crate::error::{FioError, Scope};
use crate::options::Key;
use crate::pattern;
use crate::values::Given;
use model::numa::{MemMode, MemPolicy, NodeList};
use model::JobSpec;

/// Applies one of these options; `false` when `key` is not one of them.
pub(crate) fn apply(spec: &mut JobSpec, o: &Given) -> Result<bool, FioError> {
    match o.key {
        Key::NumaCpuNodes => spec.numa.cpu_nodes = Some(nodes(o.scope, o.name, o.text)?),
        Key::NumaMemPolicy => spec.numa.mem_policy = Some(policy(o)?),
        // cpus_allowed_policy: how cpus_allowed is shared out (see the runner's `paced`).
        Key::CpusAllowedPolicy => {
            spec.cpus_split = match o.text.trim() {
                "shared" => false,
                "split" => true,
                _ => return Err(o.invalid("use shared (the default) or split")),
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn nodes(scope: &Scope, name: &str, text: &str) -> Result<NodeList, FioError> {
    match text.trim() {
        "all" => Ok(NodeList::All),
        t => pattern::number_list(scope, name, "node numbers (or all)", t).map(NodeList::Nodes),
    }
}

fn policy(o: &Given) -> Result<MemPolicy, FioError> {
    let (mode, list) = match o.text.split_once(':') {
        Some((m, l)) => (m.trim(), Some(l.trim())),
        None => (o.text.trim(), None),
    };
    let Some(mode) = MemMode::parse(mode) else {
        return Err(o.invalid(format!(
            "the policy is one of {}, then ':' and the nodes for prefer, bind and \
             interleave, e.g. bind:0",
            MemMode::FIO_NAMES.join(", ")
        )));
    };
    let name = mode.fio_name();
    let nodes = match (mode, list) {
        (MemMode::Default | MemMode::Local, None) => None,
        (MemMode::Default | MemMode::Local, Some(_)) => {
            return Err(o.invalid(format!("'{name}' takes no nodes: write {name}")))
        }
        (_, None) => {
            return Err(o.invalid(format!("'{name}' needs its nodes, e.g. {name}:0")));
        }
        (_, Some(l)) => Some(nodes(o.scope, o.name, l)?),
    };
    let one = matches!(&nodes, Some(NodeList::Nodes(n)) if n.len() == 1);
    if mode == MemMode::Prefer && !one {
        return Err(o.invalid("'prefer' takes one node (fio refuses more), e.g. prefer:0"));
    }
    Ok(MemPolicy { mode, nodes })
}

/// What `--parse-only` shows of these.
pub(crate) fn show(job: &JobSpec, opts: &mut Vec<(&'static str, Option<String>)>) {
    if let Some(n) = &job.numa.cpu_nodes {
        opts.push(("numa_cpu_nodes", Some(n.fio_text())));
    }
    if let Some(p) = &job.numa.mem_policy {
        opts.push(("numa_mem_policy", Some(p.fio_text())));
    }
}
