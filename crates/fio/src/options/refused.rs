//! The names fio has that diskbench knows but does not carry out yet: they
//! are refused by name ("a fio option diskbench does not carry out yet"),
//! never taken for a typo and never silently ignored.

/// fio's own command-line options (not job options) that diskbench does not
/// carry out yet.
pub(crate) static FIO_CLI_NOT_CARRIED_OUT: &[&str] = &[
    "help",
    "cpuclock-test",
    "crctest",
    "readonly",
    "server",
    "daemonize",
    "client",
    "remote-config",
    "idle-prof",
    "trigger-remote",
];

/// fio's job options (and engine options) that diskbench knows of but does
/// not carry out yet.
#[rustfmt::skip]
pub(crate) static NOT_CARRIED_OUT: &[&str] = &[
    // Newer fio's (3.36+) and its engines' options, named in its examples.
    "apptag", "apptag_mask", "brick", "dataplacement", "fdp", "fdp_pli", "fdp_pli_select",
    "libblkio_driver", "libblkio_path",
    "md_per_io_size", "pi_act", "pi_chk", "plids", "volume",
    "allow_mounted_write", "arguments",
    "bindname", "block", "block_error_percentiles",
    "busy_poll",
    "busy_wait_polling", "bwavgtime", "cgroup", "cgroup_nodelete", "cgroup_weight", "chunk_size",
    "clientname", "clocksource", "clustername", "cmd_type",
    "conf", "cont",
    "cpumask",
    "create_fsync", "cuda_io",
    "device-names", "dir", "direct_write_to_pmem", "disable_bw",
    "disable_bw_measurement", "disable_clat", "disable_lat", "disable_slat", "disk_util",
    "donorname", "exec_postrun", "exec_prerun",
    "file_append",
    "force_async", "gid",
    "gpu_dev_ids", "grace_time", "gtod_cpu", "hdfsdirectory",
    "hipri_percentage", "hostname", "http_host", "http_mode", "http_pass", "http_s3_key",
    "http_s3_keyid", "http_s3_region", "http_s3_sse_customer_algorithm",
    "http_s3_sse_customer_key", "http_s3_storage_class", "http_swift_auth_token", "http_user",
    "http_verbose", "https", "hugepage-size", "ignore_zone_limits", "inplace",
    "interface",
   
    "iomem_align", "iopsavgtime", "ioscheduler",
    "job_max_open_zones", "large-block-op-kbytes", 
    "listen", "load",
    "lockfile", "lockmem", "log_alternate_epoch", "log_alternate_epoch_clock_id",
    "log_compression_cpus", "log_entries",
    "log_unix_epoch",
    "max_latency", "max_open_zones", "mem_align",
    "mss", "namenode", "nfs_url",
    "nice", "nodelay", "nonvectored", "nowait",
    "numruns", "object_class", "offset_align",
    "opendir", "overwrite",
    "pingpong", "pool", "port", "pre_read", "prep",
    "profile", "program", "proto", "protocol",
   
    "rbdname", "read-req-num-512-blocks", "read_beyond_wp",
    "read_iolog_chunked", "readfua",
    "rw_sequencer", "serverip", "sg_write_mode",
    "significant_figures", "skip_bad", "softrandommap", "stats",
    "std_redirect",
    "stream_id", "test-duration", "thp",
    "threads-per-queue", "touch_objects", "trim_backlog", "trim_backlog_batch", "trim_percentage",
    "trim_verify_zero", "ttl", "uid", "unique_filename",
    "uri", "userspace_reap", "verb",
    "window_size", "write_barrier",
    "write_hint",
    "writefua", "xnvme_admin", "xnvme_async", "xnvme_dev_nsid", "xnvme_iovec",
    "xnvme_sync", "zone_reset_frequency", "zone_reset_threshold",
    "zonecapacity", 
];
