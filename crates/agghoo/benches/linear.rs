//! Lasso / elastic-net paths and logistic-regression paths against scikit-learn (see
//! `bench/run-linear.sh`, which generates the data with `bench/peers/linear.py DIR gen` and runs
//! both sides).
//!
//! Reads the raw f64 problems from `$LINEAR_BENCH_DATA` and prints `case seconds` (best of 3),
//! the same cases as the peer script, plus `*_ours_cold` rows that have no peer.
//! `LINEAR_BENCH_ONLY=text` runs only the cases whose name contains `text`.
//! A missing file or a failed fit stops the bench with a non-zero exit and the error.

use std::time::Instant;

use agghoo::data::{Dataset, Target};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec};

const REPEATS: usize = 3;

fn read_f64(path: &str) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e} (run bench/run-linear.sh)"));
    bytes.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes"))).collect()
}

/// `name_x.bin` (row-major, `d` columns) and `name_y.bin`; `classes` > 0: labels `0..classes`.
fn load(dir: &str, name: &str, d: usize, classes: usize) -> Dataset {
    let x = read_f64(&format!("{dir}/{name}_x.bin"));
    let y = read_f64(&format!("{dir}/{name}_y.bin"));
    let target = if classes > 0 {
        Target::Classes { labels: y.iter().map(|&v| v as u32).collect(), names: (0..classes).map(|c| c.to_string()).collect() }
    } else {
        Target::Real(y)
    };
    Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), target, "y").expect("benchmark data")
}

fn best(mut run: impl FnMut()) -> f64 {
    (0..REPEATS)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let dir =
        std::env::var("LINEAR_BENCH_DATA").unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/linear-bench").into());
    let only = std::env::var("LINEAR_BENCH_ONLY").unwrap_or_default();
    let wanted = |case: &str| case.contains(only.as_str());

    // Lasso (ρ = 1) and elastic net (ρ = 0.5): n ≫ d ("path", Gram mode) and d > n ("wide",
    // residual mode), default grid (100 λ down to 10⁻³ λ_max), tol 10⁻⁴ and 10⁻⁷.
    for (data_name, label, d) in [("lasso", "path", 500), ("lassow", "wide", 5_000)] {
        let mut data = None;
        for (kind, fam_name) in [(FamilyKind::Lasso, "lasso"), (FamilyKind::Enet, "enet")] {
            for (tol_name, tol) in [("1e-4", 1e-4), ("1e-7", 1e-7)] {
                let case = format!("{fam_name}_{label}_tol{tol_name}");
                if !wanted(&case) {
                    continue;
                }
                let data = data.get_or_insert_with(|| load(&dir, data_name, d, 0));
                let fam = family::build(kind, &FamilyParams::default().set("tol", tol), data).expect("family");
                let secs = best(|| drop(fam.fit_path(&data.all()).expect("path")));
                println!("{case} {secs:.6}");
            }
        }
    }

    // Logistic regression, 20 λ, binary, 3 and 20 classes, L2 (λ from 1 to 10⁻⁴) and L1 (λ from
    // 10⁻¹ to 10⁻⁴; not for 20 classes), tol 10⁻⁶.
    for (data_name, classes, prefix) in [("logit", 2, "logistic"), ("logit3", 3, "logistic_multi"), ("logit20", 20, "logistic_many")] {
        let mut data = None;
        for (penalty, high, suffix) in [("l2", 1.0, ""), ("l1", 0.1, "_l1")] {
            let case = format!("{prefix}{suffix}_refit_20C");
            if !wanted(&case) || (classes == 20 && penalty == "l1") {
                continue;
            }
            let data = data.get_or_insert_with(|| load(&dir, data_name, 50, classes));
            let lambdas = GridSpec::Log { low: 1e-4, high, n: 20 };
            let params = FamilyParams::with_grid(lambdas).set("tol", 1e-6).set("penalty", penalty);
            let fam = family::build(FamilyKind::Logistic, &params, data).expect("family");
            println!("{case} {:.6}", best(|| drop(fam.fit_path(&data.all()).expect("path"))));
            let cold = best(|| {
                for m in 0..fam.grid().len() {
                    fam.fit(&data.all(), m).expect("fit");
                }
            });
            println!("{case}_ours_cold {cold:.6}");
        }
    }
}
