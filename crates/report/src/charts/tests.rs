//! Every chart kind on known data: valid SVG (resvg parses it), the
//! expected marks, escaped text, and no panic on empty input.

use super::*;
use crate::compare::{compare, tests::record, Comparison, Metric};
use crate::demo;
use model::RunRecord;

fn by(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Parses like a strict SVG reader would (resvg/usvg is a real XML parser).
fn assert_valid(svg: &str) {
    let opt = resvg::usvg::Options::default();
    if let Err(e) = resvg::usvg::Tree::from_str(svg, &opt) {
        panic!("invalid SVG ({e}):\n{svg}");
    }
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart "));
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

fn wide_range() -> Vec<RunRecord> {
    vec![
        record(1, &[("disk", "hdd")], 120, 15.0, 28.0, 20_000),
        record(2, &[("disk", "hdd")], 122, 16.0, 27.0, 21_000),
        record(3, &[("disk", "nvme")], 300_000, 1614.0, 1577.0, 90),
    ]
}

#[test]
fn bars_are_sorted_best_first_with_error_bars() {
    let c = compare(&wide_range(), &by(&["disk"]));
    let svg = bar_chart(&c, Metric::Iops, false);
    assert_valid(&svg);
    // One bar per group, each with its tooltip.
    assert_eq!(count(&svg, "<rect x="), 2, "{svg}");
    assert!(svg.find(">nvme<").unwrap() < svg.find(">hdd<").unwrap());
    // hdd has two runs and a spread: an error bar (a line and two caps); nvme one run: none.
    assert_eq!(count(&svg, "stroke=\"#222222\""), 3);
    assert!(
        svg.contains("<title>disk=hdd: 121 ± 1 (mean ± sd of 2 runs; 95% CI"),
        "{svg}"
    );
    // Latency: lower is better, so the fast disk is on top too.
    let lat = bar_chart(&c, Metric::P99LatencyUs, false);
    assert!(lat.find(">nvme<").unwrap() < lat.find(">hdd<").unwrap());
    assert!(lat.contains("(lower is better)"));
}

#[test]
fn log_scale_spans_the_decades() {
    let c = compare(&wide_range(), &by(&["disk"]));
    let svg = bar_chart(&c, Metric::Iops, true);
    assert_valid(&svg);
    assert!(svg.contains("class=\"chart chart-bar-log\""));
    assert!(svg.contains("log scale"));
    for tick in [">100<", ">1000<", ">10k<", ">100k<", ">1M<"] {
        assert!(svg.contains(tick), "{tick} in {svg}");
    }
}

#[test]
fn text_is_escaped() {
    let nasty = [("disk", "<a&b \"q\">")];
    let runs = vec![
        record(1, &nasty, 100, 1.0, 1.0, 10),
        record(2, &nasty, 100, 1.0, 1.0, 10),
    ];
    let c = compare(&runs, &[]);
    for svg in [
        bar_chart(&c, Metric::Iops, false),
        percentile_chart(&runs, &[]),
        timeline_charts(&runs, &[])[0].1.clone(),
    ] {
        assert_valid(&svg);
        assert!(svg.contains("&lt;a&amp;b &quot;q&quot;&gt;"), "{svg}");
        assert!(!svg.contains("<a&b"));
    }
    assert_eq!(escape("\u{1}x'"), "\u{fffd}x&#39;");
}

#[test]
fn timeline_has_a_point_per_run_and_metric() {
    let records = demo::records();
    let charts = timeline_charts(&records, &by(&["provider", "disk"]));
    assert_eq!(charts.len(), 5);
    let (name, svg) = &charts[3];
    assert_eq!(name, "google pd-standard");
    assert_valid(svg);
    // 8 runs x 4 metrics, each point with its run and time in a tooltip.
    assert_eq!(count(svg, "<circle "), 32);
    assert!(svg.contains("<title>run 5 (id 15), "), "{svg}");
    assert_eq!(count(svg, "<polyline "), 4);
}

#[test]
fn series_draws_whole_intervals_per_direction() {
    let records = demo::records();
    let charts = series_charts(&records[0]);
    assert_eq!(charts.len(), 3, "a chart per job");
    let (job, svg) = &charts[2];
    assert_eq!(job, crate::table::HEADLINE_IOPS_JOB);
    assert_valid(svg);
    // Read and write lines on both panels; 20 one-second points each.
    assert_eq!(count(svg, "<polyline "), 4);
    assert_eq!(count(svg, "<circle "), 4 * 20);
    assert!(svg.contains(">read<") && svg.contains(">write<"));
    // A read-only job has no write line; a job without a series no chart.
    assert_eq!(count(&charts[0].1, "<polyline "), 2);
    let mut bare = records[0].clone();
    bare.result.jobs[0].series.clear();
    assert!(series_chart(&bare, &bare.result.jobs[0]).is_none());
}

#[test]
fn percentile_curves_use_the_nines_scale() {
    assert!((percentiles::nines(99.9) - 3.0).abs() < 1e-12);
    assert!((percentiles::nines(50.0) - 2f64.log10()).abs() < 1e-12);
    let runs = wide_range();
    let svg = percentile_chart(&runs, &by(&["disk"]));
    assert_valid(&svg);
    assert_eq!(count(&svg, "<polyline "), 2);
    assert!(svg.contains(">99.99<") && svg.contains(">99.9<"));
    // Every I/O of the hdd runs took 20 or 21 ms: its whole curve is there.
    let h = crate::compare::merged_latency(runs.iter().take(2));
    let curve = percentiles::curve(&h);
    assert!(curve
        .iter()
        .all(|&(_, us)| (20_000.0..=21_000.0).contains(&us)));
    assert_eq!(curve.first().unwrap().0, 1.0);
    assert!((curve.last().unwrap().0 - 99.99).abs() < 1e-9);
}

#[test]
fn percentile_curves_from_histograms_rebuilt_on_import_say_so() {
    let mut runs = wide_range();
    assert!(!percentile_chart(&runs, &by(&["disk"])).contains("approximate"));
    for job in &mut runs[2].result.jobs {
        job.imported = Some(model::Imported::default());
    }
    let svg = percentile_chart(&runs, &by(&["disk"]));
    assert_valid(&svg);
    assert_eq!(count(&svg, "~ approximate: rebuilt on import"), 1, "{svg}");
}

#[test]
fn empty_input_draws_empty_charts() {
    let empty = Comparison::default();
    for m in Metric::ALL {
        for log in [false, true] {
            let svg = bar_chart(&empty, m, log);
            assert_valid(&svg);
            assert!(svg.contains("no runs"));
        }
    }
    let svg = percentile_chart(&[], &[]);
    assert_valid(&svg);
    assert!(svg.contains("no data"));
    assert!(timeline_charts(&[], &[]).is_empty());
    // Runs without I/O: the timeline and the bars still draw.
    let mut r = record(1, &[], 1, 1.0, 1.0, 1);
    r.result.jobs.clear();
    let mut again = r.clone();
    again.id = 2;
    let runs = [r, again];
    assert_valid(&timeline_charts(&runs, &[])[0].1);
    assert_valid(&bar_chart(&compare(&runs, &[]), Metric::Iops, true));
}

/// A group of one run would be four panels with one dot each: it gets no
/// timeline, and `one_run_groups` hands it to a table instead.
#[test]
fn a_group_of_one_run_has_no_timeline() {
    let mut records = demo::records();
    records.push(record(
        99,
        &[("provider", "local"), ("disk", "sd-card")],
        50,
        20.0,
        10.0,
        900,
    ));
    let by = by(&["provider", "disk"]);
    let charts = timeline_charts(&records, &by);
    assert_eq!(
        charts.len(),
        5,
        "the demo's five groups, not the one-run group"
    );
    assert!(charts.iter().all(|(name, _)| name != "local sd-card"));
    for (name, svg) in &charts {
        assert!(
            count(svg, "<circle ") >= 2 * 4,
            "{name}: a point per run and metric"
        );
    }
    let single = one_run_groups(&records, &by);
    assert_eq!(single.len(), 1);
    assert_eq!(
        (single[0].0.as_str(), single[0].1.id),
        ("local sd-card", 99)
    );
}

#[test]
fn png_export_draws_the_text() {
    let c = compare(&wide_range(), &by(&["disk"]));
    let svg = bar_chart(&c, Metric::Iops, false);
    let png = match svg_to_png(&svg) {
        Ok(p) => p,
        Err(e) => panic!("{e} (the tests need Debian's fonts-dejavu-core)"),
    };
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // IHDR: width and height, big-endian, at bytes 16..24.
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!(w, WIDTH as u32);
    assert!(h > 100);
    let double = png::svg_to_png_scaled(&svg, 2.0).unwrap();
    assert_eq!(
        u32::from_be_bytes(double[16..20].try_into().unwrap()),
        2 * w
    );
    // Text is drawn: the same chart without its labels makes a different picture.
    let no_text: String = strip_text(&svg);
    assert_ne!(svg_to_png(&no_text).unwrap(), png);
    assert!(matches!(svg_to_png("<svg"), Err(PngError::Svg(_))));
    let msg = PngError::NoFont("no system font found".into()).to_string();
    assert!(msg.contains("fonts-dejavu-core"), "{msg}");
}

fn strip_text(svg: &str) -> String {
    let mut out = String::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text ") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("</text>").unwrap() + start + 7;
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn the_timeline_marks_the_cliff_and_the_steady_window_and_the_series_a_cliff_in_a_run() {
    let records = demo::records();
    let charts = timeline_charts(&records, &by(&["provider", "disk"]));
    let (name, svg) = &charts[3];
    assert_eq!(name, "google pd-standard");
    assert_valid(svg);
    // The demo's pd-standard is fast for four runs: the line stands before run 5.
    assert!(svg.contains(">cliff in run 5: "), "{svg}");
    assert_eq!(count(svg, "class=\"mark\""), 4, "on each of the 4 panels");
    assert_eq!(count(svg, "mark-band"), 0, "a cliff is not steady");
    // A disk without a cliff is steady in its first five runs.
    let (name, steady) = &charts[0];
    assert_valid(steady);
    assert!(
        steady.contains(">steady state, runs 1-5<"),
        "{name}: {steady}"
    );
    assert_eq!(count(steady, "class=\"mark\""), 0);

    // Inside one run: 8 s at 2000 IOPS, then 500.
    let mut record = records[0].clone();
    let job = &mut record.result.jobs[2];
    job.series = (0..16u64)
        .map(|i| {
            let n = if i < 8 { 2000 } else { 500 };
            crate::testutil::point(i * 1000, 1000, (n, n * 4096), (0, 0))
        })
        .collect();
    let svg = series_chart(&record, &record.result.jobs[2]).unwrap();
    assert_valid(&svg);
    assert!(
        svg.contains(">cliff at 8.0 s: 2000 -&gt; 500 IOPS<"),
        "{svg}"
    );
    let plain = series_chart(&records[0], &records[0].result.jobs[2]).unwrap();
    assert!(!plain.contains("class=\"mark"), "no cliff, no mark");
}
