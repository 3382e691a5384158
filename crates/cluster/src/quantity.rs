//! Kubernetes quantities of bytes, as a PVC's request takes them: a
//! number with an SI (`k`, `M`, `G`, `T`, `P`) or binary (`Ki` ... `Pi`)
//! suffix, or none.

/// A size Kubernetes would not take.
#[derive(Debug, thiserror::Error)]
#[error("'{0}' is not a size Kubernetes takes: use a quantity such as 2Gi, 500Mi or 100G")]
pub struct NotAQuantity(pub String);

/// A Kubernetes quantity of bytes (`2Gi`, `500M`, `1073741824`): the text
/// as given, for the PVC, and its bytes.
pub fn parse_quantity(text: &str) -> Result<(String, u64), NotAQuantity> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(split);
    let scale: f64 = match suffix {
        "" => 1.0,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        _ => f64::NAN,
    };
    match number.parse::<f64>() {
        Ok(n) if n > 0.0 && scale.is_finite() => Ok((text.to_string(), (n * scale) as u64)),
        _ => Err(NotAQuantity(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_are_read_as_kubernetes_writes_them() {
        assert_eq!(parse_quantity("2Gi").unwrap().1, 2 << 30);
        assert_eq!(parse_quantity("500M").unwrap().1, 500_000_000);
        assert_eq!(parse_quantity("1.5Gi").unwrap().1, 3 << 29);
        assert_eq!(parse_quantity("4096").unwrap().1, 4096);
        for bad in ["2g", "2GB", "-1Gi", "Gi", "0"] {
            let e = parse_quantity(bad).unwrap_err().to_string();
            assert!(e.contains("2Gi"), "{bad}: {e}");
        }
    }
}
