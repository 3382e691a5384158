//! `libaio`: not written yet (a helper is on it).

use crate::{Capabilities, Completion, Engine, EngineConfig, EngineError, IoRequest};

pub struct LibaioEngine;

impl LibaioEngine {
    pub fn new(_cfg: &EngineConfig) -> Result<LibaioEngine, EngineError> {
        Err(EngineError::Setup {
            engine: "libaio",
            source: std::io::Error::from_raw_os_error(libc::ENOSYS),
        })
    }
}

impl Engine for LibaioEngine {
    fn name(&self) -> &'static str {
        "libaio"
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
