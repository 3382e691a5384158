//! The report is self-contained (nothing it references leaves the file),
//! has every chart, and escapes what users typed.

use super::*;
use crate::compare::tests::record;
use crate::demo;

fn by(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Every value of `attr="..."` in `html`.
fn attr_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let needle = format!(" {attr}=\"");
    html.match_indices(&needle)
        .map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

#[test]
fn references_nothing_outside_the_file() {
    let html = render_report(&demo::records(), &by(&["provider", "disk"]));
    assert!(!html.contains("http://") && !html.contains("https://"));
    assert!(!html.contains("//cdn") && !html.contains("@import") && !html.contains("url("));
    for attr in [
        "src",
        "href",
        "xlink:href",
        "action",
        "srcset",
        "poster",
        "data",
    ] {
        for v in attr_values(&html, attr) {
            assert!(
                v.starts_with('#') || v.starts_with("data:"),
                "{attr}=\"{v}\""
            );
        }
    }
    // One inline script, no external one, no event-handler attributes.
    assert_eq!(html.matches("<script").count(), 1);
    assert!(html.contains("<script>"));
    assert!(
        !html.contains(" onload=") && !html.contains(" onclick=") && !html.contains(" onerror=")
    );
    assert!(
        html.contains("<link rel=\"icon\" href=\"data:,\">"),
        "no favicon request"
    );
}

#[test]
fn every_chart_is_there() {
    let records = demo::records();
    let html = render_report(&records, &by(&["provider", "disk"]));
    // 4 metrics x (linear + log) + 5 timelines + 1 percentile chart + 3 jobs x 28 runs.
    let expected = 8 + 5 + 1 + 3 * records.len();
    assert_eq!(html.matches("<svg ").count(), expected);
    assert!(html.contains(&format!(
        "<meta name=\"charts-expected\" content=\"{expected}\">"
    )));
    assert_eq!(html.matches("class=\"chart chart-bar\"").count(), 4);
    assert_eq!(html.matches("class=\"chart chart-bar-log\"").count(), 4);
    assert_eq!(html.matches("data-scale=\"log\"").count(), 4);
    assert_eq!(html.matches("data-scale=\"linear\"").count(), 4);
    assert_eq!(html.matches("class=\"chart chart-timeline\"").count(), 5);
    assert_eq!(html.matches("class=\"chart chart-percentiles\"").count(), 1);
    assert_eq!(html.matches("<details>").count(), records.len());
    // Inline SVG needs no namespace URL; the log switch is there.
    assert!(!html.contains("xmlns="));
    assert!(html.contains("id=\"log-scale\""));
    for id in [
        "compare",
        "bars",
        "timelines",
        "percentiles",
        "series",
        "runs",
    ] {
        assert!(html.contains(&format!("<h2 id=\"{id}\">")), "{id}");
    }
    // The runs table has the host facts.
    for fact in [
        "aws-gp2",
        "kernel 6.12.0",
        "Intel(R) Xeon(R) CPU @ 2.20GHz × 4",
        "RAM 16.0 GiB",
        "/mnt/bench",
        "ext4 on /dev/sdb1",
        "device sdb, model gp2 disk",
    ] {
        assert!(html.contains(fact), "{fact}");
    }
}

#[test]
fn user_text_is_escaped() {
    let nasty = "<img src=x onerror=alert(1)>&\"'";
    let mut r = record(1, &[("disk", nasty), ("<k>", "v")], 100, 1.0, 1.0, 10);
    r.result.targets[0].path = "/mnt/<b>&".into();
    r.result.host.hostname = "h\"ost".into();
    let html = render_report(&[r], &[]);
    assert!(!html.contains("<img"), "unescaped label");
    assert!(!html.contains("<b>&") && !html.contains("<k>"));
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;"));
    assert!(html.contains("/mnt/&lt;b&gt;&amp;") && html.contains("h&quot;ost"));
    assert!(html.contains("&lt;k&gt;=v"));
}

#[test]
fn no_runs_still_makes_a_page() {
    let html = render_report(&[], &[]);
    assert!(html.contains("0 runs in 0 groups"));
    assert!(html.contains("No runs to compare."));
    // Bars say "no runs", the percentile chart "no data".
    assert_eq!(html.matches("<svg ").count(), 9);
    assert!(html.ends_with("</html>\n"));
}

/// One run has no spread: no "± 0" in a cell, a tooltip or a bar, no
/// "mean ± sd" heading, and counts read "1 run", "1 group".
#[test]
fn one_run_is_shown_without_a_spread() {
    let html = render_report(&[record(1, &[("disk", "vda")], 100, 1.0, 1.0, 10)], &[]);
    assert!(!html.contains('±'), "a ± for one run");
    assert!(html.contains("1 run in 1 group "), "counts");
    assert!(!html.contains("1 runs") && !html.contains("1 groups"));
    assert!(html.contains("one run: no spread"));
}

#[test]
fn a_virtual_disk_is_named_in_the_runs_table() {
    let mut r = record(1, &[("disk", "vda")], 100, 1.0, 1.0, 10);
    let t = &mut r.result.targets[0];
    (t.rotational, t.model, t.virtual_disk) = (Some(true), None, Some("virtio".into()));
    let html = render_report(&[r], &[]);
    assert!(
        html.contains("device vda (virtio), model unknown (virtio reports none)"),
        "device and model"
    );
    assert!(html.contains(
        "rotational unknown (virtio says rotational=1: the virtual device&#39;s flag, not the storage&#39;s)"
    ));
    assert!(!html.contains("rotational yes"));
}

/// A group of one run gets a row of figures where the timelines are, not
/// four full-height panels with one dot each; groups of several keep theirs.
#[test]
fn a_group_of_one_run_is_a_table_row_not_a_timeline() {
    let mut records = demo::records();
    records.push(record(
        99,
        &[("provider", "local"), ("disk", "sd-card")],
        50,
        20.0,
        10.0,
        900,
    ));
    let html = render_report(&records, &by(&["provider", "disk"]));
    let section = &html[html.find("<h2 id=\"timelines\">").unwrap()
        ..html.find("<h2 id=\"percentiles\">").unwrap()];
    assert_eq!(section.matches("class=\"chart chart-timeline\"").count(), 5);
    assert!(
        !section.contains("local sd-card: run by run"),
        "a timeline for one run"
    );
    let table = &section[section
        .find("<table class=\"one-run\">")
        .expect("the one-run table")..];
    for cell in [
        "<td>local sd-card</td>",
        "<a href=\"#run-99\">99</a>",
        ">50<",
        ">20.0<",
        ">10.0<",
        ">900 us<",
    ] {
        assert!(table.contains(cell), "{cell} in {table}");
    }
    // Only one-run groups: no timeline at all, and no sentence about them.
    let one = render_report(&records[records.len() - 1..], &[]);
    assert!(!one.contains("chart-timeline") && !one.contains("burst-credit cliff shows"));
    assert!(one.contains("<table class=\"one-run\">"));
}
