//! A cheap clock for per-I/O timestamps: the TSC where it is invariant
//! (quanta checks), else the monotonic clock. One read is a few nanoseconds,
//! so timing every I/O is never what limits the null engine.

#[derive(Clone)]
pub struct Clock {
    inner: quanta::Clock,
    ticks_per_sec: u64,
}

impl Clock {
    pub fn new() -> Clock {
        let inner = quanta::Clock::new();
        // Measure how many raw ticks make a second, once, for deadlines in ticks.
        let a = inner.raw();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let b = inner.raw();
        let elapsed_ns = inner.delta_as_nanos(a, b).max(1);
        let ticks_per_sec = ((b - a) as u128 * 1_000_000_000 / elapsed_ns as u128) as u64;
        Clock {
            inner,
            ticks_per_sec: ticks_per_sec.max(1),
        }
    }

    #[inline]
    pub fn now(&self) -> u64 {
        self.inner.raw()
    }

    #[inline]
    pub fn nanos(&self, from: u64, to: u64) -> u64 {
        if to <= from {
            0
        } else {
            self.inner.delta_as_nanos(from, to)
        }
    }

    /// Raw ticks in `ns` nanoseconds, for deadlines compared without conversion.
    pub fn ticks(&self, ns: u64) -> u64 {
        (ns as u128 * self.ticks_per_sec as u128 / 1_000_000_000) as u64
    }
}

impl Default for Clock {
    fn default() -> Self {
        Clock::new()
    }
}
