//! Reading measurements: did the disk fall off a cliff (a cloud disk running
//! out of burst credits), did it reach a steady state, where does its
//! saturation curve bend, and how sure is a repeated figure?
//!
//! Pure functions over plain numbers, so the same code reads a run's
//! per-second series, a soak's per-run figures and a sweep's points, and
//! the tests can feed it exact synthetic shapes.

pub mod cliff;
pub mod curve;
pub mod stats;
pub mod steady;

pub use cliff::{find_cliff, Cliff, CliffRules, Sample};
pub use curve::{judge_curve, CurvePoint, CurveVerdict, KneeRules};
pub use stats::{median_interval, rank_test, RankTest, RankVerdict, Summary};
pub use steady::{steady_state, SteadyRules, SteadyState};
