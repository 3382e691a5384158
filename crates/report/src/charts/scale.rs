//! Axes: mapping values to pixels, linear or logarithmic, with "nice" tick
//! values (1, 2, 5 × 10^k; decades on a log axis) and tick labels people
//! read at a glance (`20k`, `1.5M`, `250 us`, `10 ms`).

/// How values map to pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScaleKind {
    Linear,
    /// Base 10; values at or below 0 are drawn at the axis minimum.
    Log,
}

/// A value range mapped onto a pixel range (which may run backwards, as y does).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scale {
    pub kind: ScaleKind,
    pub lo: f64,
    pub hi: f64,
    pub px_lo: f64,
    pub px_hi: f64,
}

impl Scale {
    /// A linear scale from 0 (bars and rates start at zero) to a nice value above `max`.
    pub fn linear_from_zero(max: f64, px_lo: f64, px_hi: f64) -> Scale {
        let max = if max.is_finite() && max > 0.0 {
            max
        } else {
            1.0
        };
        let step = nice_step(max, 5);
        Scale {
            kind: ScaleKind::Linear,
            lo: 0.0,
            hi: (max / step).ceil() * step,
            px_lo,
            px_hi,
        }
    }

    /// A linear scale over exactly `lo..hi` (an x axis of run numbers or seconds).
    pub fn linear(lo: f64, hi: f64, px_lo: f64, px_hi: f64) -> Scale {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo - 0.5, lo + 0.5)
        };
        Scale {
            kind: ScaleKind::Linear,
            lo,
            hi,
            px_lo,
            px_hi,
        }
    }

    /// A log scale over whole decades covering the positive `values`.
    pub fn log_decades(values: impl IntoIterator<Item = f64>, px_lo: f64, px_hi: f64) -> Scale {
        let (mut min, mut max) = (f64::INFINITY, 0.0f64);
        for v in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
            min = min.min(v);
            max = max.max(v);
        }
        if !min.is_finite() {
            (min, max) = (1.0, 10.0);
        }
        let lo = 10f64.powf(min.log10().floor());
        let mut hi = 10f64.powf(max.log10().ceil());
        if hi <= lo {
            hi = lo * 10.0;
        }
        Scale {
            kind: ScaleKind::Log,
            lo,
            hi,
            px_lo,
            px_hi,
        }
    }

    fn unit(&self, v: f64) -> f64 {
        match self.kind {
            ScaleKind::Linear => (v - self.lo) / (self.hi - self.lo),
            ScaleKind::Log => {
                let v = if v > self.lo { v } else { self.lo };
                (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
            }
        }
    }

    /// The pixel of `v`, clamped to the axis (a value off the axis sits on its edge).
    pub fn px(&self, v: f64) -> f64 {
        let u = if v.is_finite() { self.unit(v) } else { 0.0 };
        self.px_lo + u.clamp(0.0, 1.0) * (self.px_hi - self.px_lo)
    }

    /// Tick values: nice steps (linear) or decades, with 2 and 5 when few (log).
    pub fn ticks(&self) -> Vec<f64> {
        match self.kind {
            ScaleKind::Linear => {
                let step = nice_step(self.hi - self.lo, 5);
                let first = (self.lo / step).ceil() as i64;
                let last = (self.hi / step + 1e-9).floor() as i64;
                (first..=last).map(|i| i as f64 * step).collect()
            }
            ScaleKind::Log => {
                let (a, b) = (
                    self.lo.log10().round() as i32,
                    self.hi.log10().round() as i32,
                );
                let minor: &[f64] = if b - a <= 2 { &[1.0, 2.0, 5.0] } else { &[1.0] };
                let mut ticks = Vec::new();
                for e in a..=b {
                    for m in minor {
                        let t = m * 10f64.powi(e);
                        if t <= self.hi * (1.0 + 1e-9) {
                            ticks.push(t);
                        }
                    }
                }
                ticks
            }
        }
    }
}

/// A step of 1, 2 or 5 × 10^k giving about `count` steps over `range`.
pub fn nice_step(range: f64, count: usize) -> f64 {
    let raw = if range > 0.0 && range.is_finite() {
        range / count.max(1) as f64
    } else {
        1.0
    };
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// A compact number: `0`, `0.5`, `250`, `20k`, `1.5M`, `2G`.
pub fn compact(v: f64) -> String {
    let a = v.abs();
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e4 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    format!("{}{suffix}", trim_number(x))
}

/// Up to 3 significant digits, trailing zeros dropped: `1.5`, `0.02`, `120`.
fn trim_number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".into();
    }
    let decimals = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A latency given in microseconds, in the unit it reads best in: `500 ns`, `250 us`, `10 ms`, `1.5 s`.
pub fn latency_us(us: f64) -> String {
    let a = us.abs();
    if a == 0.0 {
        "0".into()
    } else if a < 1.0 {
        format!("{} ns", trim_number(us * 1e3))
    } else if a < 1e3 {
        format!("{} us", trim_number(us))
    } else if a < 1e6 {
        format!("{} ms", trim_number(us / 1e3))
    } else {
        format!("{} s", trim_number(us / 1e6))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_ticks() {
        let s = Scale::linear_from_zero(3634.0, 0.0, 100.0);
        assert_eq!(s.hi, 4000.0);
        assert_eq!(s.ticks(), [0.0, 1000.0, 2000.0, 3000.0, 4000.0]);
        assert_eq!(s.px(2000.0), 50.0);
        let l = Scale::log_decades([121.0, 28484.0], 0.0, 300.0);
        assert_eq!((l.lo, l.hi), (100.0, 100_000.0));
        assert_eq!(l.ticks(), [100.0, 1000.0, 10_000.0, 100_000.0]);
        assert!((l.px(1000.0) - 100.0).abs() < 1e-9);
        assert_eq!(l.px(0.0), 0.0, "zero sits on the axis");
        let few = Scale::log_decades([3.0, 40.0], 0.0, 1.0);
        assert_eq!(few.ticks(), [1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0]);
        assert_eq!(Scale::log_decades([], 0.0, 1.0).lo, 1.0);
    }

    #[test]
    fn labels() {
        assert_eq!(compact(20_000.0), "20k");
        assert_eq!(compact(1_500_000.0), "1.5M");
        assert_eq!(compact(0.5), "0.5");
        assert_eq!(compact(250.0), "250");
        assert_eq!(latency_us(250.0), "250 us");
        assert_eq!(latency_us(10_000.0), "10 ms");
        assert_eq!(latency_us(0.5), "500 ns");
        assert_eq!(latency_us(1_500_000.0), "1.5 s");
    }
}
