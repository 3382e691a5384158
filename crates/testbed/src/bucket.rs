//! Burst credits, as cloud disks sell them (AWS gp2 style): the device runs
//! at a burst rate while credits last, then drops to a baseline; credits
//! refill at the baseline rate up to a cap. A thread plays the bucket on a
//! testbed by setting its IOPS limit every tick from the I/Os the device
//! completed, so a test knows exactly when the cliff comes and how many
//! I/Os the burst held.

use crate::cgroup::Throttle;
use crate::error::TestbedError;
use crate::loopdev;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the bucket is read and the limit set.
pub const TICK: Duration = Duration::from_millis(100);

/// A burst bucket on reads and writes together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    /// The IOPS limit while credits last.
    pub burst_iops: u64,
    /// The IOPS limit once they are spent, and the refill rate per second.
    pub baseline_iops: u64,
    /// Credits (I/Os) at the start.
    pub credits: u64,
    /// Most credits the bucket holds.
    pub cap: u64,
    /// Stop driving after this long (the limit last set stays).
    pub for_at_most: Option<Duration>,
}

/// The bucket's arithmetic, apart from any device: what is left, and the
/// limit that follows.
#[derive(Clone, Debug)]
pub struct Credits {
    bucket: Bucket,
    left: f64,
}

impl Credits {
    pub fn new(bucket: Bucket) -> Credits {
        Credits {
            left: bucket.credits.min(bucket.cap) as f64,
            bucket,
        }
    }

    /// Credits left.
    pub fn left(&self) -> f64 {
        self.left
    }

    /// Charges `used` I/Os done over `elapsed`, refills at the baseline for
    /// that time, and returns the IOPS limit for the next tick: the burst
    /// while a whole tick of it is still covered, else the baseline.
    pub fn tick(&mut self, used: u64, elapsed: Duration) -> u64 {
        let b = &self.bucket;
        let refill = b.baseline_iops as f64 * elapsed.as_secs_f64();
        self.left = (self.left + refill - used as f64).clamp(0.0, b.cap as f64);
        if self.left > b.burst_iops as f64 * TICK.as_secs_f64() {
            b.burst_iops
        } else {
            b.baseline_iops
        }
    }
}

/// The thread driving a bucket; dropping it (or [`BucketDriver::stop`])
/// ends the thread.
pub struct BucketDriver {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<(), TestbedError>>>,
}

impl BucketDriver {
    pub(crate) fn start(throttle: Throttle, device: String, bucket: Bucket) -> BucketDriver {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || drive(&throttle, &device, bucket, &flag));
        BucketDriver {
            stop,
            thread: Some(thread),
        }
    }

    /// Ends the thread and returns the first error it met (a limit it could
    /// not set, a stat file it could not read), if any.
    pub fn stop(mut self) -> Result<(), TestbedError> {
        self.finish()
    }

    fn finish(&mut self) -> Result<(), TestbedError> {
        self.stop.store(true, Ordering::Relaxed);
        match self.thread.take().map(JoinHandle::join) {
            None => Ok(()),
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(TestbedError::BucketPanicked),
        }
    }
}

impl Drop for BucketDriver {
    fn drop(&mut self) {
        if let Err(e) = self.finish() {
            eprintln!("testbed bucket: {e}");
        }
    }
}

fn drive(
    throttle: &Throttle,
    device: &str,
    bucket: Bucket,
    stop: &AtomicBool,
) -> Result<(), TestbedError> {
    let name = loopdev::kernel_name(device);
    let mut credits = Credits::new(bucket);
    let mut limit = credits.tick(0, Duration::ZERO);
    throttle.set_iops(limit)?;
    let start = Instant::now();
    let mut last_ios = loopdev::completed_ios(name)?;
    let mut last_at = Instant::now();
    while !stop.load(Ordering::Relaxed)
        && bucket.for_at_most.is_none_or(|most| start.elapsed() < most)
    {
        std::thread::sleep(TICK);
        let ios = loopdev::completed_ios(name)?;
        let now = Instant::now();
        let want = credits.tick(ios.saturating_sub(last_ios), now - last_at);
        (last_ios, last_at) = (ios, now);
        if want != limit {
            throttle.set_iops(want)?;
            limit = want;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(credits: u64) -> Bucket {
        Bucket {
            burst_iops: 2000,
            baseline_iops: 500,
            credits,
            cap: credits,
            for_at_most: None,
        }
    }

    #[test]
    fn a_full_bucket_bursts_until_it_runs_dry_after_credits_over_burst_minus_baseline() {
        // 15,000 credits drained at 2,000 IOPS and refilled at 500/s last
        // 15,000 / 1,500 = 10 s, the figure ground_truth.rs expects.
        let mut c = Credits::new(bucket(15_000));
        let mut ticks = 0;
        while c.tick(200, TICK) == 2000 {
            ticks += 1;
            assert!(ticks < 1000, "never ran dry");
        }
        let seconds = (ticks + 1) as f64 * TICK.as_secs_f64();
        assert!((seconds - 10.0).abs() <= 0.2, "ran dry after {seconds} s");
        assert_eq!(
            c.tick(50, TICK),
            500,
            "the baseline just refills what it uses"
        );
    }

    #[test]
    fn idle_time_refills_at_the_baseline_up_to_the_cap() {
        let mut c = Credits::new(bucket(3000));
        c.tick(3000, Duration::ZERO);
        assert_eq!(c.left(), 0.0);
        assert_eq!(c.tick(0, Duration::from_secs(2)), 2000);
        assert_eq!(c.left(), 1000.0);
        c.tick(0, Duration::from_secs(60));
        assert_eq!(c.left(), 3000.0, "capped");
    }

    #[test]
    fn credits_never_go_negative_and_start_at_most_at_the_cap() {
        let mut c = Credits::new(Bucket {
            cap: 100,
            ..bucket(5000)
        });
        assert_eq!(c.left(), 100.0);
        assert_eq!(c.tick(10_000, TICK), 500);
        assert_eq!(c.left(), 0.0);
    }
}
