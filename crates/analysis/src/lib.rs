//! Reading a performance history: did the disk fall off a cliff (a cloud
//! disk running out of burst credits), and did it reach a steady state?
//!
//! Pure functions over plain numbers, so the same code reads a run's
//! per-second series and a soak's per-run figures, and the tests can feed
//! it exact synthetic shapes.

pub mod cliff;
pub mod steady;

pub use cliff::{find_cliff, Cliff, CliffRules, Sample};
pub use steady::{steady_state, SteadyRules, SteadyState};
