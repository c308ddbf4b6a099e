//! # agghoo
//!
//! Honest, fast model evaluation and model selection: aggregated hold-out (Agghoo, Majhoo) and
//! every procedure it is compared with, risk estimation with standard errors, TreeCV for
//! incremental learners, and feature selection done inside the folds.
//!
//! The crate mirrors the pipeline a user's data goes through:
//!
//! ```text
//! data ──► resample (plans → splits) ──► family (fit a whole path per split) ──► estimate / select ──► report / model
//! ```
//!
//! ## API themes
//! - **plan → [`Splits`](resample::Splits)**: a [`Plan`](resample::Plan) is a recipe; instantiated
//!   with a [`Seed`] it gives concrete index sets, reused across procedures and saved as JSON.
//! - **family → path predictions**: a [`Family`](family::Family) evaluates every grid point of
//!   one training set at once ([`Family::fit_path`](family::Family::fit_path)).
//! - **procedure → model + report**: [`select::select`] returns a [`select::FittedModel`]
//!   (saveable, versioned) and a [`select::Report`] (per-split choices, risk curves).
//! - **fallible → `Result<_, Error>`**: bad input is a typed [`Error`] naming the culprit; the
//!   library never panics on user input.
//!
//! Exact definitions of every procedure: `docs/PROCEDURES.md`; where each of its terms lives in
//! the code, and its tests: `docs/spec-map.md`.
//!
//! ```
//! use agghoo::{Seed, data::generators, family, resample::{MonteCarlo, PlanContext, Plan}};
//! use agghoo::select::{self, Method, SelectConfig};
//!
//! let data = generators::knn_problem(300, Seed(1))?;
//! let fam = family::build(family::FamilyKind::Knn, &family::FamilyParams::with_grid(family::GridSpec::parse("1:49:2")?), &data)?;
//! let splits = Plan::MonteCarlo(MonteCarlo::new(10, 0.8)?).instantiate(&PlanContext::of(&data), Seed(2))?;
//! let (model, report) = select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Majhoo))?;
//! assert_eq!(model.members().len(), 10);
//! assert_eq!(report.splits.len(), 10);
//! # Ok::<(), agghoo::Error>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod data;
pub mod engine;
mod error;
pub mod estimate;
pub mod experiments;
pub mod family;
pub mod features;
pub mod incremental;
mod json_file;
pub mod limits;
pub mod loss;
pub mod names;
mod par;
mod predictions;
pub mod resample;
mod seed;
pub mod select;
pub mod spec;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod treecv;

pub use error::{Error, ErrorKind, Result, one_line};
pub use loss::Loss;
pub use par::Par;
pub use predictions::{PathPredictions, Predictions};
pub use seed::{Purpose, Seed};
