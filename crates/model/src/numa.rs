//! fio's NUMA options: `numa_cpu_nodes` (the job's thread runs on the CPUs
//! of these nodes) and `numa_mem_policy` (where its memory, the I/O
//! buffers first, comes from). The runner carries them out with
//! sched_setaffinity, set_mempolicy and mbind; a node the machine does not
//! have is an error when the job starts, not when it is parsed, so a job
//! file meant for a larger machine parses anywhere.

use serde::{Deserialize, Serialize};

/// A set of NUMA nodes: numbers, or `all` of the machine's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeList {
    All,
    Nodes(Vec<u32>),
}

impl NodeList {
    /// fio's spelling: `all`, or numbers and ranges (`0-1,3`).
    pub fn fio_text(&self) -> String {
        match self {
            NodeList::All => "all".to_string(),
            NodeList::Nodes(nodes) => ranges_text(nodes),
        }
    }
}

/// Sorted numbers as fio writes CPU and node lists: runs as ranges, `0-3,6`.
pub fn ranges_text(ids: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(match i == j {
            true => ids[i].to_string(),
            false => format!("{}-{}", ids[i], ids[j]),
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The kernel's memory policies, by fio's names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemMode {
    /// The thread's default: the node it runs on, with fallback.
    Default,
    /// One node first, others when it is full.
    Prefer,
    /// Only these nodes.
    Bind,
    /// Pages spread over these nodes in turn.
    Interleave,
    /// The node the allocating CPU is on.
    Local,
}

impl MemMode {
    pub const FIO_NAMES: [&'static str; 5] = ["default", "prefer", "bind", "interleave", "local"];

    pub fn parse(name: &str) -> Option<MemMode> {
        Some(match name {
            "default" => MemMode::Default,
            "prefer" => MemMode::Prefer,
            "bind" => MemMode::Bind,
            "interleave" => MemMode::Interleave,
            "local" => MemMode::Local,
            _ => return None,
        })
    }

    pub fn fio_name(self) -> &'static str {
        Self::FIO_NAMES[self as usize]
    }

    /// The kernel's `MPOL_*` number (`<linux/mempolicy.h>`).
    pub fn mpol(self) -> i32 {
        match self {
            MemMode::Default => 0,
            MemMode::Prefer => 1,
            MemMode::Bind => 2,
            MemMode::Interleave => 3,
            MemMode::Local => 4,
        }
    }
}

/// `numa_mem_policy=MODE[:NODES]`: `nodes` is `None` for `default` and
/// `local`, one node for `prefer`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemPolicy {
    pub mode: MemMode,
    pub nodes: Option<NodeList>,
}

impl MemPolicy {
    pub fn fio_text(&self) -> String {
        match &self.nodes {
            Some(n) => format!("{}:{}", self.mode.fio_name(), n.fio_text()),
            None => self.mode.fio_name().to_string(),
        }
    }
}

/// A job's NUMA placement; the default is none (the kernel's own).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumaSpec {
    pub cpu_nodes: Option<NodeList>,
    pub mem_policy: Option<MemPolicy>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lists_are_written_as_fio_reads_them() {
        assert_eq!(NodeList::Nodes(vec![0, 1, 2, 5]).fio_text(), "0-2,5");
        assert_eq!(NodeList::All.fio_text(), "all");
        let p = MemPolicy {
            mode: MemMode::Interleave,
            nodes: Some(NodeList::Nodes(vec![0, 1])),
        };
        assert_eq!(p.fio_text(), "interleave:0-1");
        assert_eq!(MemMode::parse("local").map(MemMode::mpol), Some(4));
    }
}
