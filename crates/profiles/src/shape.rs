//! A test's name says what it ran: with `--iodepth 8` the suite's
//! `rand-read-4k-qd32` runs as `rand-read-4k-qd8`, never under its old
//! name (`run`'s `--bs`, `--iodepth`, `--numjobs`, `--direct` put a shape
//! on every test of a profile). Names of the default suite's form are
//! rebuilt from the shape ([`report::table::suite_test_name`], which the
//! headline reads back); CrystalDiskMark's `RND4K-Q32T1-read` has its
//! size, queue and thread fields rewritten; any other name gets the
//! changed parts appended (`block-write-4k`).

use model::JobSpec;
use report::table::{parse_suite_test_name, suite_test_name, SuiteShape};

fn shape_of(job: &JobSpec) -> SuiteShape {
    SuiteShape {
        bs_bytes: job.bs_bytes,
        iodepth: job.iodepth,
        numjobs: job.numjobs,
        direct: job.direct,
    }
}

/// Renames `job` (the test as it will run) for its shape, from `asked`
/// (the test as its profile wrote it), and echoes the name in its options.
/// `append` allows a name of no known form to get the changed parts
/// appended; without it such a name is kept.
pub fn rename(job: &mut JobSpec, asked: &JobSpec, append: bool) {
    let (before, after) = (shape_of(asked), shape_of(job));
    let name = match parse_suite_test_name(&asked.name) {
        _ if before == after => Some(asked.name.clone()),
        Some((stem, shape)) if shape == before => Some(suite_test_name(stem, &after)),
        _ => crystal_name(&asked.name, &before, &after),
    };
    let name = match name {
        Some(n) => n,
        None if append => appended(&asked.name, &before, &after),
        None => return,
    };
    job.name = name;
    for (key, value) in &mut job.options {
        if key == "name" {
            value.clone_from(&job.name);
        }
    }
}

/// CrystalDiskMark's `SEQ1M-Q8T1-read` / `RND4K-Q32T1-write` for the new shape.
fn crystal_name(name: &str, before: &SuiteShape, after: &SuiteShape) -> Option<String> {
    let mut parts = name.splitn(3, '-');
    let (kind, queue, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let (prefix, size) = [
        ("SEQ", kind.strip_prefix("SEQ")),
        ("RND", kind.strip_prefix("RND")),
    ]
    .into_iter()
    .find_map(|(p, s)| s.map(|s| (p, s)))?;
    let (depth, threads) = queue.strip_prefix('Q')?.split_once('T')?;
    let told = (
        model::units::parse_size(&size.to_ascii_lowercase()).ok()?,
        depth.parse::<u32>().ok()?,
        threads.parse::<u32>().ok()?,
    );
    if told != (before.bs_bytes, before.iodepth, before.numjobs) {
        return None;
    }
    let mut out = format!(
        "{prefix}{}-Q{}T{}-{rest}",
        model::units::format_size(after.bs_bytes).to_ascii_uppercase(),
        after.iodepth,
        after.numjobs
    );
    if before.direct != after.direct {
        out.push_str(if after.direct { "-direct" } else { "-buffered" });
    }
    Some(out)
}

/// `block-write` with `--bs 4k`: `block-write-4k`.
fn appended(name: &str, before: &SuiteShape, after: &SuiteShape) -> String {
    let mut out = name.to_string();
    if before.bs_bytes != after.bs_bytes {
        out.push('-');
        out.push_str(&model::units::format_size(after.bs_bytes));
    }
    if before.iodepth != after.iodepth {
        out.push_str(&format!("-qd{}", after.iodepth));
    }
    if before.numjobs != after.numjobs {
        out.push_str(&format!("-x{}", after.numjobs));
    }
    if before.direct != after.direct {
        out.push_str(if after.direct { "-direct" } else { "-buffered" });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, bs: u64, iodepth: u32, numjobs: u32, direct: bool) -> JobSpec {
        let mut j = JobSpec::new(name);
        j.bs_bytes = bs;
        j.iodepth = iodepth;
        j.numjobs = numjobs;
        j.direct = direct;
        j.options = vec![("name".into(), name.into())];
        j
    }

    fn renamed(asked: &JobSpec, bs: u64, iodepth: u32, numjobs: u32, direct: bool) -> String {
        let mut ran = job(&asked.name, bs, iodepth, numjobs, direct);
        rename(&mut ran, asked, true);
        assert_eq!(ran.options[0].1, ran.name, "the options echo the name");
        ran.name
    }

    #[test]
    fn names_say_the_shape_that_ran() {
        let suite = job("rand-read-4k-qd32", 4096, 32, 1, true);
        assert_eq!(renamed(&suite, 4096, 8, 1, true), "rand-read-4k-qd8");
        assert_eq!(
            renamed(&suite, 8192, 32, 4, false),
            "rand-read-8k-qd32-x4-buffered"
        );
        assert_eq!(renamed(&suite, 4096, 32, 1, true), "rand-read-4k-qd32");
        let crystal = job("RND4K-Q32T1-read", 4096, 32, 1, true);
        assert_eq!(renamed(&crystal, 4096, 8, 2, true), "RND4K-Q8T2-read");
        assert_eq!(
            renamed(&crystal, 1 << 20, 32, 1, false),
            "RND1M-Q32T1-read-buffered"
        );
        let other = job("block-write", 8192, 1, 1, true);
        assert_eq!(renamed(&other, 4096, 4, 1, true), "block-write-4k-qd4");
        // Without `append`, a name of no known form is kept.
        let mut ran = job("block-write", 8192, 4, 1, true);
        rename(&mut ran, &other, false);
        assert_eq!(ran.name, "block-write");
    }
}
