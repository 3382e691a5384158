//! `null`: completes every I/O at once without touching a file, as fio's null
//! engine does. It measures the tool itself and drives the runner's tests.

use crate::{BufferPool, Capabilities, Completion, Engine, EngineConfig, EngineError, IoRequest};

/// One list of I/Os, the first `submitted` of them handed over: moving a
/// few completions between lists cost a `memmove` call per I/O, 7% of the
/// null engine's time at QD1.
pub struct NullEngine {
    buffers: BufferPool,
    ios: Vec<Completion>,
    submitted: usize,
}

impl NullEngine {
    pub fn new(cfg: &EngineConfig) -> Result<NullEngine, EngineError> {
        Ok(NullEngine {
            // Nothing is transferred, but callers fill a buffer of the I/O's
            // length before a "write" (verify= formats whole blocks).
            buffers: cfg.buffers(cfg.depth as usize, 64)?,
            ios: Vec::with_capacity(cfg.depth as usize),
            submitted: 0,
        })
    }
}

impl Engine for NullEngine {
    owned_buffers_engine!(
        "null",
        Capabilities {
            asynchronous: true,
            does_io: false,
            registered_buffers: false,
            registered_files: false,
        }
    );
    #[inline]
    fn queue(&mut self, req: IoRequest) -> Result<(), EngineError> {
        self.ios.push(Completion {
            slot: req.slot,
            result: req.len as i64,
        });
        Ok(())
    }
    #[inline]
    fn submit(&mut self) -> Result<usize, EngineError> {
        let n = self.ios.len() - self.submitted;
        self.submitted = self.ios.len();
        Ok(n)
    }
    #[inline]
    fn reap(&mut self, _min: usize, out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        let n = self.submitted;
        for &c in &self.ios[..n] {
            out.push(c);
        }
        self.ios.drain(..n);
        self.submitted = 0;
        Ok(n)
    }
    fn sync_file(&mut self, _file: u32, _data_only: bool) -> Result<(), EngineError> {
        Ok(())
    }
    fn trim_file(&mut self, _file: u32, _offset: u64, _len: u64) -> Result<(), EngineError> {
        Ok(())
    }
}
