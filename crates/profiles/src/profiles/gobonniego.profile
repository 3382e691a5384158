# origin: GoBonnieGo as Brian Cunnie ran it to benchmark the disks of AWS, Azure, GCE and vSphere (sequential write, read and 512-byte IOPS, run as `diskbench gobonniego`)
# source: Benchmarking the Disk Speed of IaaSes | Brian Cunnie, Pivotal Engineering Journal | 2018 | http://engineering.pivotal.io/post/gobonniego_results/
# --size is given to GoBonnieGo's -size in GiB (default here 1), --runtime
# to its -iops-duration.
gobonniego -dir {dir} -size {size_gib} -iops-duration {runtime_s}
