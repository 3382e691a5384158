//! The files a job serves at one time: fio's `openfiles`, and files of
//! different lengths (`filesize=LOW-HIGH`).
//!
//! fio opens at most `openfiles` files and serves only those; a file that
//! has had its pass is closed and the next one opened (checked with fio
//! 3.33's write_iolog: nrfiles=3, openfiles=2 writes files 0 and 1 in turn,
//! closes both, then writes file 2). Files that are done are skipped the
//! same way when all are open, so a short file is not written twice while a
//! long one still waits (filesize=8k-24k: 0, 1, 0, 1, then 1 alone). When
//! every file had its pass, the next pass opens the first ones again.

use model::job::FileService;

use super::Rng;

#[derive(Clone, Debug)]
pub(crate) struct OpenSet {
    limit: usize,
    files: usize,
    /// The open files, in file order.
    open: Vec<usize>,
    /// The next file to open in this pass.
    next: usize,
}

impl OpenSet {
    pub(crate) fn new(files: usize, limit: usize) -> OpenSet {
        let limit = limit.clamp(1, files.max(1));
        OpenSet {
            limit,
            files,
            open: (0..limit).collect(),
            next: limit,
        }
    }

    pub(crate) fn is_open(&self, file: usize) -> bool {
        self.open.binary_search(&file).is_ok()
    }

    /// The file of the next I/O after one to `current`; `turn`: the
    /// service type's count says to move on (`file_service_type=KIND:N`).
    pub(crate) fn pick(
        &self,
        kind: FileService,
        current: usize,
        turn: bool,
        rng: &mut Rng,
    ) -> usize {
        let open = self.is_open(current);
        match kind {
            FileService::Random if turn || !open => {
                self.open[rng.below(self.open.len() as u64) as usize]
            }
            FileService::RoundRobin if turn || !open => {
                // The first open file after `current`, around the end.
                let at = self.open.partition_point(|&f| f <= current);
                self.open[at % self.open.len()]
            }
            // One file until its pass is done, then the next open one.
            FileService::Sequential if !open => {
                let at = self.open.partition_point(|&f| f <= current);
                self.open[at % self.open.len()]
            }
            _ => current,
        }
    }

    /// The open file at `i`, counting round the open ones: a file drawn by
    /// a skewed `file_service_type` (ranked over all files) folded onto the
    /// files open now.
    pub(crate) fn nth_open(&self, i: usize) -> usize {
        self.open[i % self.open.len()]
    }

    /// `file` had its pass: it is closed and the next file opened; after
    /// the last one, a new pass starts.
    pub(crate) fn done(&mut self, file: usize) {
        if let Ok(at) = self.open.binary_search(&file) {
            self.open.remove(at);
        }
        if self.next < self.files {
            self.open.push(self.next);
            self.next += 1;
        }
        if self.open.is_empty() {
            self.open = (0..self.limit).collect();
            self.next = self.limit;
        }
    }
}

/// Whether a job needs an [`OpenSet`]: fewer files open than it has, or
/// files of different lengths.
pub(crate) fn wanted(spec: &model::JobSpec, regions: &[super::Region]) -> bool {
    let fewer = spec
        .file_options
        .openfiles
        .is_some_and(|n| (n as usize) < regions.len());
    fewer || regions.windows(2).any(|w| w[0].blocks != w[1].blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serve(set: &mut OpenSet, kind: FileService, lens: &[u64], n: usize) -> Vec<usize> {
        let mut rng = Rng::new(1);
        let mut done = vec![0u64; lens.len()];
        let mut current = 0;
        let mut out = Vec::new();
        for i in 0..n {
            current = set.pick(kind, current, i > 0, &mut rng);
            out.push(current);
            done[current] += 1;
            if done[current] == lens[current] {
                done[current] = 0;
                set.done(current);
            }
        }
        out
    }

    #[test]
    fn two_open_of_three_as_fio_does() {
        let mut set = OpenSet::new(3, 2);
        let order = serve(&mut set, FileService::RoundRobin, &[3, 3, 3], 9);
        assert_eq!(order, vec![0, 1, 0, 1, 0, 1, 2, 2, 2]);
    }

    #[test]
    fn a_short_file_is_skipped_once_done() {
        let mut set = OpenSet::new(2, 2);
        let order = serve(&mut set, FileService::RoundRobin, &[2, 3], 5);
        assert_eq!(order, vec![0, 1, 0, 1, 1]);
        // The next pass opens both again.
        assert_eq!(
            serve(&mut set, FileService::RoundRobin, &[2, 3], 2),
            vec![0, 1]
        );
    }

    fn ios(spec: &model::JobSpec, blocks: &[u64], n: usize) -> Vec<(u32, u64)> {
        let regions: Vec<crate::offsets::Region> = blocks
            .iter()
            .map(|&blocks| crate::offsets::Region {
                base: 0,
                blocks,
                block_bytes: 4096,
            })
            .collect();
        let mut gen = crate::offsets::OffsetGen::for_job(spec, &regions, 1);
        assert!(!gen.is_plain());
        (0..n)
            .map(|_| {
                let dir = gen.direction();
                let t = gen.next_for(dir, u64::MAX);
                (t.file, t.offset / 4096)
            })
            .collect()
    }

    #[test]
    fn files_of_different_lengths_each_get_one_whole_pass() {
        let mut spec = model::JobSpec::new("w");
        spec.rw = model::RwMode::RandWrite;
        let mut seen = ios(&spec, &[2, 3, 5], 10);
        seen.sort();
        let every: Vec<(u32, u64)> = [(0, 2), (1, 3), (2, 5)]
            .iter()
            .flat_map(|&(f, n)| (0..n).map(move |b| (f, b)))
            .collect();
        assert_eq!(seen, every);
        // One file open at a time: each in turn, whole.
        spec.rw = model::RwMode::Write;
        spec.file_options.openfiles = Some(1);
        let files: Vec<u32> = ios(&spec, &[2, 2, 2], 6).iter().map(|t| t.0).collect();
        assert_eq!(files, vec![0, 0, 1, 1, 2, 2]);
    }

    #[test]
    fn random_and_sequential_stay_within_the_open_files() {
        let mut set = OpenSet::new(6, 2);
        let order = serve(&mut set, FileService::Random, &[4; 6], 24);
        for (i, f) in order.iter().enumerate() {
            assert!(*f < 2 + i / 4, "file {f} served at {i}: {order:?}");
        }
        let mut set = OpenSet::new(3, 1);
        let order = serve(&mut set, FileService::Sequential, &[2; 3], 6);
        assert_eq!(order, vec![0, 0, 1, 1, 2, 2]);
    }
}
