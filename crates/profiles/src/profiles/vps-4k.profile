# origin: a comparison of AWS and DigitalOcean VPS disks with fio and ioping (its three fio tests, then ioping -c 10)
# source: IOPS: Benchmarking Disk I/O – AWS vs DigitalOcean | Christopher Sam K, DZone | 2016 | https://dzone.com/articles/iops-benchmarking-disk-io-aws-vs-digitalocean
# ioping -c 10 at its 1 s interval takes 9 s whatever --runtime says; here
# the ten requests are spread over the runtime (-i a tenth of it) and -w
# ends them at the runtime.
# 4 KiB at queue depth 64 with libaio, as the article runs them (its
# typographic dashes fixed); gtod_reduce is carried out by measuring anyway.
--name=randrw-75 --rw=randrw --rwmixread=75 --bs=4k --iodepth=64 --ioengine=libaio --randrepeat=1 --gtod_reduce=1
--name=randread --rw=randread --bs=4k --iodepth=64 --ioengine=libaio --randrepeat=1 --gtod_reduce=1
--name=randwrite --rw=randwrite --bs=4k --iodepth=64 --ioengine=libaio --randrepeat=1 --gtod_reduce=1
ping -c 10 -i {runtime/10} -w {runtime} {dir}
