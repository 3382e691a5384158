# origin: the 2014 EBS benchmark, "EBS performance with fio" (its five command lines: read, write, randread, randwrite, randrw 70/30)
# 4 KiB at queue depth 4 with libaio, as the article runs them (its
# "libio" typo fixed).
--name=read --rw=read --bs=4k --iodepth=4 --ioengine=libaio
--name=write --rw=write --bs=4k --iodepth=4 --ioengine=libaio
--name=randread --rw=randread --bs=4k --iodepth=4 --ioengine=libaio
--name=randwrite --rw=randwrite --bs=4k --iodepth=4 --ioengine=libaio
--name=randrw-70 --rw=randrw --rwmixread=70 --bs=4k --iodepth=4 --ioengine=libaio
