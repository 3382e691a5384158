# origin: bonnie++ on a virtual server and a real one (bonnie++'s block write, rewrite, block read and random seeks, then -n metadata)
# source: Virtual Server vs. Real Server Disk Drive Speed | Cloudscaling's blog, cloudscaling.com | 2009 | http://cloudscaling.com/blog/cloud-computing/virtual-disks/
# bonnie++ writes and reads in 8 KiB chunks through the page cache, and
# seeks with three processes; diskbench keeps the chunks and the three
# seekers but uses direct I/O, so the cache cannot inflate them (the article's
# 325,000 "IOPS" were the cache). The metadata test is bonnie++ -n 16,
# each phase measured for the runtime (at least 500 ms): a phase done sooner
# is repeated over the same files, so none is +++++ (too fast to time).
--name=block-write --rw=write --bs=8k --iodepth=1 --ioengine=psync
--name=rewrite --rw=rw --rwmixread=50 --bs=8k --iodepth=1 --ioengine=psync
--name=block-read --rw=read --bs=8k --iodepth=1 --ioengine=psync
--name=random-seeks --rw=randread --bs=8k --iodepth=1 --numjobs=3 --ioengine=psync --group_reporting
meta -n 16 --runtime {runtime} {dir}
