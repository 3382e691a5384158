//! How a job's I/O buffers are allocated (fio's `iomem`) and how io_uring
//! is set up (fio's io_uring engine options), and what the buffers turned
//! out to be, which is recorded with the job's result.
//!
//! The buffers matter to a benchmark: a 1 MiB direct I/O from 4 KiB pages
//! is 256 scattered segments, which a device with a segment limit splits,
//! while from a huge page it is one. So the result says how much of the
//! buffers really was huge pages, rather than assuming the kernel obliged.

use serde::{Deserialize, Serialize};

/// fio's `iomem`/`mem`: where the I/O buffers come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IoMem {
    /// Not given: diskbench's own choice, transparent huge pages for large
    /// buffers (see the engine's `buffers` module), the heap for small ones.
    #[default]
    Default,
    /// The heap, in plain pages (fio's default).
    Malloc,
    /// A SysV shared memory segment.
    Shm,
    /// A SysV segment of hugetlbfs pages (needs `/proc/sys/vm/nr_hugepages`).
    ShmHuge,
    /// A private anonymous mapping, in plain pages.
    Mmap,
    /// A private anonymous mapping of hugetlbfs pages (needs `nr_hugepages`).
    MmapHuge,
    /// A shared anonymous mapping, in plain pages.
    MmapShared,
}

impl IoMem {
    /// The names fio accepts (`default` is diskbench's, never given).
    pub const FIO_NAMES: [&'static str; 6] =
        ["malloc", "shm", "shmhuge", "mmap", "mmaphuge", "mmapshared"];

    pub fn parse(text: &str) -> Option<IoMem> {
        Some(match text {
            "malloc" => IoMem::Malloc,
            "shm" => IoMem::Shm,
            "shmhuge" => IoMem::ShmHuge,
            "mmap" => IoMem::Mmap,
            "mmaphuge" => IoMem::MmapHuge,
            "mmapshared" => IoMem::MmapShared,
            _ => return None,
        })
    }

    pub fn fio_name(self) -> &'static str {
        match self {
            IoMem::Default => "default",
            IoMem::Malloc => "malloc",
            IoMem::Shm => "shm",
            IoMem::ShmHuge => "shmhuge",
            IoMem::Mmap => "mmap",
            IoMem::MmapHuge => "mmaphuge",
            IoMem::MmapShared => "mmapshared",
        }
    }
}

/// fio's io_uring options. `None` is "not given": diskbench's defaults,
/// which differ from fio's for the registrations (diskbench registers
/// buffers and files whenever the kernel allows; fio only when asked). A
/// given value is kept as given, so a job that names one of these with
/// another engine can be refused by name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct UringOptions {
    /// `fixedbufs`: register the buffers with the ring.
    pub fixedbufs: Option<bool>,
    /// `registerfiles`: register the files with the ring.
    pub registerfiles: Option<bool>,
    /// `sqthread_poll`: a kernel thread submits (IORING_SETUP_SQPOLL).
    pub sqthread_poll: Option<bool>,
    /// `sqthread_poll_cpu`: the CPU that thread runs on.
    pub sqthread_poll_cpu: Option<u32>,
    /// `hipri`: polled completions (IORING_SETUP_IOPOLL; RWF_HIPRI with pvsync2).
    pub hipri: Option<bool>,
    /// `uncached` (pvsync2): RWF_DONTCACHE, buffered I/O that leaves the
    /// page cache once done.
    #[serde(default)]
    pub uncached: Option<bool>,
    /// `atomic` (pvsync2, libaio, io_uring): each write with RWF_ATOMIC
    /// (torn-write protection), which the file or device must support for
    /// the job's block size.
    #[serde(default)]
    pub atomic: Option<bool>,
}

impl UringOptions {
    pub fn fixed_buffers(&self) -> bool {
        self.fixedbufs.unwrap_or(true)
    }
    pub fn register_files(&self) -> bool {
        self.registerfiles.unwrap_or(true)
    }
    pub fn sqpoll(&self) -> bool {
        self.sqthread_poll.unwrap_or(false)
    }
    pub fn iopoll(&self) -> bool {
        self.hipri.unwrap_or(false)
    }
    pub fn atomic(&self) -> bool {
        self.atomic.unwrap_or(false)
    }
    /// The first option given, for refusing them with another engine.
    pub fn first_given(&self) -> Option<&'static str> {
        [
            ("fixedbufs", self.fixedbufs.is_some()),
            ("registerfiles", self.registerfiles.is_some()),
            ("sqthread_poll", self.sqthread_poll.is_some()),
            ("sqthread_poll_cpu", self.sqthread_poll_cpu.is_some()),
            ("hipri", self.hipri.is_some()),
        ]
        .into_iter()
        .find_map(|(name, given)| given.then_some(name))
    }
}

/// What backs a pool of buffers, as allocated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    #[default]
    Heap,
    /// Private anonymous mapping, no huge pages asked for.
    Mmap,
    /// Private anonymous mapping asked for transparent huge pages.
    MmapThp,
    /// Private anonymous mapping of hugetlbfs pages.
    MmapHugetlb,
    /// Shared anonymous mapping.
    MmapShared,
    /// SysV shared memory.
    Shm,
    /// SysV shared memory of hugetlbfs pages.
    ShmHugetlb,
}

impl MemoryKind {
    pub fn name(self) -> &'static str {
        match self {
            MemoryKind::Heap => "heap",
            MemoryKind::Mmap => "mmap",
            MemoryKind::MmapThp => "mmap_thp",
            MemoryKind::MmapHugetlb => "mmap_hugetlb",
            MemoryKind::MmapShared => "mmap_shared",
            MemoryKind::Shm => "shm",
            MemoryKind::ShmHugetlb => "shm_hugetlb",
        }
    }
}

/// A job's buffers as they turned out: measured once they were filled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BufferMemory {
    /// What was asked for.
    pub iomem: IoMem,
    pub kind: MemoryKind,
    /// Bytes of buffer memory (summed over the job's clones).
    pub bytes: u64,
    /// How many of them are backed by huge pages (transparent or hugetlbfs).
    pub huge_page_bytes: u64,
}

impl BufferMemory {
    /// Adds another clone's buffers.
    pub fn add(&mut self, other: &BufferMemory) {
        if self.bytes == 0 {
            self.iomem = other.iomem;
            self.kind = other.kind;
        }
        self.bytes += other.bytes;
        self.huge_page_bytes += other.huge_page_bytes;
    }
}
