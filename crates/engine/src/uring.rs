//! `io_uring`: not written yet (a helper is on it).

use crate::{Capabilities, Completion, Engine, EngineConfig, EngineError, IoRequest};

pub struct UringEngine;

impl UringEngine {
    pub fn new(_cfg: &EngineConfig) -> Result<UringEngine, EngineError> {
        Err(EngineError::Setup {
            engine: "io_uring",
            source: std::io::Error::from_raw_os_error(libc::ENOSYS),
        })
    }
}

impl Engine for UringEngine {
    fn name(&self) -> &'static str {
        "io_uring"
    }
    fn capabilities(&self) -> Capabilities {
        unreachable!()
    }
    fn buffer(&mut self, _slot: u32) -> &mut [u8] {
        unreachable!()
    }
    fn queue(&mut self, _req: IoRequest) -> Result<(), EngineError> {
        unreachable!()
    }
    fn submit(&mut self) -> Result<usize, EngineError> {
        unreachable!()
    }
    fn reap(&mut self, _min: usize, _out: &mut Vec<Completion>) -> Result<usize, EngineError> {
        unreachable!()
    }
    fn sync_file(&mut self, _file: u32, _data_only: bool) -> Result<(), EngineError> {
        unreachable!()
    }
}
