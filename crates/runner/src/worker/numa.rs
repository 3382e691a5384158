//! fio's `numa_cpu_nodes` and `numa_mem_policy` (see `model::numa`), in
//! the worker's thread before its clock starts: the thread is pinned to
//! the CPUs of its nodes (sched_setaffinity; after `cpus_allowed`, so the
//! nodes win when both are given), its memory policy is set
//! (set_mempolicy) and the I/O buffers, allocated before the thread
//! started, are moved under it (mbind). The machine's nodes come from
//! sysfs (`/sys/devices/system/node`); a node it does not have is an error
//! naming the ones it has.

use super::WorkerPlan;
use crate::error::{IoError, RunError};
use engine::{sys, Engine};
use model::numa::NodeList;
use std::path::Path;

const NODES: &str = "/sys/devices/system/node";

/// Carries out the job's NUMA options, if any.
pub(super) fn place(plan: &mut WorkerPlan) -> Result<(), RunError> {
    let numa = plan.spec.numa.clone();
    if numa.cpu_nodes.is_none() && numa.mem_policy.is_none() {
        return Ok(());
    }
    let in_job = |e: RunError| RunError::in_job(&plan.spec.name, e);
    let online = online_nodes().map_err(in_job)?;
    if let Some(list) = &numa.cpu_nodes {
        let option = format!("numa_cpu_nodes={}", list.fio_text());
        let nodes = existing(list, &online, &option).map_err(in_job)?;
        let mut cpus = Vec::new();
        for node in &nodes {
            let path = format!("{NODES}/node{node}/cpulist");
            cpus.extend(read_list(Path::new(&path)).map_err(in_job)?);
        }
        sys::pin_thread(&cpus).map_err(|e| {
            let pin = IoError::without_path("sched_setaffinity", e)
                .saying(format!("{option}: cannot run on their CPUs {cpus:?}"));
            in_job(pin.into())
        })?;
    }
    if let Some(policy) = &numa.mem_policy {
        let option = format!("numa_mem_policy={}", policy.fio_text());
        let nodes = match &policy.nodes {
            Some(list) => existing(list, &online, &option).map_err(in_job)?,
            None => Vec::new(),
        };
        let mode = policy.mode.mpol();
        let set = sys::set_thread_mempolicy(mode, &nodes)
            .map_err(|e| IoError::without_path("set_mempolicy", e))
            .and_then(|()| {
                plan.engine
                    .pool_mut()
                    .bind_to_nodes(mode, &nodes)
                    .map_err(|e| IoError::without_path("mbind", e))
            });
        set.map_err(|e| {
            in_job(
                e.saying(format!("{option}: cannot set the memory policy"))
                    .into(),
            )
        })?;
    }
    Ok(())
}

/// The machine's NUMA nodes (`online`): an error on a kernel without NUMA.
fn online_nodes() -> Result<Vec<u32>, RunError> {
    read_list(&Path::new(NODES).join("online"))
}

/// The nodes of `list` (`all`: every node online), each of which must be online.
fn existing(list: &NodeList, online: &[u32], option: &str) -> Result<Vec<u32>, RunError> {
    let NodeList::Nodes(nodes) = list else {
        return Ok(online.to_vec());
    };
    let missing: Vec<u32> = nodes
        .iter()
        .copied()
        .filter(|n| !online.contains(n))
        .collect();
    if missing.is_empty() {
        return Ok(nodes.clone());
    }
    let have = NodeList::Nodes(online.to_vec()).fio_text();
    let plural = if online.len() == 1 { "" } else { "s" };
    Err(RunError::Other(format!(
        "{option} needs NUMA node{} {}, which this machine does not have: it has node{plural} \
         {have} ({NODES}/online); use nodes among them, or run on a machine with a second \
         NUMA node",
        if missing.len() == 1 { "" } else { "s" },
        NodeList::Nodes(missing).fio_text(),
    )))
}

/// A sysfs list (`0-3,8`) of numbers.
fn read_list(path: &Path) -> Result<Vec<u32>, RunError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        RunError::from(
            IoError::new("read", path, e)
                .note("(the machine's NUMA nodes: a kernel without NUMA has none)"),
        )
    })?;
    parse_list(text.trim()).ok_or_else(|| {
        RunError::Other(format!(
            "{}: '{}' is not a list of numbers",
            path.display(),
            text.trim()
        ))
    })
}

fn parse_list(text: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for item in text.split(',').filter(|i| !i.is_empty()) {
        let (lo, hi) = item.split_once('-').unwrap_or((item, item));
        let (lo, hi): (u32, u32) = (lo.parse().ok()?, hi.parse().ok()?);
        out.extend(lo..=hi);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_lists_and_missing_nodes() {
        assert_eq!(parse_list("0-2,5"), Some(vec![0, 1, 2, 5]));
        assert_eq!(parse_list(""), Some(vec![]));
        assert_eq!(parse_list("x"), None);
        let two = NodeList::Nodes(vec![0, 1]);
        let e = existing(&two, &[0], "numa_cpu_nodes=0-1").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("needs NUMA node 1"), "{msg}");
        assert!(msg.contains("it has node 0"), "{msg}");
        assert_eq!(existing(&NodeList::All, &[0, 1], "x").unwrap(), [0, 1]);
        assert_eq!(existing(&two, &[0, 1, 2], "x").unwrap(), [0, 1]);
        // This machine's list reads (every Linux with NUMA has node 0).
        if Path::new(NODES).join("online").exists() {
            assert!(online_nodes().unwrap().contains(&0));
        }
    }
}
