//! What an imported file must hold before any of it is converted: figures
//! that are numbers not below 0, and the fields without which a run would
//! be saved wrong (a missing date becomes 1970-01-01, a missing count 0).
//! The converters read leniently (a missing optional figure is 0); these
//! checks keep that leniency from turning junk into a run. Each error names
//! the field by its path in the file (`read.iops`) and says what is wrong.

use crate::Problem;
use serde_json::Value;

/// What a value is, for "is ..., not a number".
fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("{b} (a boolean)"),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("{s:?} (a string)"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// `path.key`, or `key` at the top.
fn join(path: &str, key: &str) -> String {
    match path {
        "" => key.to_string(),
        _ => format!("{path}.{key}"),
    }
}

/// `v` (found at `path`) is a finite number not below 0.
pub fn figure(v: &Value, path: &str) -> Result<f64, Problem> {
    match v.as_f64() {
        Some(f) if f.is_finite() && f >= 0.0 => Ok(f),
        Some(_) => Err(format!(
            "{path} is {}: a figure cannot be negative; give the file as the tool wrote it",
            kind(v)
        )
        .into()),
        None => Err(format!(
            "{path} is {}, not a number: the tool writes every figure as a number; \
             give the file as the tool wrote it",
            kind(v)
        )
        .into()),
    }
}

/// Each of `keys` that `v` has is a [`figure`]; absent ones are fine.
pub fn figures(v: &Value, path: &str, keys: &[&str]) -> Result<(), Problem> {
    for key in keys {
        if let Some(x) = v.get(key) {
            figure(x, &join(path, key))?;
        }
    }
    Ok(())
}

/// Every number under `v` (in nested objects and lists) is a [`figure`];
/// anything else but an object or a list is the wrong type.
pub fn all_figures(v: &Value, path: &str) -> Result<(), Problem> {
    match v {
        Value::Object(m) => m
            .iter()
            .try_for_each(|(k, x)| all_figures(x, &join(path, k))),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| all_figures(x, &format!("{path}[{i}]"))),
        _ => figure(v, path).map(drop),
    }
}

/// `v[key]` is present; `why` says what it is for.
pub fn required<'a>(v: &'a Value, path: &str, key: &str, why: &str) -> Result<&'a Value, Problem> {
    v.get(key)
        .ok_or_else(|| format!("{} is missing: {why}", join(path, key)).into())
}

/// `v[key]`, which must be an object when present.
pub fn object<'a>(v: &'a Value, path: &str, key: &str) -> Result<Option<&'a Value>, Problem> {
    match v.get(key) {
        None => Ok(None),
        Some(x) if x.is_object() => Ok(Some(x)),
        Some(x) => Err(format!(
            "{} is {}, not an object; give the file as the tool wrote it",
            join(path, key),
            kind(x)
        )
        .into()),
    }
}

/// `v[key]`, which must be a string when present.
pub fn string<'a>(v: &'a Value, path: &str, key: &str) -> Result<Option<&'a str>, Problem> {
    match v.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(x) => Err(format!(
            "{} is {}, not a string; give the file as the tool wrote it",
            join(path, key),
            kind(x)
        )
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_error_names_the_field_and_the_reason() {
        let v = json!({"read": {"iops": "abc", "n": [1, -2]}, "t": true});
        let e = all_figures(&v["read"], "read").unwrap_err().to_string();
        assert_eq!(
            e,
            "read.iops is \"abc\" (a string), not a number: the tool writes every figure \
             as a number; give the file as the tool wrote it"
        );
        let e = all_figures(&json!({"n": [1, -2]}), "read")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("read.n[1] is -2: a figure cannot be negative"),
            "{e}"
        );
        let e = figures(&v, "", &["t"]).unwrap_err().to_string();
        assert!(e.starts_with("t is true (a boolean), not a number"), "{e}");
        assert!(figures(&v, "", &["absent"]).is_ok());
        let e = required(&v, "jobs[0]", "jobname", "every job has a name")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "jobs[0].jobname is missing: every job has a name");
        assert!(object(&v, "", "t")
            .unwrap_err()
            .to_string()
            .contains("t is true (a boolean), not an object"));
        assert!(string(&v, "", "read")
            .unwrap_err()
            .to_string()
            .contains("read is an object, not a string"));
    }
}
