//! What went wrong talking to a cluster, in words that say what to do:
//! an unreachable server names its URL and the network's answer; a
//! rejected credential says to renew it; a refused verb names the
//! resource and the Role diskbench needs ([`ROLE`]); anything else the
//! cluster said (a quota exceeded, a size a class cannot provide) is
//! passed on as the cluster said it.

use std::error::Error as _;

/// The namespaced Role a user of `diskbench kube` needs, and read access
/// to what is cluster-wide: StorageClasses, nodes (`--per-node`) and the
/// kubelets' leases (a node gone silent is told from them; without it,
/// only once the node is marked NotReady).
pub const ROLE: &str = "\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: diskbench}
rules:
- apiGroups: [\"\"]
  resources: [persistentvolumeclaims, configmaps, secrets]
  verbs: [create, get, list, delete]
- apiGroups: [batch]
  resources: [jobs]
  verbs: [create, get, list, patch, delete]
- apiGroups: [\"\"]
  resources: [pods, pods/log, events]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: diskbench-storageclasses}
rules:
- apiGroups: [storage.k8s.io]
  resources: [storageclasses]
  verbs: [get, list]
- apiGroups: [\"\"]
  resources: [nodes]
  verbs: [get, list]
- apiGroups: [coordination.k8s.io]
  resources: [leases]
  verbs: [get, list]
";

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("{0}")]
    Config(String),
    #[error("cannot reach the cluster at {server}: {cause}; check the kubeconfig's server and that the cluster is up (kubectl cluster-info)")]
    Unreachable { server: String, cause: String },
    #[error("the cluster at {server} rejected the credential ({message}): it may have expired; renew it (log in again, or refresh the kubeconfig)")]
    Unauthorized { server: String, message: String },
    #[error("not allowed to {verb} {resource} ({message}); diskbench needs this Role in the namespace (and read access to storageclasses):\n{role}", role = ROLE)]
    Forbidden {
        verb: String,
        resource: String,
        message: String,
    },
    #[error("the cluster refused to {verb} {resource}: {message}")]
    Refused {
        verb: String,
        resource: String,
        message: String,
    },
}

/// The error of one call: `verb` and `resource` as RBAC names them.
pub fn api_error(server: &str, verb: &str, resource: &str, e: kube::Error) -> ClusterError {
    let (verb, resource) = (verb.to_string(), resource.to_string());
    match e {
        kube::Error::Api(status) => {
            let message = status.message.clone();
            match status.code {
                401 => ClusterError::Unauthorized {
                    server: server.into(),
                    message,
                },
                // A quota is refused with 403 too, but no Role would help.
                403 if !message.contains("exceeded quota") => ClusterError::Forbidden {
                    verb,
                    resource,
                    message,
                },
                _ => ClusterError::Refused {
                    verb,
                    resource,
                    message,
                },
            }
        }
        kube::Error::Auth(e) => ClusterError::Unauthorized {
            server: server.into(),
            message: e.to_string(),
        },
        other => ClusterError::Unreachable {
            server: server.into(),
            cause: chain(&other),
        },
    }
}

/// An error with its causes, "a: b: c": the root cause (connection
/// refused, certificate unknown) is what the user needs.
fn chain(e: &kube::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}
