# origin: "Adventures in Storageland", "fio benchmarks for MySQL" (its three job sections: 16 KiB, InnoDB's page size)
# The article's files are 5-40 GiB per job and run 300 s each; `run` shortens
# them with --size and --runtime. Its 8 processes share diskbench's one test
# file here (fio gave each its own 5 GiB file).
--name=seq-read --rw=read --bs=16k --numjobs=1 --ioengine=libaio --fadvise_hint=0
--name=random-write --rw=randwrite --bs=16k --numjobs=8 --ioengine=libaio --fadvise_hint=0 --group_reporting
--name=read-write --rw=rw --rwmixread=80 --bs=16k --numjobs=8 --ioengine=libaio --fadvise_hint=0 --group_reporting
