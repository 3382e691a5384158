use super::*;
use crate::testutil::*;

const FIO_SAMPLE: &str = include_str!("../../../../fixtures/fio-3.33-randrw.txt");

/// The start of a line up to its first digit, units aside: what a
/// reader's eye (or a grep) anchors on.
fn shape(line: &str) -> String {
    let start = line
        .find(|c: char| c.is_ascii_digit())
        .map_or(line, |i| &line[..i]);
    start
        .replace("(nsec)", "(usec)")
        .replace("(msec)", "(usec)")
        .replace("MiB/s", "KiB/s")
}

#[test]
fn has_fios_landmarks() {
    let text = render(&sample_run());
    for needle in [
        "randrw-75: (groupid=0, jobs=1): err= 0\n",
        "  read: IOPS=34.0k, BW=133MiB/s (139MB/s)(399MiB/3001msec)\n",
        "  write: IOPS=11.3k, BW=44.3MiB/s (46.4MB/s)(133MiB/3001msec)\n",
        "    slat (nsec): min=5000, max=7000",
        "    clat (nsec): min=121, max=5000.0k, avg=",
        "     lat (usec): min=5, max=5005, avg=",
        "    clat percentiles (usec):\n     |  1.00th=[  201],  5.00th=[  201], 10.00th=[  201], 20.00th=[  201],\n",
        "     | 99.00th=[  601], 99.50th=[  601], 99.90th=[  601], 99.95th=[ 4998],\n     | 99.99th=[ 4998]\n",
        "   bw (  KiB/s): min=132352, max=140000, per=",
        "   iops        : min=33088, max=35000, avg=34029.33, stdev=",
        ", samples=3\n",
        "  lat (nsec)   : 250=0.01%\n",
        // 250 us writes count in "500" (250 to 499 us), as in fio.
        "  lat (usec)   : 250=36.74%, 500=54.38%, 750=8.82%\n",
        "  lat (msec)   : 10=0.06%\n",
        "  cpu          : usr=2.50%, sys=25.00%, ctx=10158, majf=0, minf=14\n",
        "\nRun status group 0 (all jobs):\n",
        "   READ: bw=133MiB/s (139MB/s), 133MiB/s-133MiB/s (139MB/s-139MB/s), io=399MiB (418MB), run=3001-3001msec\n",
        "  WRITE: bw=44.3MiB/s (46.4MB/s),",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

#[test]
fn disk_stats_close_the_text_as_in_fio() {
    // The counters of fio's own line in the sample give fio's line.
    let mut result = sample_run();
    result.disk_util = vec![DiskUtil {
        name: "vda".into(),
        read_ios: 101439,
        write_ios: 33784,
        read_ticks: 25681,
        write_ticks: 9148,
        in_queue: 34829,
        io_ticks: 8468,
        time_ms: 10000,
        ..DiskUtil::default()
    }];
    let text = render(&result);
    let fio_tail = &FIO_SAMPLE[FIO_SAMPLE.find("\nDisk stats").unwrap()..];
    assert!(text.ends_with(fio_tail), "{text}");
    // No device measured: no block, as fio prints none.
    result.disk_util.clear();
    assert!(!render(&result).contains("Disk stats"));
}

#[test]
fn every_line_has_a_shape_fio_prints() {
    let text = render(&sample_run());
    let fio_shapes: Vec<String> = FIO_SAMPLE.lines().map(shape).collect();
    for line in text.lines() {
        let ours = shape(line);
        assert!(
            fio_shapes
                .iter()
                .any(|s| *s == ours || (ours.len() > 12 && s.starts_with(&ours))),
            "{line:?} looks like nothing in fio's output"
        );
    }
}

#[test]
fn job_percentile_list_lat_percentiles_and_description() {
    let mut result = sample_run();
    let spec = &mut result.jobs[0].spec;
    spec.percentile_list = vec![50.0, 99.0];
    spec.lat_percentiles = true;
    spec.description = Some("hello world".into());
    let text = render(&result);
    assert!(
        text.contains("\n  Description  : [hello world]\n  read:"),
        "{text}"
    );
    assert!(
        text.contains("    clat percentiles (usec):\n     |  50th=["),
        "{text}"
    );
    assert!(
        text.contains("\n    lat percentiles (usec):\n     |  50th=["),
        "{text}"
    );
    assert!(!text.contains("1.00th"), "{text}");
    result.jobs[0].spec.percentile_list = vec![50.0, 99.9];
    result.jobs[0].spec.clat_percentiles = false;
    let text = render(&result);
    assert!(!text.contains("clat percentiles"), "{text}");
    assert!(text.contains("     | 50.0th=["), "{text}");
}

#[test]
fn sync_jobs_have_no_slat_and_units_scale() {
    let text = render(&run(vec![seq_read_job(SEQ_READ_NAME, 1500)]));
    assert!(!text.contains("slat"), "{text}");
    // 4-6 ms with stdev 1 ms: fio stays in usec (min must exceed 2 ms AND stdev 1 ms for msec).
    assert!(
        text.contains("    clat (usec): min=4000, max=6000, avg=5000.00, stdev=1000.33\n"),
        "{text}"
    );
    assert!(text.contains("    clat percentiles (usec):\n"), "{text}");
    assert!(text.contains("   bw (  MiB/s): min= 1500, max= 1500, per=100.00%, avg=1500.00, stdev= 0.00, samples=1\n"), "{text}");
    assert!(text.contains("  lat (msec)   : 10=100.00%\n"), "{text}");
    assert!(!text.contains("WRITE:"), "{text}");
}

#[test]
fn issued_and_latency_lines_follow_cpu() {
    let result = sample_run();
    let job = &result.jobs[0];
    let text = render(&result);
    let want = format!(
        ", minf=14\n     issued rwts: total={},{},0,0 short=0,0,0,0 dropped=0,0,0,0\n     latency   : target=0, window=0, percentile=100.00%, depth={}\n",
        job.read.ios, job.write.ios, job.spec.iodepth
    );
    assert!(text.contains(&want), "{text}");
}

#[test]
fn a_latency_target_prints_its_settings_and_the_depth_found_as_fio() {
    let mut result = sample_run();
    let job = &mut result.jobs[0];
    job.spec.latency_target = model::LatencyTarget {
        target: std::time::Duration::from_millis(2),
        window: std::time::Duration::from_secs(1),
        percentile: 99.0,
        keep_running: false,
    };
    job.latency_depth = Some(7);
    let text = render(&result);
    // fio 3.33, the same job: the target in ns, the window in us.
    let want = "     latency   : target=2000000, window=1000000, percentile=99.00%, depth=7\n";
    assert!(text.contains(want), "{text}");
    let json = crate::json::render(&result);
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let j = &doc["jobs"][0];
    assert_eq!(
        (
            &j["latency_depth"],
            &j["latency_target"],
            &j["latency_window"]
        ),
        (&7.into(), &2_000_000.into(), &1_000_000.into())
    );
    assert_eq!(j["latency_percentile"].as_f64(), Some(99.0));
}

#[test]
fn kb_base_and_unit_base_shape_the_units_as_in_fio() {
    let mut result = sample_run();
    result.jobs[0].spec.units = OutputUnits {
        kb_base_1000: true,
        bits: true,
    };
    let text = render(&result);
    // fio 3.33's shapes for the same options (see model::units::OutputUnits).
    for needle in [
        "  read: IOPS=34.0k, BW=1115Mbit/s (1063Mibit/s)(418MB/3001msec)\n",
        "   bw (   kB/s): min=132352, max=140000, per=",
        "   READ: bw=1115Mbit/s (1063Mibit/s), 1115Mbit/s-1115Mbit/s (1063Mibit/s-1063Mibit/s), io=418MB (399MiB), run=",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // A second job of the group sets kb_base for both, unit_base for itself.
    let mut second = result.jobs[0].clone();
    second.spec.units = OutputUnits::default();
    result.jobs[0].spec.units.kb_base_1000 = false;
    result.jobs.push(second);
    let text = render(&result);
    assert!(
        text.contains("BW=1063Mibit/s (1115Mbit/s)(399MiB/"),
        "{text}"
    );
    assert!(text.contains("BW=133MiB/s (139MB/s)(399MiB/"), "{text}");
    assert!(text.contains("   READ: bw=266MiB/s (279MB/s), "), "{text}");
}

#[test]
fn errors_and_groups() {
    let mut result = suite_run();
    result.jobs[1].error = Some("pwrite failed".into());
    let text = render(&result);
    assert!(text.contains(&format!(
        "{SEQ_WRITE_NAME}: (groupid=1, jobs=1): err= 1 (pwrite failed)\n"
    )));
    for g in 0..4 {
        assert!(
            text.contains(&format!("\nRun status group {g} (all jobs):\n")),
            "{text}"
        );
    }
    // Groups come after every job.
    assert!(text.find("Run status group 0").unwrap() > text.rfind("cpu          :").unwrap());
}

#[test]
fn errors_gone_on_past_are_fios_err_and_errors_lines() {
    let mut result = suite_run();
    let job = &mut result.jobs[1];
    job.spec.errors.continue_on = [false, true, false];
    let mut count = model::errors::ErrorCount::default();
    count.add(28, Some(model::Direction::Write), None);
    count.add(5, Some(model::Direction::Write), None);
    let ios = job.write.ios;
    job.errors = Some(count);
    let text = render(&result);
    let head = format!("{SEQ_WRITE_NAME}: (groupid=1, jobs=1): err=28 (error=No space left");
    assert!(text.contains(&head), "{text}");
    assert!(text.contains(&format!("total=0,{},0,0", ios + 2)), "{text}");
    assert!(text.contains("errors    : total=2, first_error=28/<No space left on device>\n"));
}
