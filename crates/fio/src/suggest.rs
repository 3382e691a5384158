//! "did you mean ...?" for misspelt option names and values.
//!
//! fio answers a typo with a bare "bad option"; a suggestion turns the most
//! common usage error (`--iodpeth=4`) into a one-glance fix. The distance is
//! optimal string alignment (Levenshtein plus swaps of neighbours), because
//! swapped letters are the typical typing slip.

/// The candidate closest to `word`, if it is close enough to be a plausible
/// typo: at most one edit for short words, up to three for long ones. Ties
/// go to the earlier candidate.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    // Names are short; anything long is not a typo of one, and this keeps the
    // quadratic distance cheap on hostile input.
    if word.is_empty() || word.len() > 64 {
        return None;
    }
    let limit = (word.chars().count() / 3).clamp(1, 3);
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        let d = distance(word, candidate);
        let better = match best {
            None => true,
            Some((b, _)) => d < b,
        };
        if d <= limit && better {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Optimal string alignment distance between `a` and `b` (case-insensitive).
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    // Three rows: two back (for swaps), one back, current.
    let mut prev2: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(prev2[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("iodepth", "iodepth"), 0);
        assert_eq!(distance("iodpeth", "iodepth"), 1);
        assert_eq!(distance("iodept", "iodepth"), 1);
        assert_eq!(distance("", "bs"), 2);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn suggestions() {
        let names = ["iodepth", "ioengine", "bs", "size"];
        assert_eq!(closest("iodpeth", names), Some("iodepth"));
        assert_eq!(closest("ioengin", names), Some("ioengine"));
        assert_eq!(closest("bz", names), Some("bs"));
        assert_eq!(closest("frobnicate", names), None);
        assert_eq!(closest("", names), None);
    }
}
