//! `cpuio`: fio's engine that moves no data and burns CPU instead. Each
//! "I/O" is one burst of `chunk` (a busy loop, or sorting for `qsort`);
//! the sleep between bursts is the job's thinktime, set by the parser from
//! `cpuload` (see `model::cpuio`). A burst completes with the I/O's length
//! so the worker's loop takes it as any other I/O; the runner counts no
//! bytes for this engine, as fio does.

use crate::sync::DoneList;
use crate::{BufferPool, Capabilities, Engine, EngineConfig, EngineError, IoRequest};
use model::cpuio::{CpuLoad, CpuMode};
use std::time::Instant;

/// Integers sorted by `qsort` bursts: 1 MiB, as fio's mode sorts.
const SORTED: usize = 256 * 1024;

pub struct CpuEngine {
    load: CpuLoad,
    buffers: BufferPool,
    done: DoneList,
    /// `qsort`: the array, and the state of its generator.
    data: Vec<i32>,
    seed: u64,
}

impl CpuEngine {
    pub fn new(cfg: &EngineConfig, load: CpuLoad) -> Result<CpuEngine, EngineError> {
        let mut engine = CpuEngine {
            load,
            buffers: cfg.buffers(cfg.depth as usize, 64)?,
            done: DoneList::new(cfg.depth),
            data: Vec::new(),
            seed: 0x2545_f491_4f6c_dd1d,
        };
        if load.mode == CpuMode::Qsort {
            engine.data = vec![0; SORTED];
            engine.scramble();
        }
        Ok(engine)
    }

    pub fn load(&self) -> CpuLoad {
        self.load
    }

    /// Refills the array with pseudo-random values (xorshift), so each sort
    /// has work to do.
    fn scramble(&mut self) {
        let mut x = self.seed;
        for v in &mut self.data {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *v = x as i32;
        }
        self.seed = x;
    }

    /// One burst: busy until `chunk` has passed.
    fn burn(&mut self) {
        let start = Instant::now();
        let chunk = self.load.chunk;
        match self.load.mode {
            CpuMode::Noop => {
                while start.elapsed() < chunk {
                    std::hint::spin_loop();
                }
            }
            CpuMode::Qsort => {
                // Sorts in turn (ascending, descending, by low byte), each
                // a full sort of the array, until the burst's time is up.
                let mut step = 0u32;
                while start.elapsed() < chunk {
                    match step % 3 {
                        0 => self.data.sort_unstable(),
                        1 => self.data.sort_unstable_by(|a, b| b.cmp(a)),
                        _ => self.data.sort_unstable_by_key(|v| *v as u8),
                    }
                    step += 1;
                    if step.is_multiple_of(3) {
                        self.scramble();
                    }
                }
            }
        }
    }
}

impl Engine for CpuEngine {
    owned_buffers_engine!("cpuio", Capabilities::SYNCHRONOUS_NO_DATA);
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        self.burn();
        self.done.push(req.slot, Ok(u64::from(req.len)));
        Ok(())
    }
    reaps_done_list!();
    fn sync_file(&mut self, _file: u32, _data_only: bool) -> Result<(), EngineError> {
        Ok(())
    }
    fn trim_file(&mut self, _file: u32, _offset: u64, _len: u64) -> Result<(), EngineError> {
        Ok(())
    }
}
