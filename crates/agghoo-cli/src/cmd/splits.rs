//! `agghoo splits`: instantiate a plan once and save the index sets for reuse.

use agghoo::Seed;
use anyhow::Context;

use agghoo::resample::PlanKind;

use crate::args::SplitsArgs;
use crate::output;
use crate::source;

pub fn run(args: SplitsArgs) -> anyhow::Result<()> {
    let seed = Seed(args.seed);
    let loaded = source::load(&args.data, Some(&args.plan), seed)?;
    let (splits, text) = source::splits(&args.plan, PlanKind::VFold, &loaded, seed)?;
    splits.save(&args.out).context("saving the splits (--out)")?;
    output::print(&format!("{} splits ({text}) of {} rows written to {}", splits.len(), splits.n_rows(), args.out.display()))
}
