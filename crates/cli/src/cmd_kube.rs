//! `diskbench kube`: the measuring core, the history and the reports, run
//! as Kubernetes Jobs, one pod per PersistentVolumeClaim, for every
//! StorageClass a team might buy.
//!
//! - `kube run` creates the PVCs and Jobs, follows each pod (pending,
//!   binding, starting, running, done), collects each pod's runs from its
//!   log, saves them with the labels `storage_class`, `provisioner`,
//!   `node`, `pvc_size`, `pod` and `kube_run`, prints each pod's figures
//!   and the comparison across classes, and deletes what it made.
//! - `kube manifests` prints the same objects as YAML for GitOps, and
//!   `kube collect` gathers the results of Jobs applied that way.
//! - `kube cleanup` removes what a killed run left, found by diskbench's
//!   labels, so nothing it did not make is ever touched.
//! - `kube image` writes an OCI archive of this very binary for clusters
//!   that cannot pull one.
//! - `kube pod` (hidden) is what runs inside each pod: the measuring
//!   command, then its runs printed for the collector.
//!
//! The cluster side (objects, API calls, the image) is the `cluster`
//! crate; this module decides what to run and what to do with the results.

mod agent;
mod collect;
mod run;
mod watch;
mod workload;

use crate::outcome::Exit;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Args)]
pub struct KubeArgs {
    #[command(subcommand)]
    command: KubeCommand,
}

#[derive(Subcommand)]
enum KubeCommand {
    /// Benchmark StorageClasses: PVCs and Jobs per class, results in the history, a comparison
    Run(run::RunArgs),
    /// Print a run's objects as YAML (GitOps); `kube collect RUN` gathers their results
    Manifests(run::ManifestArgs),
    /// Gather the results of a run's finished pods into the history (runs applied as manifests)
    Collect(collect::CollectArgs),
    /// Remove the objects that killed runs left behind (found by diskbench's labels only)
    Cleanup(CleanupArgs),
    /// Write an OCI image archive of this diskbench, for clusters that cannot pull it
    Image(ImageArgs),
    /// Inside a pod: run a diskbench command, then print its runs for the collector
    #[command(hide = true)]
    Pod(agent::PodArgs),
}

/// Which cluster and namespace, as kubectl's `--context` and `--namespace`.
#[derive(Args, Clone, Debug, Default)]
pub struct ClusterArgs {
    /// The kubeconfig context to use [default: its current context]
    #[arg(long)]
    context: Option<String>,
    /// The namespace of the objects [default: the context's, else "default"]
    #[arg(long, short = 'n')]
    namespace: Option<String>,
}

impl ClusterArgs {
    /// Connects, or says why not (exit 1: the cluster, not the command line, is at fault).
    fn connect(&self, command: &str) -> Result<cluster::Cluster, Exit> {
        cluster::Cluster::connect(self.context.as_deref(), self.namespace.as_deref()).map_err(|e| {
            eprintln!("diskbench kube {command}: {e}");
            if let Some(ctx) = &self.context {
                let known = cluster::Cluster::contexts();
                if !known.contains(ctx) && !known.is_empty() {
                    eprintln!("the kubeconfig's contexts are: {}", known.join(", "));
                }
            }
            Exit::Runtime
        })
    }
}

#[derive(Args)]
pub struct CleanupArgs {
    /// Only this run's objects (its id, as `kube run` printed it) [default: every diskbench run's]
    #[arg(long)]
    run: Option<String>,
    /// List what would be removed, remove nothing
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    cluster: ClusterArgs,
}

#[derive(Args)]
pub struct ImageArgs {
    /// Where to write the archive
    #[arg(long, short = 'o', default_value = "diskbench-image.tar")]
    output: PathBuf,
    /// The image's name [default: localhost/diskbench:VERSION-DIGEST, what `kube run` uses]
    #[arg(long)]
    name: Option<String>,
}

pub fn run(args: KubeArgs) -> anyhow::Result<Exit> {
    match args.command {
        KubeCommand::Run(a) => run::run(a),
        KubeCommand::Manifests(a) => run::manifests(a),
        KubeCommand::Collect(a) => collect::run(a),
        KubeCommand::Cleanup(a) => cleanup(a),
        KubeCommand::Image(a) => image(a),
        KubeCommand::Pod(a) => agent::run(a),
    }
}

/// How long a cleanup waits for pods to terminate and PVCs to go.
const GONE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

fn cleanup(args: CleanupArgs) -> anyhow::Result<Exit> {
    let cluster = match args.cluster.connect("cleanup") {
        Ok(c) => c,
        Err(exit) => return Ok(exit),
    };
    let found = cluster.owned(args.run.as_deref())?;
    if found.is_empty() {
        println!(
            "nothing of diskbench's in namespace {} (objects labelled {})",
            cluster.namespace,
            cluster::objects::selector(args.run.as_deref())
        );
        return Ok(Exit::Ok);
    }
    for o in &found {
        println!(
            "{} {o} (run {})",
            if args.dry_run {
                "would remove"
            } else {
                "removing"
            },
            o.run_id
        );
    }
    if args.dry_run {
        return Ok(Exit::Ok);
    }
    cluster.delete_owned(args.run.as_deref())?;
    let left = cluster.wait_gone(args.run.as_deref(), GONE_TIMEOUT, &[])?;
    if left.is_empty() {
        println!(
            "removed {} objects from namespace {}",
            found.len(),
            cluster.namespace
        );
        Ok(Exit::Ok)
    } else {
        let names: Vec<String> = left.iter().map(ToString::to_string).collect();
        eprintln!(
            "diskbench kube cleanup: still there after {} s: {} (a finalizer or a stuck node holds them; \
             run cleanup again later)",
            GONE_TIMEOUT.as_secs(),
            names.join(", ")
        );
        Ok(Exit::Runtime)
    }
}

fn image(args: ImageArgs) -> anyhow::Result<Exit> {
    let image = cluster::image::of_this_process(env!("CARGO_PKG_VERSION"), args.name.as_deref())?;
    let bytes = image.write_to(&args.output)?;
    let paths = image.paths();
    println!(
        "wrote {} ({:.1} MB): image {}, {}",
        args.output.display(),
        bytes as f64 / 1e6,
        image.name,
        if image.statically_linked {
            "a static binary".to_string()
        } else {
            format!("the binary with what it loads: {}", paths[1..].join(", "))
        }
    );
    println!(
        "load it on each node: ctr -n k8s.io images import {} (containerd), or push it: \
         skopeo copy oci-archive:{} docker://REGISTRY/diskbench:TAG",
        args.output.display(),
        args.output.display()
    );
    println!(
        "then: diskbench kube run --image {} --pull-policy Never ...",
        image.name
    );
    Ok(Exit::Ok)
}
