# origin: CrystalDiskMark's default tests (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1; read and write each)
--name=SEQ1M-Q8T1-read --rw=read --bs=1m --iodepth=8
--name=SEQ1M-Q8T1-write --rw=write --bs=1m --iodepth=8
--name=SEQ1M-Q1T1-read --rw=read --bs=1m --iodepth=1
--name=SEQ1M-Q1T1-write --rw=write --bs=1m --iodepth=1
--name=RND4K-Q32T1-read --rw=randread --bs=4k --iodepth=32
--name=RND4K-Q32T1-write --rw=randwrite --bs=4k --iodepth=32
--name=RND4K-Q1T1-read --rw=randread --bs=4k --iodepth=1
--name=RND4K-Q1T1-write --rw=randwrite --bs=4k --iodepth=1
