//! Benchmark: one Agghoo run of the ε-SVR family on the papers' ε-regression problem.
//!
//! n = 500 rows of `svr_problem` (seed 1, stream 0), V = 10 Monte-Carlo splits with τ = 0.8
//! (n_t = 400), the papers' grid `λ_j = 2^{j−1} / (500 n_t)`, j = 1..17, Gaussian kernel
//! `exp(−2 (x − x')²)`, ε = 0.25, LIBSVM's tolerance 1e-3. The selection loss is the papers'
//! evaluation loss `|y − f(x)|` ([`Loss::Absolute`]). The peer (`bench/peers/svm.py`) reads the
//! same data and splits from `target/bench-svm/` and refits scikit-learn's `SVR` per grid value per
//! split. Prints one line per measure, `name<TAB>value`.

use std::io::Write;
use std::time::Instant;

use agghoo::data::generators::{svr_problem, svr_regression_function};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec};
use agghoo::resample::MonteCarlo;
use agghoo::select::{self, Method, SelectConfig};
use agghoo::{Loss, Seed};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (n, v, tau) = (500, 10, 0.8);
    let n_t = (tau * n as f64).floor() as usize;
    let data = svr_problem(n, Seed(1), 0)?;
    let test = svr_problem(2000, Seed(1), 1)?;
    let grid: Vec<f64> = (1..=17).map(|j| 2f64.powi(j - 1) / (500.0 * n_t as f64)).collect();
    let params = FamilyParams { grid: Some(GridSpec::Values(grid)), ..FamilyParams::default() }.set("gamma", 2).set("epsilon", 0.25);
    let fam = family::build(FamilyKind::Svr, &params, &data)?;
    let splits = MonteCarlo::new(v, tau)?.instantiate(n, Seed(1))?;
    let mut config = SelectConfig::new(Method::Agghoo);
    config.loss = Some(Loss::Absolute);

    // the problem, for the peer
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-svm");
    std::fs::create_dir_all(&dir)?;
    let mut f = std::fs::File::create(dir.join("data.csv"))?;
    for i in 0..n {
        writeln!(f, "{:?},{:?}", data.row(i)[0], data.target().value(i))?;
    }
    let mut f = std::fs::File::create(dir.join("test.csv"))?;
    for i in 0..test.n_rows() {
        writeln!(f, "{:?},{:?}", test.row(i)[0], test.target().value(i))?;
    }
    let mut f = std::fs::File::create(dir.join("splits.txt"))?;
    for s in splits.iter() {
        writeln!(f, "{}", s.train().iter().map(usize::to_string).collect::<Vec<_>>().join(","))?;
    }

    let reps = 20;
    let mut times = Vec::with_capacity(reps);
    let mut fitted = None;
    for _ in 0..reps {
        let t = Instant::now();
        let (model, _) = select::select(fam.as_ref(), &data, &splits, &config)?;
        times.push(t.elapsed().as_secs_f64());
        fitted = Some(model);
    }
    times.sort_by(f64::total_cmp);
    let fitted = fitted.ok_or("no run")?;
    let pred = fitted.predict(&test)?;
    let m = test.n_rows() as f64;
    let risk = (0..test.n_rows()).map(|i| (pred.value(i) - test.target().value(i)).abs()).sum::<f64>() / m;
    let excess = (0..test.n_rows()).map(|i| (pred.value(i) - svr_regression_function(test.row(i)[0])).abs()).sum::<f64>() / m;
    let selected: Vec<String> = fitted.members().iter().map(|mb| (mb.grid_index + 1).to_string()).collect();
    println!("ours_seconds\t{:.6}", times[reps / 2]);
    println!("ours_threads\t{}", rayon::current_num_threads());
    println!("ours_test_abs_risk\t{risk:.6}");
    println!("ours_test_abs_dist_to_regression_fn\t{excess:.6}");
    println!("ours_selected_j\t{}", selected.join(","));
    Ok(())
}
