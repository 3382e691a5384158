# origin: Kristian Köhntopp's fio jobs for a MySQL-like load on server SSDs (its three job sections: 16 KiB, InnoDB's page size)
# source: Adventures in Storageland | Kristian Köhntopp, blog.koehntopp.info | 2019 | https://blog.koehntopp.info/2019/06/13/adventures-in-storageland.html
# The article's files are 5-40 GiB per job and run 300 s each; `run` shortens
# them with --size and --runtime. Its 8 processes share diskbench's one test
# file here (fio gave each its own 5 GiB file).
--name=seq-read --rw=read --bs=16k --numjobs=1 --ioengine=libaio --fadvise_hint=0
--name=random-write --rw=randwrite --bs=16k --numjobs=8 --ioengine=libaio --fadvise_hint=0 --group_reporting
--name=read-write --rw=rw --rwmixread=80 --bs=16k --numjobs=8 --ioengine=libaio --fadvise_hint=0 --group_reporting
