# origin: the IaaS disk-speed study, GoBonnieGo (sequential write, read and 512-byte IOPS, run as `diskbench gobonniego`)
# --size is given to GoBonnieGo's -size in GiB (default here 1), --runtime
# to its -iops-duration.
gobonniego -dir {dir} -size {size_gib} -iops-duration {runtime_s}
