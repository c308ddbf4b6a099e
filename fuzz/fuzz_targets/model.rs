//! The model-file loader on arbitrary text. A file that loads predicts a small fixed data set
//! with its schema's columns (and, for classification, its class names): corrupted internals
//! that passed the load checks would panic here.
#![no_main]

use std::path::Path;

use agghoo::data::{Dataset, Target, Task};
use agghoo::select::FittedModel;
use libfuzzer_sys::fuzz_target;

const ROWS: usize = 5;

fuzz_target!(|input: &[u8]| {
    let Ok(text) = std::str::from_utf8(input) else { return };
    let Ok(model) = FittedModel::from_json(text, Path::new("fuzz.model")) else { return };
    let schema = &model.schema;
    let d = schema.feature_names.len();
    if d > 64 {
        return;
    }
    // Fixed values spanning signs, magnitudes and ties.
    let pattern = [0.0, 1.0, -2.5, 1e3, 0.5, -1e-3, 7.0, 1.0];
    let x: Vec<f64> = (0..ROWS * d).map(|i| pattern[(i * 3 + i / 7) % pattern.len()]).collect();
    let target = match schema.task {
        Task::Regression => Target::Real((0..ROWS).map(|i| i as f64).collect()),
        Task::Classification => {
            let k = schema.class_names.len().max(1) as u32;
            Target::Classes { labels: (0..ROWS as u32).map(|i| i % k).collect(), names: schema.class_names.clone() }
        }
    };
    let Ok(data) = Dataset::new(x, schema.feature_names.clone(), target, &schema.target_name) else { return };
    if let Ok(aligned) = model.align(&data) {
        if let Ok(predictions) = model.predict(&aligned) {
            assert_eq!(predictions.len(), ROWS);
            assert!(!predictions.has_non_finite(), "a non-finite prediction passed the checks");
            if let Some(labels) = predictions.labels() {
                assert!(labels.iter().all(|&l| (l as usize) < schema.class_names.len()), "a class index outside the schema");
            }
        }
    }
});
