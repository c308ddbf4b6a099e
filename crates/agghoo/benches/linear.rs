//! Lasso path and logistic-regression path timings against scikit-learn (see `bench/run-linear.sh`,
//! which generates the data with `bench/peers/linear.py DIR gen` and runs both sides).
//!
//! Reads the raw f64 problems from `$LINEAR_BENCH_DATA` and prints `case seconds` (best of 3),
//! the same cases as the peer script, plus `*_ours_*` rows that have no peer.

use std::time::Instant;

use agghoo::data::{Dataset, Target};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec};

const REPEATS: usize = 3;

fn read_f64(path: &str) -> Vec<f64> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e} (run bench/run-linear.sh)"));
    bytes.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes"))).collect()
}

fn load(dir: &str, name: &str, d: usize, classes: bool) -> Dataset {
    let x = read_f64(&format!("{dir}/{name}_x.bin"));
    let y = read_f64(&format!("{dir}/{name}_y.bin"));
    let target = if classes {
        Target::Classes { labels: y.iter().map(|&v| v as u32).collect(), names: vec!["0".into(), "1".into()] }
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
    let data = load(&dir, "lasso", 500, false);
    for (case, tol) in [("lasso_path_tol1e-4", 1e-4), ("lasso_path_tol1e-7", 1e-7)] {
        if !case.contains(&only) {
            continue;
        }
        let fam = family::build(FamilyKind::Lasso, &FamilyParams::default().set("tol", tol), &data).expect("family");
        let secs = best(|| drop(fam.fit_path(&data.all()).expect("path")));
        println!("{case} {secs:.6}");
    }
    if !only.is_empty() {
        return;
    }
    let wide = load(&dir, "lassow", 5_000, false);
    let fam = family::build(FamilyKind::Lasso, &FamilyParams::default().set("tol", 1e-4), &wide).expect("family");
    println!("lasso_wide_tol1e-4 {:.6}", best(|| drop(fam.fit_path(&wide.all()).expect("path"))));

    let logit = load(&dir, "logit", 50, true);
    let lambdas = GridSpec::Log { low: 1e-4, high: 1.0, n: 20 };
    let fam = family::build(FamilyKind::Logistic, &FamilyParams::with_grid(lambdas).set("tol", 1e-6), &logit).expect("family");
    println!("logistic_refit_20C {:.6}", best(|| drop(fam.fit_path(&logit.all()).expect("path"))));
    let cold = best(|| {
        for m in 0..fam.grid().len() {
            fam.fit(&logit.all(), m).expect("fit");
        }
    });
    println!("logistic_refit_20C_ours_cold {cold:.6}");
}
