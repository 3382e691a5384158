# origin: a benchmark of AWS's then new SSD-backed EBS volumes, in Japanese (its five fio command lines: read, write, randread, randwrite, randrw 70/30)
# source: AWS SSDベースEBSのディスクベンチマーク (AWS SSD-backed EBS disk benchmark) | the blog of inaba-serverdesign.jp | 2014 | https://inaba-serverdesign.jp/blog/20140618/aws_ssd_ebs_disk_benchmark.html
# 4 KiB at queue depth 4 with libaio, as the article runs them (its
# "libio" typo fixed).
--name=read --rw=read --bs=4k --iodepth=4 --ioengine=libaio
--name=write --rw=write --bs=4k --iodepth=4 --ioengine=libaio
--name=randread --rw=randread --bs=4k --iodepth=4 --ioengine=libaio
--name=randwrite --rw=randwrite --bs=4k --iodepth=4 --ioengine=libaio
--name=randrw-70 --rw=randrw --rwmixread=70 --bs=4k --iodepth=4 --ioengine=libaio
