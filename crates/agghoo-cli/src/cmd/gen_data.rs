//! `agghoo gen`: write a synthetic data set as CSV.

use std::io::Write;

use agghoo::Seed;
use agghoo::data::Target;

use crate::args::{GenArgs, UsageError};
use crate::source;

pub fn run(args: GenArgs) -> anyhow::Result<()> {
    if !args.data.data.starts_with("gen:") {
        return Err(UsageError("agghoo gen needs --data gen:<name>".into()).into());
    }
    let loaded = source::load(&args.data, None, Seed(args.seed))?;
    let d = &loaded.data;
    let mut text = d.feature_names().join(",");
    text.push_str(",y\n");
    for i in 0..d.n_rows() {
        for v in d.row(i) {
            text.push_str(&format!("{v},"));
        }
        match d.target() {
            Target::Classes { labels, names } => text.push_str(&names[labels[i] as usize]),
            Target::Real(y) => text.push_str(&format!("{}", y[i])),
        }
        text.push('\n');
    }
    match &args.out {
        Some(p) => crate::output::write_file(p, "the generated data", text)?,
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(())
}
