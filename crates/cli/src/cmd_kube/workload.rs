//! What each pod of a `kube run` (or of `kube manifests`) runs, on what
//! volume and from which image: the options the two share, turned into a
//! [`cluster::objects::RunPlan`].

use cluster::objects::{RunPlan, JOB_DIR, JOB_FILE};
use std::path::PathBuf;

#[derive(clap::Args, Clone, Debug)]
pub struct WorkloadArgs {
    /// The StorageClasses to measure, comma-separated [default: every class, after confirming]
    #[arg(long, value_delimiter = ',', value_name = "CLASS,...")]
    pub storage_class: Vec<String>,
    /// Pods per class, each on its own PVC, all at once (the aggregate and each pod are reported)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub pods: u32,
    /// The size of each PVC, as Kubernetes writes it (2Gi, 500Gi, 1Ti)
    #[arg(long, default_value = "2Gi", value_parser = cluster::quantity::parse_quantity)]
    pub size: (String, u64),
    /// Run this named profile in each pod instead of the default suite (see `diskbench profiles`)
    #[arg(long, conflicts_with = "job")]
    pub profile: Option<String>,
    /// Run this fio job file in each pod (sent as a ConfigMap; its files go on the PVC)
    #[arg(long, value_name = "FILE")]
    pub job: Option<PathBuf>,
    /// The suite's short form in each pod (about 10 s)
    #[arg(long, conflicts_with = "job")]
    pub quick: bool,
    /// Check each pod's volume for a workload's published requirements instead (etcd,
    /// postgres, ...: `diskbench fit` lists them); a verdict per pod and per class
    #[arg(long, value_name = "WORKLOAD", value_parser = known_workload,
          conflicts_with_all = ["job", "profile", "quick", "file_size"])]
    pub fit: Option<String>,
    /// Each test's longest measured time in the pods' suite (as `run --runtime`)
    #[arg(long, conflicts_with = "job")]
    pub runtime: Option<String>,
    /// The suite's test file size [default: 1g (256m with --quick), at most half the PVC]
    #[arg(long, conflicts_with = "job")]
    pub file_size: Option<String>,
    /// The image the pods run [default: localhost/diskbench:VERSION-DIGEST, see `kube image`]
    #[arg(long)]
    pub image: Option<String>,
    /// The pods' imagePullPolicy: IfNotPresent, Always, or Never (an image imported on the nodes)
    #[arg(long, default_value = "IfNotPresent", value_parser = ["IfNotPresent", "Always", "Never"])]
    pub pull_policy: String,
    /// Pods on the node's network: for clusters without a pod network (a bare kubelet)
    #[arg(long)]
    pub host_network: bool,
    /// Seconds a finished Job (and its PVC) stays for `kube collect` before Kubernetes deletes it
    #[arg(long, default_value_t = 3600)]
    pub ttl: u32,
    /// Another label for every run, e.g. --label cluster=prod (repeatable)
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = crate::args::parse_label)]
    pub labels: Vec<(String, String)>,
}

/// `--fit`'s workload, refused here (once, not in every pod) when the
/// catalogue has none of that name.
fn known_workload(name: &str) -> Result<String, String> {
    fit::catalogue::find(name)
        .map(|w| w.name.clone())
        .map_err(|e| e.to_string())
}

/// The suite's default test file for a run with `--quick` or not.
fn default_file_bytes(quick: bool) -> u64 {
    if quick {
        256 << 20
    } else {
        1 << 30
    }
}

impl WorkloadArgs {
    /// The diskbench command each pod runs.
    fn command(&self) -> Vec<String> {
        if self.job.is_some() {
            return vec!["fio".into(), format!("{JOB_DIR}/{JOB_FILE}")];
        }
        if let Some(workload) = &self.fit {
            let mut cmd = vec!["fit".to_string(), workload.clone()];
            if let Some(r) = &self.runtime {
                cmd.push(format!("--runtime={r}"));
            }
            return cmd;
        }
        let mut cmd = vec!["run".to_string()];
        if let Some(p) = &self.profile {
            cmd.push(format!("--profile={p}"));
        }
        if self.quick {
            cmd.push("--quick".into());
        }
        if let Some(r) = &self.runtime {
            cmd.push(format!("--runtime={r}"));
        }
        // A test file that fits the volume with room for the filesystem.
        let half = self.size.1 / 2;
        match &self.file_size {
            Some(s) => cmd.push(format!("--size={s}")),
            None if half < default_file_bytes(self.quick) => {
                cmd.push(format!("--size={}k", half / 1024))
            }
            None => {}
        }
        cmd
    }

    /// The job file's text, or a usage error naming the file.
    pub fn job_text(&self) -> Result<Option<String>, String> {
        let Some(path) = &self.job else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the job file {}: {e}", path.display()))?;
        // The pods would refuse it one by one: refuse it here, once.
        let args = vec![path.display().to_string()];
        fio::parse_args(args).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(Some(text))
    }

    /// `db`: a shared history the pods save in; its password goes in a
    /// Secret, the URL without it in the pods' arguments.
    pub fn plan(
        &self,
        run_id: String,
        image: String,
        job_file: Option<String>,
        db: Option<&str>,
    ) -> Result<RunPlan, store::StoreError> {
        let mut command = self.command();
        for (k, v) in &self.labels {
            command.push(format!("--label={k}={v}"));
        }
        let db_password = match db {
            Some(url) => store::PgTarget::parse(url)?.password().map(String::from),
            None => None,
        };
        Ok(RunPlan {
            run_id,
            image,
            pull_policy: self.pull_policy.clone(),
            pvc_size: self.size.0.clone(),
            host_network: self.host_network,
            ttl_seconds: self.ttl,
            job_file,
            agent_args: db
                .map(|d| vec![format!("--db={}", store::redact_url(d))])
                .unwrap_or_default(),
            db_password,
            command,
            host_path: None,
        })
    }

    /// The image the pods run: `--image`, else this binary's own name.
    pub fn image(&self) -> anyhow::Result<String> {
        match &self.image {
            Some(i) => Ok(i.clone()),
            None => Ok(cluster::image::default_name(env!("CARGO_PKG_VERSION"))?),
        }
    }
}
