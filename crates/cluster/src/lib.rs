//! diskbench on Kubernetes: the objects of a run (a Job and a PVC per pod,
//! a ConfigMap for a fio job file), the calls that create, watch, collect
//! and delete them, their YAML for GitOps, and an OCI image of diskbench
//! itself for clusters that cannot pull one.
//!
//! It knows Kubernetes and nothing of measuring: what a pod runs is a
//! diskbench command line, and what comes back is the pod's log; the CLI
//! (`crates/cli/src/cmd_kube`) turns those into runs in the history.

mod client;
mod error;
pub mod events;
pub mod image;
pub mod nodes;
pub mod objects;
pub mod pod_state;
pub mod quantity;
pub mod results;
pub mod yaml;

pub use client::{ClassInfo, Cluster, Owned, PodInfo};
pub use error::{ClusterError, ROLE};
pub use nodes::NodeInfo;
