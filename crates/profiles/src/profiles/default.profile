# origin: diskbench's own suite, reporting the three headline figures of Brian Cunnie's 2018 benchmark of cloud disks (IOPS, Read MB/s, Write MB/s)
# source: Benchmarking the Disk Speed of IaaSes | Brian Cunnie, Pivotal Engineering Journal | 2018 | http://engineering.pivotal.io/post/gobonniego_results/
# The default suite of `diskbench run`: one line per test, in fio's
# command-line form. Every test runs on the same file, with direct I/O and
# io_uring; `diskbench run` adds size, runtime, ramp and the file itself.
# The names are what the summary table and the headline figures look up.
--name=seq-read-1m-qd8 --rw=read --bs=1m --iodepth=8
--name=seq-write-1m-qd8 --rw=write --bs=1m --iodepth=8
--name=rand-read-4k-qd32 --rw=randread --bs=4k --iodepth=32
--name=rand-write-4k-qd32 --rw=randwrite --bs=4k --iodepth=32
--name=rand-read-4k-qd1 --rw=randread --bs=4k --iodepth=1
--name=rand-write-4k-qd1 --rw=randwrite --bs=4k --iodepth=1
--name=mixed-4k-qd32 --rw=randrw --rwmixread=75 --bs=4k --iodepth=32
