# origin: CrystalDiskMark's default tests (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1; read and write each)
# source: CrystalDiskMark 8 | hiyohiyo, Crystal Dew World (crystalmark.info) | 2020 | https://crystalmark.info/en/software/crystaldiskmark/
# CrystalDiskMark runs each test five times and shows the best pass; so
# does this profile (--passes changes the count). The names are read back
# for the grid: ROW-read and ROW-write, ROW as CrystalDiskMark labels it.
# passes: 5
--name=SEQ1M-Q8T1-read --rw=read --bs=1m --iodepth=8
--name=SEQ1M-Q8T1-write --rw=write --bs=1m --iodepth=8
--name=SEQ1M-Q1T1-read --rw=read --bs=1m --iodepth=1
--name=SEQ1M-Q1T1-write --rw=write --bs=1m --iodepth=1
--name=RND4K-Q32T1-read --rw=randread --bs=4k --iodepth=32
--name=RND4K-Q32T1-write --rw=randwrite --bs=4k --iodepth=32
--name=RND4K-Q1T1-read --rw=randread --bs=4k --iodepth=1
--name=RND4K-Q1T1-write --rw=randwrite --bs=4k --iodepth=1
