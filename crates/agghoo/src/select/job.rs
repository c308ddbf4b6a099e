//! A selection procedure as a [`Job`]: its splits evaluated anywhere, concluded once.

use serde::{Deserialize, Serialize};

use super::config::SelectConfig;
use super::model_file::FittedModel;
use super::report::Report;
use super::run::{conclude, evaluation_options, evaluation_splits};
use crate::data::Dataset;
use crate::engine::{EvalOptions, Executor, Job, Sequential, SplitOutcome, check_evaluation, evaluate_units};
use crate::error::{Error, Result};
use crate::family::{Family, FamilySpec};
use crate::resample::Splits;

/// Everything a worker needs to evaluate any split of a selection procedure: the family spec
/// (rebuilt on the data by [`FamilySpec::build_for`], a pure function of spec and data), the procedure
/// and the instantiated splits it evaluates. Its units are those splits; assembling them is
/// [`conclude`](super::conclude), so `engine::run(&job, …)` equals [`select`](super::select).
///
/// ```
/// use agghoo::{Seed, data::generators, engine::{self, Job, Rayon, Sequential}};
/// use agghoo::family::{FamilySpec, GridSpec, knn::KnnConfig};
/// use agghoo::resample::{MonteCarlo, Plan, PlanContext};
/// use agghoo::select::{Method, SelectConfig, SelectJob};
///
/// let data = generators::knn_problem(200, Seed(1))?;
/// let splits = Plan::MonteCarlo(MonteCarlo::new(6, 0.8)?).instantiate(&PlanContext::of(&data), Seed(2))?;
/// let family = FamilySpec::Knn(KnnConfig { grid: Some(GridSpec::parse("1:29:2")?), ..KnnConfig::default() });
/// let job = SelectJob::new(family, SelectConfig::new(Method::Majhoo), &data, &splits)?;
/// // Units may be evaluated in blocks, anywhere (the job and its outcomes are serde values)…
/// let job: SelectJob = serde_json::from_str(&serde_json::to_string(&job).unwrap()).unwrap();
/// let prepared = job.prepare(&data)?;
/// let mut outcomes = job.evaluate(&prepared, &data, &[3, 4, 5], &Sequential)?;
/// outcomes.splice(0..0, job.evaluate(&prepared, &data, &[0, 1, 2], &Rayon)?);
/// let (model, report) = job.assemble(&prepared, &data, outcomes)?;
/// // …and give what one local run gives.
/// let (local_model, local_report) = engine::run(&job, &data, &Rayon)?;
/// assert_eq!(report, local_report);
/// assert_eq!(model, local_model);
/// # Ok::<(), agghoo::Error>(())
/// ```
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SelectJob {
    /// The family (grid, settings).
    pub family: FamilySpec,
    /// The procedure.
    pub config: SelectConfig,
    /// The splits the procedure evaluates ([`evaluation_splits`] of the plan's splits).
    pub units: Splits,
}

/// What every unit of a [`SelectJob`] shares on one process.
pub struct PreparedSelect {
    family: Box<dyn Family>,
    options: EvalOptions,
}

impl SelectJob {
    /// The job of `config` over `family` on `splits` of `data`, checked against the data (the
    /// family is built and every check of the evaluation runs once, here).
    ///
    /// # Errors
    /// As [`select`](super::select) before any fit.
    pub fn new(family: FamilySpec, config: SelectConfig, data: &Dataset, splits: &Splits) -> Result<Self> {
        let units = evaluation_splits(splits, &config)?;
        let job = Self { family, config, units };
        job.prepare(data)?;
        Ok(job)
    }
}

impl Job for SelectJob {
    type Outcome = SplitOutcome;
    type Prepared = PreparedSelect;
    type Output = (FittedModel, Report);

    fn n_units(&self) -> usize {
        self.units.len()
    }

    fn prepare(&self, data: &Dataset) -> Result<PreparedSelect> {
        let options = evaluation_options(&self.config, data)?;
        let family = self.family.build_for(data, &self.config.preprocess)?;
        check_evaluation(family.as_ref(), data, &self.units, &options)?;
        Ok(PreparedSelect { family, options })
    }

    /// One split's evaluation, its kernels on the whole pool ([`Sequential`]'s share): rayon's
    /// work stealing lets a unit's kernel blocks fill the threads the other units leave idle,
    /// where confining them to the unit's share ([`Inner`](crate::engine::Inner)) left a thread
    /// idle at the tail (10 k-NN splits of n = 500 on 2 threads: 6.3 ms against 5.5 ms a process).
    fn evaluate_unit(&self, prepared: &PreparedSelect, data: &Dataset, unit: usize, _: &dyn Executor) -> Result<SplitOutcome> {
        evaluate_units(prepared.family.as_ref(), data, &self.units, &[unit], &prepared.options, &Sequential)?
            .pop()
            .ok_or_else(|| Error::Internal(format!("split {unit} gave no outcome")))
    }

    fn assemble(&self, prepared: &PreparedSelect, data: &Dataset, outcomes: Vec<SplitOutcome>) -> Result<(FittedModel, Report)> {
        conclude(prepared.family.as_ref(), data, &self.units, &self.config, outcomes)
    }
}
