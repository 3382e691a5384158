//! fio engines and modes that need something this kind of machine does not
//! have (a network peer, a cluster, a GPU, persistent memory, a zoned or
//! NVMe passthrough device, a library diskbench does not link), and the
//! message that names it.
//!
//! fio's job files for these engines carry engine options (`hostname`,
//! `http_verbose`, `pool`, ...) anywhere, often above the `ioengine=` line,
//! so a job file is scanned for these engines before its options are read:
//! the first error then says what is missing, not that some option of that
//! engine is unknown.

use crate::error::{FioError, Origin};

/// fio engines that need what diskbench cannot give them, with what they need.
const ENGINES: &[(&str, &str)] = &[
    (
        "rdma",
        "an RDMA network adapter (InfiniBand, RoCE or iWARP), libibverbs and a peer",
    ),
    ("net", "a network peer running fio's net engine"),
    ("netsplice", "a network peer running fio's net engine"),
    ("http", "an HTTP, S3, Swift or WebDAV server and libcurl"),
    ("nfs", "an NFS server and libnfs"),
    (
        "libhdfs",
        "a Hadoop HDFS cluster and libhdfs (with a Java runtime)",
    ),
    ("rados", "a Ceph cluster and librados"),
    ("rbd", "a Ceph cluster and librbd"),
    ("gfapi", "a GlusterFS volume and libgfapi"),
    ("gfapi_async", "a GlusterFS volume and libgfapi"),
    ("libiscsi", "an iSCSI target and libiscsi"),
    ("nbd", "an NBD server and libnbd"),
    ("dfs", "a DAOS pool and libdfs"),
    ("xnvme", "an NVMe device and the xNVMe library"),
    (
        "libblkio",
        "libblkio and a virtio-blk, vhost-user or vDPA device",
    ),
    (
        "libcufile",
        "an NVIDIA GPU with GPUDirect Storage (libcufile)",
    ),
    ("libhipfile", "an AMD GPU with hipFile"),
    (
        "dev-dax",
        "a DAX character device (/dev/daxN.M: persistent memory) and libpmem",
    ),
    (
        "libpmem",
        "persistent memory on a DAX filesystem and libpmem",
    ),
    ("pmemblk", "persistent memory and libpmemblk"),
    ("libzbc", "a zoned (SMR) SCSI or ATA disk and libzbc"),
    (
        "io_uring_cmd",
        "an NVMe generic character device (/dev/ngXnY) for passthrough commands",
    ),
    ("sg", "a SCSI generic device (/dev/sgN)"),
    ("mtd", "an MTD flash device (/dev/mtdN) and libmtd"),
    (
        "ime_psync",
        "DDN's Infinite Memory Engine and its client library",
    ),
    (
        "ime_psyncv",
        "DDN's Infinite Memory Engine and its client library",
    ),
    (
        "ime_aio",
        "DDN's Infinite Memory Engine and its client library",
    ),
    (
        "cpp_null",
        "fio's C++ example engine, an external library built with fio",
    ),
];

/// What fio's engine `name` needs that diskbench does not have, if anything.
pub(crate) fn engine_needs(name: &str) -> Option<&'static str> {
    ENGINES
        .iter()
        .find(|(e, _)| *e == name)
        .map(|(_, need)| *need)
}

/// The error for an engine of [`ENGINES`].
pub(crate) fn engine_error(name: &str, need: &str) -> FioError {
    FioError::NeedsMissing {
        what: format!("ioengine={name}"),
        need: need.to_string(),
    }
}

/// `zonemode=zbd`: writes that follow each zone's write pointer.
const ZONED_DEVICE: &str = "a zoned block device (host-managed or host-aware SMR, or NVMe ZNS; \
     /sys/block/DEV/queue/zoned other than 'none')";

/// The first line of a job file that names something of [`ENGINES`] or
/// `zonemode=zbd`, as an error located there.
pub(crate) fn scan(shown: &str, text: &str) -> Option<FioError> {
    text.lines().enumerate().find_map(|(i, line)| {
        let (name, value) = line.split_once('=')?;
        let value = value.split([';', '#']).next().unwrap_or("").trim();
        let error = match name.trim() {
            "ioengine" => engine_error(value, engine_needs(value)?),
            "zonemode" if value == "zbd" => FioError::NeedsMissing {
                what: "zonemode=zbd".to_string(),
                need: ZONED_DEVICE.to_string(),
            },
            _ => return None,
        };
        let at = Origin {
            file: shown.to_string(),
            line: i + 1,
        };
        Some(error.located(Some(&at)))
    })
}
