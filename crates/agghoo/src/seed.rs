//! One user seed → one independent random stream per unit of work.
//!
//! Streams are derived by the unit's index (split number, tree number, ...), never by the order in
//! which threads finish, so results are bit-identical for any thread count. ChaCha8 supports 2^64
//! independent streams per key, which is exactly this need.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The user-visible seed from which every random choice flows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Seed(pub u64);

/// What a random stream is used for; keeps streams of different purposes apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    /// Drawing splits of a plan.
    Splits = 1,
    /// Randomness inside a learner (forest bootstraps, SGD order, ...).
    Learner = 2,
    /// Generating synthetic data.
    Data = 3,
    /// Bootstrap resampling for risk estimation.
    Bootstrap = 4,
    /// Outer loops of experiments (repetitions).
    Experiment = 5,
    /// Inner plans of nested procedures.
    Inner = 6,
}

impl Seed {
    /// The random generator of unit `index` for `purpose`.
    ///
    /// ```
    /// use agghoo::{Seed, Purpose};
    /// use rand::RngExt;
    /// let a: u64 = Seed(1).rng(Purpose::Splits, 3).random();
    /// let b: u64 = Seed(1).rng(Purpose::Splits, 3).random();
    /// let c: u64 = Seed(1).rng(Purpose::Splits, 4).random();
    /// assert_eq!(a, b);
    /// assert_ne!(a, c);
    /// ```
    pub fn rng(self, purpose: Purpose, index: u64) -> ChaCha8Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(self.0 ^ (purpose as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        rng.set_stream(index);
        rng
    }

    /// A child seed for a sub-procedure (an inner plan, a repetition), derived by index.
    pub fn child(self, purpose: Purpose, index: u64) -> Seed {
        use rand::Rng;
        Seed(self.rng(purpose, index).next_u64())
    }
}
