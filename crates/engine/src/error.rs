use std::io;
use std::path::PathBuf;
use thiserror::Error;

/// Every I/O error names the operation, the file, the offset and the length.
#[derive(Debug, Error)]
pub enum EngineError {
    #[error("{engine}: cannot start the engine: {source}")]
    Setup {
        engine: &'static str,
        #[source]
        source: io::Error,
    },
    #[error("{op} of {len} bytes at offset {offset} in {path}: {source}", path = path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        offset: u64,
        len: u64,
        #[source]
        source: io::Error,
    },
    /// A failure of the engine's own machinery (an io_uring ring, an AIO
    /// context), not of one I/O: those come back as negative results.
    #[error("{engine}: {op} failed: {source}")]
    Engine {
        engine: &'static str,
        op: &'static str,
        #[source]
        source: io::Error,
    },
    /// The buffers could not be allocated as `iomem` asks.
    #[error("iomem={iomem}: cannot allocate {bytes} bytes of I/O buffers: {source}; {hint}")]
    Memory {
        iomem: &'static str,
        bytes: u64,
        #[source]
        source: io::Error,
        hint: String,
    },
    #[error("{op} on {path}: {source}", path = path.display())]
    File {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl EngineError {
    /// True when the kernel or a seccomp profile refused the engine outright:
    /// the caller may fall back to another engine.
    pub fn is_refusal(&self) -> bool {
        match self {
            EngineError::Setup { source, .. } => matches!(
                source.raw_os_error(),
                Some(libc::EPERM | libc::ENOSYS | libc::EACCES | libc::EOPNOTSUPP)
            ),
            _ => false,
        }
    }
}
