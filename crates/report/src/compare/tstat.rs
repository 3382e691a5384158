//! Student's t for the 95% confidence interval of a mean, without a
//! statistics library: a table where the distribution changes fast and a
//! series where it does not.
//!
//! - 1 to 30 degrees of freedom: the two-sided 95% quantile t(0.975, df)
//!   from the standard tables, to 4 decimals;
//! - above 30: the Cornish-Fisher expansion of t around the normal
//!   quantile z = 1.959964 (Abramowitz & Stegun 26.7.5, three terms), whose
//!   error there is below 1e-4 (t(30) = 2.0423 by both), so every value is
//!   right to the 3 digits a confidence interval is read with.

/// t(0.975, df) for df = 1..=30.
const TABLE: [f64; 30] = [
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010,
    2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687,
    2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
];

/// The normal distribution's 97.5% quantile.
const Z_975: f64 = 1.959_963_984_540_054;

/// Student's t(0.975, df): the half-width of a 95% interval is
/// `t · sd / √n` with `df = n - 1`. `df = 0` (one sample) has no interval:
/// it returns 0 so that the interval collapses to the mean.
pub fn student_t_975(df: usize) -> f64 {
    match df {
        0 => 0.0,
        1..=30 => TABLE[df - 1],
        _ => cornish_fisher(df as f64),
    }
}

fn cornish_fisher(df: f64) -> f64 {
    let z = Z_975;
    let (z3, z5, z7) = (z.powi(3), z.powi(5), z.powi(7));
    z + (z3 + z) / (4.0 * df)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df * df)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * df.powi(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_series_agree_with_published_values() {
        // Published two-sided 95% critical values.
        for (df, t) in [
            (1, 12.706),
            (2, 4.303),
            (9, 2.262),
            (30, 2.042),
            (40, 2.021),
            (60, 2.000),
            (120, 1.980),
            (1_000_000, 1.960),
        ] {
            let got = student_t_975(df);
            assert!((got - t).abs() < 6e-4, "df {df}: {got} vs {t}");
        }
        // The series continues the table without a jump.
        assert!((cornish_fisher(30.0) - TABLE[29]).abs() < 1e-4);
        assert_eq!(student_t_975(0), 0.0);
    }

    #[test]
    fn falls_monotonically() {
        let mut last = f64::INFINITY;
        for df in 1..500 {
            let t = student_t_975(df);
            assert!(t < last && t > Z_975, "df {df}: {t}");
            last = t;
        }
    }
}
