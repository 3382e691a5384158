//! JSON values as block YAML, for `kube manifests`: what GitOps
//! repositories hold and `kubectl apply -f` reads. Strings are written in
//! JSON's double-quoted form, which is valid YAML for every string (no
//! guessing whether `yes`, `0755` or `1e3` would be read as another type);
//! keys that are plain identifiers are left bare.

use serde_json::Value;

/// The documents, separated by `---`.
pub fn documents(values: &[Value]) -> String {
    let mut out = String::new();
    for v in values {
        out.push_str("---\n");
        block(v, 0, &mut out);
    }
    out
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => Value::String(s.clone()).to_string(),
        Value::Object(m) if m.is_empty() => "{}".into(),
        Value::Array(a) if a.is_empty() => "[]".into(),
        other => other.to_string(),
    }
}

fn is_block(v: &Value) -> bool {
    matches!(v, Value::Object(m) if !m.is_empty()) || matches!(v, Value::Array(a) if !a.is_empty())
}

fn key(k: &str) -> String {
    let bare = !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
        && k.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    if bare {
        k.to_string()
    } else {
        Value::String(k.to_string()).to_string()
    }
}

/// Writes `v` (an object or array) at `indent` spaces.
fn block(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, val) in m {
                if is_block(val) {
                    out.push_str(&format!("{pad}{}:\n", key(k)));
                    let inner = if val.is_array() { indent } else { indent + 2 };
                    block(val, inner, out);
                } else {
                    out.push_str(&format!("{pad}{}: {}\n", key(k), scalar(val)));
                }
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for item in a {
                if is_block(item) {
                    // The first line of the item follows "- ", the rest align with it.
                    let mut inner = String::new();
                    block(item, indent + 2, &mut inner);
                    let rest = inner.get(indent + 2..).unwrap_or_default();
                    out.push_str(&format!("{pad}- {rest}"));
                } else {
                    out.push_str(&format!("{pad}- {}\n", scalar(item)));
                }
            }
        }
        other => out.push_str(&format!("{pad}{}\n", scalar(other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_objects_and_lists_are_block_yaml() {
        let v = json!({
            "kind": "Job",
            "metadata": { "name": "a", "labels": { "app.kubernetes.io/managed-by": "diskbench" } },
            "spec": { "args": ["run", "--label=x=$(NODE_NAME)"], "empty": {}, "n": 3,
                      "list": [{ "name": "data", "mountPath": "/data" }, [1, 2]] },
        });
        let text = documents(&[v]);
        assert_eq!(
            text,
            "---\nkind: \"Job\"\nmetadata:\n  name: \"a\"\n  labels:\n    \
             app.kubernetes.io/managed-by: \"diskbench\"\nspec:\n  args:\n  - \"run\"\n  \
             - \"--label=x=$(NODE_NAME)\"\n  empty: {}\n  n: 3\n  list:\n  - name: \"data\"\n    \
             mountPath: \"/data\"\n  - - 1\n    - 2\n"
        );
    }

    #[test]
    fn strings_that_look_like_other_types_stay_strings() {
        let text = documents(&[json!({ "a": "yes", "b": "0755", "c": "line\nbreak" })]);
        assert!(text.contains("a: \"yes\""), "{text}");
        assert!(text.contains("b: \"0755\""), "{text}");
        assert!(text.contains("c: \"line\\nbreak\""), "{text}");
    }
}
