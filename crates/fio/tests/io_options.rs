//! Fio's options for block sizes, rates, thinktime, random
//! distributions, limits and logs parse to what fio means by them, are
//! refused with a reason when they make no sense, and survive the trip
//! through `--parse-only`'s command line.

mod common;
use common::{assert_round_trip, parse, parse_error};
use model::job::{
    BlockSizes, BsShare, DelayRange, Distribution, FileService, PerDir, RandomGenerator,
    RateProcess, Zone,
};
use model::JobSpec;
use std::time::Duration;

const BASE: &str = "--name=j --ioengine=null --size=16m";

fn job(opts: &str) -> JobSpec {
    parse(&format!("{BASE} {opts}")).jobs[0].clone()
}

fn error(opts: &str) -> String {
    parse_error(&format!("{BASE} {opts}")).to_string()
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
    let j = job("--nrfiles=10 --file_service_type=zipf:1.2");
    assert_eq!(j.file_service.kind, FileService::Zipf { theta: 1.2 });
    let j = job("--nrfiles=10 --file_service_type=gauss");
    assert_eq!(j.file_service.kind, FileService::Normal { dev_pct: 10.0 });
    assert!(error("--file_service_type=zipf:0").contains("theta must be greater than 0"));
    assert!(error("--file_service_type=normal:200%")
        .contains("deviation must be from 0 to less than 100"));
}

#[test]
fn kb_base_and_unit_base_as_in_fio() {
    let j = job("--kb_base=1024 --unit_base=8");
    assert_eq!(j.options.len(), 5);
    assert_eq!(j.units, model::units::OutputUnits::default());
    // fio 3.33: on the command line kb_base applies to the sizes after it
    // (`--size=16m` above stays 2^24), `k` is 1000 and `ki` 1024.
    let j = job("--kb_base=1000 --unit_base=1 --bs=4k --io_size=1m --rate=1mi");
    assert!(j.units.kb_base_1000 && j.units.bits);
    assert_eq!(j.size_bytes, Some(16 << 20));
    assert_eq!((j.bs_bytes, j.io_size_bytes), (4000, Some(1_000_000)));
    assert_eq!(j.rate.bytes_per_sec.read, 1 << 20);
    let j = job("--kb_base=1000 --bssplit=4k/50:4ki/50");
    let sizes: Vec<u64> = match j.block_sizes_of(model::Direction::Read) {
        BlockSizes::Split(shares) => shares.iter().map(|s| s.bytes).collect(),
        other => panic!("{other:?}"),
    };
    assert_eq!(sizes, [4000, 4096]);
    assert!(error("--kb_base=512").contains("use 1024 (4k is 4096 bytes"));
    assert!(error("--unit_base=2").contains("or 1 (in bits)"));
}

#[test]
fn kb_base_comes_first_in_a_job_file_section() {
    // fio 3.33 reads a section's kb_base before its other options.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("kb.fio");
    std::fs::write(
        &file,
        "[global]\nsize=1m\nkb_base=1000\nioengine=null\n[a]\nbs=4k\n[b]\nkb_base=1024\nbs=4k\n",
    )
    .unwrap();
    let args = parse(&file.display().to_string());
    let a = &args.jobs[0];
    assert_eq!((a.size_bytes, a.bs_bytes), (Some(1_000_000), 4000));
    assert!(a.units.kb_base_1000);
    let b = &args.jobs[1];
    assert_eq!((b.size_bytes, b.bs_bytes), (Some(1_000_000), 4096));
    assert!(!b.units.kb_base_1000);
}

#[test]
fn thinktime_iotime_alone_counts_no_blocks() {
    // fio 3.33 ignores thinktime_blocks' default of 1 when thinktime_iotime
    // is given (else every I/O would stall); bare numbers are seconds.
    let j = job("--thinktime=1s --thinktime_iotime=9");
    assert_eq!(j.thinktime.iotime, Duration::from_secs(9));
    assert_eq!(j.thinktime.blocks, u32::MAX);
    let j = job("--thinktime=1s --thinktime_iotime=500ms --thinktime_blocks=1");
    assert_eq!(
        (j.thinktime.iotime, j.thinktime.blocks),
        (Duration::from_millis(500), 1)
    );
    assert!(error("--thinktime=1s --thinktime_iotime=soon").contains("thinktime_iotime"));
}

#[test]
fn bs_is_seq_rand_gives_sequential_io_the_read_sizes_and_random_io_the_write_sizes() {
    // fio 3.33 with bs=4k,64k: rw=write writes 4k, randread reads 64k, randrw both 64k.
    let j = job("--rw=write --bs=4k,64k --bs_is_seq_rand=1");
    assert_eq!(j.bs_bytes, 4096);
    let j = job("--rw=randread --bs=4k,64k --bs_is_seq_rand=1");
    assert_eq!(j.bs_bytes, 65536);
    let j = job("--rw=randrw --bssplit=4k/100,8k/50:16k/50 --bs_is_seq_rand=1");
    assert_eq!(
        j.block_sizes_of(model::Direction::Read),
        j.block_sizes_of(model::Direction::Write)
    );
    assert_eq!(j.bs_bytes, 16384);
    let e = error("--rw=randrw --bs=4k,64k --bs_is_seq_rand=1 --percentage_random=50");
    assert!(
        e.contains("bs_is_seq_rand=1 with percentage_random=50") && e.contains("not supported yet"),
        "{e}"
    );
    assert_eq!(
        job("--rw=write --bs=4k,64k --bs_is_seq_rand=0").bs_bytes,
        65536
    );
}

#[test]
fn bs_unaligned_needs_buffered_io() {
    let j = job("--rw=randread --blocksize_range=1000-4000 --blocksize_unaligned");
    assert!(j.bs_unaligned);
    let e = error("--rw=randread --bsrange=1k-4k --bs_unaligned --direct=1");
    assert!(
        e.contains("bs_unaligned") && e.contains("use direct=0"),
        "{e}"
    );
    // One size is aligned whatever the flag says.
    assert!(job("--rw=randread --bs=4k --bs_unaligned --direct=1").bs_unaligned);
}

#[test]
fn hist_log_options() {
    let j = job("--write_hist_log --log_hist_msec=100 --log_hist_coarseness=6 --log_max_value --per_job_logs=0");
    assert_eq!(j.logs.hist.as_deref(), Some("j"));
    assert_eq!((j.logs.hist_msec, j.logs.hist_coarseness), (100, 6));
    assert!(j.logs.max_value && j.logs.shared);
    let e = error("--write_hist_log --log_hist_coarseness=7");
    assert!(
        e.contains("log_hist_coarseness") && e.contains("use 0 to 6"),
        "{e}"
    );
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
        "--nrfiles=10 --file_service_type=zipf:1.2",
        "--nrfiles=10 --file_service_type=pareto",
        "--nrfiles=10 --file_service_type=normal:12.5%",
        "--nrfiles=10 --file_service_type=gauss",
        "--nrfiles=3 --file_service_type=random:4 --slat_percentiles=1 --write_bw_log=b --write_lat_log --log_avg_msec=250 --log_offset=1",
        "--write_hist_log=h --log_hist_msec=100 --log_hist_coarseness=2 --log_max_value=1 --per_job_logs=0",
        "--kb_base=1000 --unit_base=1 --bs=4k --rate=1m,3ki --io_size=10m --blockalign=2k",
        "--thinktime=1s --thinktime_iotime=9s",
        "--rw=randread --bsrange=1000-4000 --bs_unaligned",
        "--thinktime=1ms --thinktime_iotime=250ms --thinktime_blocks=8",
    ] {
        assert_round_trip(&job(opts), opts);
    }
}
