//! Learning and validation curves written as CSV (plots are added by `plot.rs` when present).

use std::path::Path;

use agghoo::estimate::{LearningCurve, ValidationCurve};

/// Writes `PREFIX-learning.csv` and `PREFIX-validation.csv` for the curves given.
pub fn write(prefix: &Path, learning: Option<&LearningCurve>, validation: Option<&ValidationCurve>) -> anyhow::Result<()> {
    let with = |suffix: &str| {
        let mut p = prefix.as_os_str().to_owned();
        p.push(suffix);
        std::path::PathBuf::from(p)
    };
    if let Some(l) = learning {
        let mut text = String::from("n_train,loss,estimate,standard_error\n");
        for p in &l.points {
            for s in &p.summaries {
                text.push_str(&format!(
                    "{},{},{},{}\n",
                    p.n_train,
                    s.loss,
                    s.estimate,
                    s.standard_error.map_or(String::new(), |e| e.to_string())
                ));
            }
        }
        std::fs::write(with("-learning.csv"), text)?;
    }
    if let Some(v) = validation {
        let mut text = String::from("value,loss,estimate,standard_error\n");
        for p in &v.points {
            for s in &p.summaries {
                text.push_str(&format!(
                    "{},{},{},{}\n",
                    p.value,
                    s.loss,
                    s.estimate,
                    s.standard_error.map_or(String::new(), |e| e.to_string())
                ));
            }
        }
        std::fs::write(with("-validation.csv"), text)?;
    }
    Ok(())
}
