//! The live view's line: the last second's IOPS and MB/s, elapsed and
//! remaining time, and a sparkline of the last minutes, so a cliff is seen
//! as it comes. The binary draws it on stderr while a group runs.

use model::SeriesPoint;
use std::time::Duration;

/// The sparkline's width in characters, and the most seconds it covers.
const SPARK_WIDTH: usize = 30;
const SPARK_SECONDS: usize = 600;
const BAR_WIDTH: usize = 20;

/// The line for `label` (a group's name), `elapsed` of the `planned` time
/// (or of an open-ended group, with its `ios` so far), and its finished
/// `seconds` (all its jobs and clones added up):
/// `run 3/10 randread  [########------------]  12/30 s, 18 s left  3,634 IOPS  14.9 MB/s  ▇▇▇▇▃▁▁`
pub fn render(
    prefix: Option<&str>,
    label: &str,
    elapsed: Duration,
    planned: Option<Duration>,
    ios: u64,
    seconds: &[SeriesPoint],
) -> String {
    let elapsed = elapsed.as_secs_f64();
    let mut line = String::new();
    if let Some(prefix) = prefix {
        line.push_str(prefix);
        line.push(' ');
    }
    line.push_str(label);
    match planned {
        Some(total) => {
            let total = total.as_secs_f64().max(0.001);
            let done = (elapsed / total).min(1.0);
            let filled = (done * BAR_WIDTH as f64) as usize;
            line.push_str(&format!(
                "  [{}{}] {:.0}/{:.0} s, {:.0} s left",
                "#".repeat(filled),
                "-".repeat(BAR_WIDTH - filled),
                elapsed.min(total),
                total,
                (total - elapsed).max(0.0)
            ));
        }
        None => line.push_str(&format!("  {elapsed:.0} s, {} I/Os", ios)),
    }
    let finished: Vec<&SeriesPoint> = seconds.iter().filter(|s| s.duration_ms > 0).collect();
    if let Some(last) = finished.last() {
        let secs = last.duration_ms as f64 / 1000.0;
        line.push_str(&format!(
            "  {:.0} IOPS  {:.1} MB/s",
            last.ios() as f64 / secs,
            last.bytes() as f64 / secs / 1e6
        ));
    }
    let rates: Vec<f64> = finished
        .iter()
        .map(|s| s.ios() as f64 * 1000.0 / s.duration_ms as f64)
        .collect();
    if rates.len() >= 2 {
        line.push_str("  ");
        line.push_str(&sparkline(&rates));
    }
    line
}

/// The last [`SPARK_SECONDS`] of `rates`, at most [`SPARK_WIDTH`] characters
/// (each the mean of its seconds), scaled from 0 to the highest.
pub fn sparkline(rates: &[f64]) -> String {
    const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let recent = &rates[rates.len().saturating_sub(SPARK_SECONDS)..];
    let per_char = recent.len().div_ceil(SPARK_WIDTH).max(1);
    // Whole columns end at the latest second, so the newest column is full.
    let skip = recent.len() % per_char;
    let columns: Vec<f64> = recent[skip..]
        .chunks(per_char)
        .map(|c| c.iter().sum::<f64>() / c.len() as f64)
        .collect();
    let top = columns.iter().copied().fold(0.0, f64::max);
    columns
        .iter()
        .map(|&v| match top > 0.0 {
            true => LEVELS[((v / top) * 7.0).round().clamp(0.0, 7.0) as usize],
            false => LEVELS[0],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(iops: &[u64]) -> Vec<SeriesPoint> {
        iops.iter()
            .enumerate()
            .map(|(i, &n)| SeriesPoint {
                start_ms: i as u64 * 1000,
                duration_ms: 1000,
                read_ios: n,
                read_bytes: n * 4096,
                ..SeriesPoint::default()
            })
            .collect()
    }

    #[test]
    fn the_line_shows_rate_time_left_and_a_sparkline_of_the_cliff() {
        let s = seconds(&[2000, 2000, 2000, 500, 500]);
        let line = render(
            Some("run 3/10"),
            "randread",
            Duration::from_secs(12),
            Some(Duration::from_secs(30)),
            7000,
            &s,
        );
        assert!(line.starts_with("run 3/10 randread  [########"), "{line}");
        assert!(line.contains("12/30 s, 18 s left"), "{line}");
        assert!(line.contains("500 IOPS  2.0 MB/s"), "{line}");
        assert!(line.ends_with("███▃▃"), "{line}");
    }

    #[test]
    fn a_long_soak_is_folded_into_the_width() {
        let mut rates = vec![1000.0; 570];
        rates.extend([250.0; 30]);
        let line = sparkline(&rates);
        assert_eq!(line.chars().count(), SPARK_WIDTH);
        assert!(line.starts_with("████") && line.ends_with('▃'), "{line}");
        assert_eq!(sparkline(&[0.0, 0.0]), "▁▁");
    }
}
