use super::*;

use super::rng::Rng;

/// The test's own draws from the generator.
impl Rng {
    /// Exponential with mean 1: skewed, as latencies are.
    fn exponential(&mut self) -> f64 {
        -self.uniform().ln()
    }
    /// `n` exponential samples, shifted by `shift`.
    fn sample(&mut self, n: usize, shift: f64) -> Vec<f64> {
        (0..n).map(|_| self.exponential() + shift).collect()
    }
}

/// The share of `trials` experiments for which `event` holds.
fn share(trials: usize, mut event: impl FnMut() -> bool) -> f64 {
    (0..trials).filter(|_| event()).count() as f64 / trials as f64
}

#[test]
fn median_and_range_of_known_figures() {
    let s = Summary::of(&[3.0, 1.0, 2.0, 10.0]).unwrap();
    assert_eq!((s.n, s.median, s.min, s.max), (4, 2.5, 1.0, 10.0));
    assert!((s.range_pct() - 360.0).abs() < 1e-9);
    assert_eq!(s.interval, None, "four repeats are too few");
    assert!(s.text(0).contains("too few"), "{}", s.text(0));
    assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
    assert_eq!(median(&[]), None);
    assert_eq!(Summary::of(&[1.0, f64::NAN]), None);
}

#[test]
fn the_interval_brackets_the_median_and_narrows_with_more_repeats() {
    let ten: Vec<f64> = (1..=10).map(f64::from).collect();
    let (lo, hi) = median_interval(&ten).unwrap();
    assert!(lo < 5.5 && hi > 5.5 && lo >= 1.0 && hi <= 10.0, "{lo} {hi}");
    let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
    let (lo100, hi100) = median_interval(&hundred).unwrap();
    // For n = 100 the exact bracket is about the 40th and 61st values.
    assert!((38.0..=42.0).contains(&lo100) && (59.0..=63.0).contains(&hi100));
    assert!(median_interval(&[1.0; 5]).is_none());
    assert_eq!(median_interval(&[7.0; 6]), Some((7.0, 7.0)));
}

#[test]
fn the_binomial_is_right() {
    assert!((binomial_half_cdf(10, 1) - 11.0 / 1024.0).abs() < 1e-12);
    assert!((binomial_half_cdf(10, 10) - 1.0).abs() < 1e-12);
    assert!((bracket_coverage(6, 1) - (1.0 - 2.0 / 64.0)).abs() < 1e-12);
}

/// The point of the interval: in repeated experiments it contains the true
/// median 95% of the time, whatever the distribution. Exponential samples
/// (true median ln 2) of several sizes, 4000 experiments each.
#[test]
fn the_interval_covers_the_true_median_95_percent_of_the_time() {
    let truth = std::f64::consts::LN_2;
    let mut rng = Rng::new(17);
    for n in [6, 9, 10, 15, 20, 30, 60] {
        let coverage = share(4000, || {
            let (lo, hi) = median_interval(&rng.sample(n, 0.0)).unwrap();
            lo <= truth && truth <= hi
        });
        println!("n = {n}: covered {:.1}%", coverage * 100.0);
        assert!(
            (0.93..=0.97).contains(&coverage),
            "n = {n}: the interval covered the median {:.1}% of the time",
            coverage * 100.0
        );
    }
}

#[test]
fn the_rank_test_finds_a_real_difference() {
    let a: Vec<f64> = (0..10).map(|i| 100.0 + f64::from(i)).collect();
    let b: Vec<f64> = (0..10).map(|i| 120.0 + f64::from(i)).collect();
    let t = rank_test(&a, &b).unwrap();
    assert!(t.exact && t.u == 0.0 && t.differs(), "{t:?}");
    // All 20 values apart: p = 2 / C(20, 10).
    assert!((t.p_value - 2.0 / 184_756.0).abs() < 1e-12, "{t:?}");
    let same = rank_test(&a, &a).unwrap();
    assert!(!same.exact && !same.differs(), "ties: {same:?}");
    assert!(rank_test(&a, &[]).is_none());
    let flat = rank_test(&[1.0; 4], &[1.0; 4]).unwrap();
    assert_eq!(flat.p_value, 1.0);
}

/// With 2 runs against 2 no ordering reaches the 5% level: a tenfold
/// difference is "too few runs to tell", never "within the noise"; 4
/// against 4 is the smallest pair of equal groups that can differ, and
/// a test that could have differed and did not is within the noise.
#[test]
fn groups_too_small_to_reach_the_level_say_so() {
    let t = rank_test(&[27_256.0, 27_900.0], &[315_890.0, 320_000.0]).unwrap();
    assert!(!t.differs(), "{t:?}");
    assert!((t.p_value - smallest_p_value(2, 2)).abs() < 1e-12, "{t:?}");
    assert_eq!(t.verdict(), RankVerdict::TooFew { n_a: 2, n_b: 2 });
    assert_eq!(min_runs_per_group(), 4);
    assert!(!rank_test_can_reach(3, 3) && !rank_test_can_reach(3, 4));
    assert!(rank_test_can_reach(4, 4) && rank_test_can_reach(2, 8));
    assert_eq!(other_group_needs(2), Some(8));
    assert_eq!(other_group_needs(4), Some(4));
    let apart = rank_test(&[1.0, 2.0, 3.0, 4.0], &[10.0, 11.0, 12.0, 13.0]).unwrap();
    assert_eq!(apart.verdict(), RankVerdict::Differ);
    assert!((apart.p_value - smallest_p_value(4, 4)).abs() < 1e-12);
    let mixed = rank_test(&[1.0, 3.0, 5.0, 7.0], &[2.0, 4.0, 6.0, 8.0]).unwrap();
    assert_eq!(mixed.verdict(), RankVerdict::WithinNoise);
}

/// Two groups from one distribution: the test must call them different at
/// most 5% of the time (its level), for small groups (exact) and large ones
/// (normal approximation).
#[test]
fn the_rank_test_false_positive_rate_is_at_most_its_level() {
    let mut rng = Rng::new(4000);
    for (n1, n2) in [(5, 5), (8, 12), (10, 10), (40, 40)] {
        let rate = share(4000, || {
            let (a, b) = (rng.sample(n1, 0.0), rng.sample(n2, 0.0));
            rank_test(&a, &b).unwrap().differs()
        });
        println!("{n1} vs {n2}: false positives {:.1}%", rate * 100.0);
        assert!(
            (0.02..=0.06).contains(&rate),
            "{n1} vs {n2}: called different {:.1}% of the time",
            rate * 100.0
        );
    }
}

#[test]
fn the_rank_test_has_power_on_a_shift() {
    let mut rng = Rng::new(99);
    let power = share(1000, || {
        let (a, b) = (rng.sample(20, 0.0), rng.sample(20, 1.0));
        rank_test(&a, &b).unwrap().differs()
    });
    assert!(
        power > 0.9,
        "a shift of one mean found {:.1}% of the time",
        power * 100.0
    );
}

#[test]
fn normal_cdf_matches_known_values() {
    assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
    assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
    assert!((normal_cdf(-1.0) - 0.158_655_25).abs() < 1e-6);
}

#[test]
fn intervals_apart_means_a_gap() {
    assert!(intervals_apart((1.0, 2.0), (2.5, 3.0)));
    assert!(!intervals_apart((1.0, 2.6), (2.5, 3.0)));
}
