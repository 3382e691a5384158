//! Issue 3, item 3: fio's options for block sizes, rates, thinktime, random
//! distributions, limits and logs parse to what fio means by them, are
//! refused with a reason when they make no sense, and survive the trip
//! through `--parse-only`'s command line.

use diskbench_fio::{job_line, parse_args, FioArgs};
use model::job::{
    BlockSizes, BsShare, DelayRange, Distribution, FileService, PerDir, RandomGenerator,
    RateProcess, Zone,
};
use model::JobSpec;
use std::time::Duration;

fn parse(line: &str) -> FioArgs {
    parse_args(line.split_whitespace().map(String::from))
        .unwrap_or_else(|e| panic!("`{line}` should parse: {e}"))
}

fn job(opts: &str) -> JobSpec {
    parse(&format!("--name=j --ioengine=null --size=16m {opts}")).jobs[0].clone()
}

fn error(opts: &str) -> String {
    let line = format!("--name=j --ioengine=null --size=16m {opts}");
    match parse_args(line.split_whitespace().map(String::from)) {
        Ok(a) => panic!("`{line}` should fail, parsed to {:?}", a.jobs[0]),
        Err(e) => e.to_string(),
    }
}

fn share(kib: u64, pct: u32) -> BsShare {
    BsShare {
        bytes: kib << 10,
        pct,
    }
}

#[test]
fn bssplit_and_bsrange_per_direction() {
    let j = job("--rw=randrw --bssplit=4k/60:64k/40,8k/100");
    let sizes = j.block_sizes.expect("several sizes");
    assert_eq!(
        sizes.read,
        BlockSizes::Split(vec![share(4, 60), share(64, 40)])
    );
    assert_eq!(sizes.write, BlockSizes::Split(vec![share(8, 100)]));
    // Buffers and regions are sized by the largest block.
    assert_eq!(j.bs_bytes, 64 << 10);

    let j = job("--rw=randread --bsrange=4k-64k");
    assert_eq!(
        j.block_sizes.unwrap().read,
        BlockSizes::Range {
            min_bytes: 4096,
            max_bytes: 65536
        }
    );
    // bs=R,W: a read-only job only needs its read size.
    let j = job("--rw=randread --bs=8k,64k");
    assert_eq!((j.bs_bytes, j.block_sizes), (8192, None));
    let j = job("--rw=randrw --bs=,8k");
    assert_eq!(j.bs_bytes, 8192);
    assert_eq!(
        j.block_sizes_of(model::Direction::Read),
        BlockSizes::fixed(4096)
    );
    // bssplit wins over bs, whatever the order (as in fio).
    let j = job("--rw=randread --bssplit=4k/50:16k/50 --bs=8k");
    assert_eq!(j.bs_bytes, 16 << 10);
    assert_eq!(job("--blockalign=512").blockalign_bytes, PerDir::both(512));
    assert_eq!(job("--ba=8k,").blockalign_bytes.write, 0);
}

#[test]
fn block_size_errors() {
    assert!(error("--bssplit=4k/50:64k/40").contains("add up to 90, not 100"));
    assert!(error("--bsrange=64k-4k").contains("give the smaller size first"));
    let msg = error("--direct=1 --rw=randread --bssplit=4k/50:1000/50");
    assert!(
        msg.contains("direct=1 needs bssplit to be a multiple of 512"),
        "{msg}"
    );
    assert!(error("--bs=4k,8k,16k,32k").contains("at most three"));
}

#[test]
fn rates_per_direction() {
    let j =
        job("--rw=randrw --rate=1m,500k --rate_iops=,300 --rate_process=poisson --rate_cycle=250");
    assert_eq!(
        j.rate.bytes_per_sec,
        PerDir {
            read: 1 << 20,
            write: 500 << 10
        }
    );
    assert_eq!(
        j.rate.iops,
        PerDir {
            read: 0,
            write: 300
        }
    );
    assert_eq!(j.rate.process, RateProcess::Poisson);
    assert_eq!(j.rate.cycle_ms, 250);
    let j = job("--rate_min=1m, --rate_iops_min=50");
    assert_eq!(
        j.rate.min_bytes_per_sec,
        PerDir {
            read: 1 << 20,
            write: 0
        }
    );
    assert_eq!(j.rate.min_iops, PerDir::both(50));
    // fio 3.33 refuses a floor above the cap: "minimum rate exceeds rate".
    assert!(error("--rate_iops=100 --rate_iops_min=200").contains("must not exceed the cap"));
    assert!(error("--rate_process=bursty").contains("use linear or poisson"));
}

#[test]
fn thinktime_is_in_microseconds_when_bare() {
    let j = job(
        "--thinktime=250 --thinktime_spin=100 --thinktime_blocks=8 --thinktime_blocks_type=issue",
    );
    let t = &j.thinktime;
    assert_eq!(t.think, Duration::from_micros(250));
    assert_eq!(t.spin, Duration::from_micros(100));
    assert_eq!((t.blocks, t.on_issue), (8, true));
    assert_eq!(
        job("--thinktime=2ms").thinktime.think,
        Duration::from_millis(2)
    );
    assert!(error("--thinktime=1ms --thinktime_spin=2ms").contains("no longer than thinktime"));
    assert!(error("--thinktime_blocks=0").contains("thinktime_blocks=1 or more"));
}

#[test]
fn random_offsets() {
    let j = job("--rw=randread --random_distribution=zipf:1.2 --norandommap --random_generator=lfsr --percentage_random=90,20");
    assert_eq!(
        j.random.distribution,
        PerDir::both(Distribution::Zipf {
            theta: 1.2,
            center: None
        })
    );
    assert!(j.random.norandommap);
    assert_eq!(j.random.generator, RandomGenerator::Lfsr);
    assert_eq!(
        j.random.percentage_random,
        PerDir {
            read: 90,
            write: 20
        }
    );
    let j = job("--random_distribution=zoned_abs:60/1m:40/15m");
    let want = vec![
        Zone {
            access_pct: 60.0,
            size: (1 << 20) as f64,
        },
        Zone {
            access_pct: 40.0,
            size: (15 << 20) as f64,
        },
    ];
    assert_eq!(j.random.distribution.read, Distribution::ZonedAbs(want));
    assert!(error("--random_distribution=zipf:1").contains("must not be 1.0"));
    assert!(error("--random_distribution=zoned:50/10:40/90").contains("add up to 90"));
    assert!(error("--random_generator=mt").contains("tausworthe, lfsr or tausworthe64"));
    let args = parse("--name=j --size=1m --random_generator=lfsr");
    assert_eq!(
        args.warnings,
        vec![diskbench_fio::RANDOM_GENERATOR_NOTE.to_string()]
    );
    assert!(parse("--name=j --size=1m").warnings.is_empty());
}

#[test]
fn limits_start_and_queue() {
    let j =
        job("--io_limit=64m --number_ios=100 --startdelay=1-3 --timeout=20 --cpus_allowed=0,2-3");
    assert_eq!(j.io_size_bytes, Some(64 << 20));
    assert_eq!(j.number_ios, Some(100));
    let want = DelayRange {
        min: Duration::from_secs(1),
        max: Duration::from_secs(3),
    };
    assert_eq!(j.startdelay, want);
    assert_eq!(j.runtime, Some(Duration::from_secs(20)));
    assert_eq!(j.cpus_allowed, Some(vec![0, 2, 3]));
    let j = job(
        "--iodepth=16 --iodepth_low=4 --iodepth_batch_complete=2 --iodepth_batch_complete_max=8",
    );
    assert_eq!(j.iodepth_low, Some(4));
    assert_eq!(
        (j.iodepth_batch_complete_min, j.iodepth_batch_complete_max),
        (2, 8)
    );
    assert!(
        error("--iodepth_batch_complete_min=8 --iodepth_batch_complete_max=2")
            .contains("at least the min")
    );
    let j =
        job("--nrfiles=4 --file_service_type=sequential --fsync_on_close=1 --slat_percentiles=1");
    assert_eq!(j.file_service.kind, FileService::Sequential);
    assert!(j.fsync_on_close && j.slat_percentiles);
    assert!(error("--file_service_type=zipf:1.1").contains("not supported yet"));
}

#[test]
fn units_are_fios_defaults_only() {
    let j = job("--kb_base=1024 --unit_base=8");
    assert_eq!(j.options.len(), 5);
    assert!(error("--kb_base=1000")
        .contains("kb_base=1000 (sizes in powers of ten) is not supported yet"));
    assert!(error("--unit_base=1").contains("(bits in the output) is not supported yet"));
    assert!(error("--kb_base=512").contains("use 1024 or 1000"));
}

#[test]
fn log_names_default_to_the_job() {
    let j = job(
        "--write_bw_log --write_iops_log=io --write_lat_log=l --log_avg_msec=500 --log_offset=1",
    );
    assert_eq!(j.logs.bw.as_deref(), Some("j"));
    assert_eq!(j.logs.iops.as_deref(), Some("io"));
    assert_eq!(j.logs.lat.as_deref(), Some("l"));
    assert_eq!((j.logs.avg_msec, j.logs.offset), (500, true));
    // In a [global] section the name is that of each job.
    let both = parse("--write_bw_log --ioengine=null --size=1m --name=a --name=b");
    let names: Vec<_> = both
        .jobs
        .iter()
        .map(|j| j.logs.bw.clone().unwrap())
        .collect();
    assert_eq!(names, vec!["a", "b"]);
}

#[test]
fn options_given_are_echoed_for_json() {
    let j = job("--bssplit=4k/50:8k/50 --rate_iops=500 --norandommap");
    let names: Vec<&str> = j.options.iter().map(|(k, _)| k.as_str()).collect();
    assert!(names.ends_with(&["bssplit", "rate_iops"]), "{names:?}");
}

#[test]
fn parse_only_lines_give_the_same_jobs_again() {
    for opts in [
        "--rw=randrw --bssplit=4k/60:64k/40,8k/100 --rate=1m,500k --rate_process=poisson",
        "--rw=randread --bsrange=4k-64k --blockalign=4k --random_distribution=zipf:1.2:0.25",
        "--rw=randrw --bs=4k,16k --random_distribution=zoned:60/10:40/90,pareto:0.3 --percentage_random=90,",
        "--rw=randwrite --random_distribution=zoned_abs:60/1m:40/15m --norandommap --random_generator=tausworthe64",
        "--thinktime=1500 --thinktime_spin=500 --thinktime_blocks=4 --thinktime_blocks_type=issue --rate_iops=100,50 --rate_ignore_thinktime=1",
        "--rate_min=1m --rate_iops_min=10,20 --rate_cycle=500 --io_size=1g --number_ios=10 --startdelay=500ms-2",
        "--cpus_allowed=0,2-3 --fsync_on_close=1 --iodepth=16 --iodepth_low=4 --iodepth_batch_complete_min=0 --iodepth_batch_complete_max=8",
        "--nrfiles=3 --file_service_type=random:4 --slat_percentiles=1 --write_bw_log=b --write_lat_log --log_avg_msec=250 --log_offset=1",
    ] {
        let first = job(opts);
        let line = job_line(&first, false);
        let mut again = parse(&line).jobs[0].clone();
        let mut want = first.clone();
        again.options.clear();
        want.options.clear();
        assert_eq!(again, want, "{opts}\n -> {line}");
    }
}
