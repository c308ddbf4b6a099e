//! Ridge / kernel ridge timings (release mode), the Rust half of `bench/run-ridge.sh`.
//!
//! Writes the problems it times (features, targets, Monte-Carlo training sets) as CSV into
//! `$RIDGE_BENCH_DIR` (default `target/ridge-bench`) so that `bench/peers/ridge.py` times
//! scikit-learn on the same data, then prints `name<TAB>seconds` lines (best of `$RIDGE_BENCH_REPEATS`,
//! default 3).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use agghoo::data::{Dataset, Target};
use agghoo::family::ridge::{Kernel, RidgeFamily};
use agghoo::family::{Family, GridSpec};
use agghoo::resample::{MonteCarlo, Plan, PlanContext, Splits};
use agghoo::select::{self, Method, SelectConfig};
use agghoo::{Result, Seed};
use rand::{RngExt, SeedableRng};

const N_LAMBDAS: usize = 50;

/// y = Xβ + noise, X ~ N-ish(0, 1) (sum of uniforms), β_j = 1/(j+1) with alternating signs.
fn problem(n: usize, d: usize, seed: u64) -> Result<Dataset> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut gauss = || (0..4).map(|_| rng.random_range(-1.0..1.0)).sum::<f64>() * 0.866;
    let x: Vec<f64> = (0..n * d).map(|_| gauss()).collect();
    let y = (0..n)
        .map(|i| {
            let row = &x[i * d..(i + 1) * d];
            let signal: f64 = row.iter().enumerate().map(|(j, v)| v * if j % 2 == 0 { 1.0 } else { -1.0 } / (j + 1) as f64).sum();
            (2.0 * signal).sin() + signal + 0.5 * gauss()
        })
        .collect();
    Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), Target::Real(y), "y")
}

fn write_csv(path: &Path, data: &Dataset) {
    let d = data.n_features();
    let mut text = String::new();
    for i in 0..data.n_rows() {
        for v in data.row(i) {
            let _ = write!(text, "{v:?},");
        }
        let _ = writeln!(text, "{:?}", data.target().value(i));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e} ({d} features)", path.display()));
}

fn write_splits(path: &Path, splits: &Splits) {
    let text: String =
        splits.as_slice().iter().map(|s| s.train().iter().map(|r| r.to_string()).collect::<Vec<_>>().join(",") + "\n").collect();
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn best_of<T>(repeats: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..repeats)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(f());
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn lambdas(low: f64, high: f64) -> Result<Vec<f64>> {
    GridSpec::Log { low, high, n: N_LAMBDAS }.values()
}

fn main() -> Result<()> {
    let dir = std::env::var_os("RIDGE_BENCH_DIR").map_or_else(|| PathBuf::from("target/ridge-bench"), PathBuf::from);
    let repeats: usize = std::env::var("RIDGE_BENCH_REPEATS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));

    // Linear ridge: n = 2000, d = 50; λ from 1e-3 to 1e4 (50 values).
    let linear = problem(2000, 50, 1)?;
    write_csv(&dir.join("linear.csv"), &linear);
    let linear_rows: Vec<usize> = (0..2000).collect();
    let (train, validation) = (linear.view(&linear_rows[..1600]), linear.view(&linear_rows[1600..]));
    let ridge = RidgeFamily::linear(lambdas(1e-3, 1e4)?)?;
    let t = best_of(repeats, || ridge.fit_path(&train).and_then(|p| p.predict(&validation)));
    println!("ridge_path\t{t}");
    let all = linear.all();
    let y = all.gather_y();
    let t = best_of(repeats, || {
        ridge.linear_smoother(&all).map(|s| {
            s.map(|s| {
                s.fitted
                    .iter()
                    .zip(&s.leverage)
                    .map(|(f, h)| y.iter().zip(f).zip(h).map(|((y, f), h)| ((y - f) / (1.0 - h)).powi(2)).sum::<f64>())
                    .collect::<Vec<_>>()
            })
        })
    });
    println!("ridge_loo\t{t}");

    // Kernel ridge (rbf, γ = 1/d): 1000 training rows, 250 validation rows, d = 10.
    let kernel_data = problem(1250, 10, 2)?;
    write_csv(&dir.join("kernel.csv"), &kernel_data);
    let kernel_rows: Vec<usize> = (0..1250).collect();
    let (train, validation) = (kernel_data.view(&kernel_rows[..1000]), kernel_data.view(&kernel_rows[1000..]));
    let krr = RidgeFamily::kernel(lambdas(1e-4, 1e2)?, Kernel::rbf(0.1)?, false)?;
    let t = best_of(repeats, || krr.fit_path(&train).and_then(|p| p.predict(&validation)));
    println!("kernel_ridge_path\t{t}");

    // One Agghoo run each: 10 Monte-Carlo splits, τ = 0.8, first-minimiser argmin, mean aggregation.
    let config = SelectConfig::new(Method::Agghoo);
    let plan = Plan::MonteCarlo(MonteCarlo::new(10, 0.8)?);
    let splits = plan.instantiate(&PlanContext::of(&linear), Seed(3))?;
    write_splits(&dir.join("linear_splits.csv"), &splits);
    let t = best_of(repeats, || select::select(&ridge, &linear, &splits, &config));
    println!("agghoo_ridge\t{t}");
    let splits = plan.instantiate(&PlanContext::of(&kernel_data), Seed(4))?;
    write_splits(&dir.join("kernel_splits.csv"), &splits);
    let t = best_of(repeats, || select::select(&krr, &kernel_data, &splits, &config));
    println!("agghoo_kernel_ridge\t{t}");
    Ok(())
}
