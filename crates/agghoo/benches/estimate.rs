//! Risk-estimation benchmark: nested CV on the Breast Cancer data and the .632+ bootstrap.
//!
//! `cargo bench -p agghoo --bench estimate` prints one line per case: `case<TAB>median seconds`
//! (and `*_error` lines with the estimates, to check both sides compute the same thing).
//! `bench/run-estimate.sh` runs this and the Python peers in one go and prints the ratio table.

use std::path::Path;
use std::time::Instant;

use agghoo::data::{CsvOptions, Dataset, MissingPolicy, Target, read_csv};
use agghoo::estimate::{self, BootstrapConfig, NestedConfig};
use agghoo::family::{self, FamilyKind, FamilyParams, FamilySpec, GridSpec};
use agghoo::resample::{Plan, VFold};
use agghoo::select::{Method, SelectConfig};
use agghoo::{Purpose, Seed};
use rand::RngExt;

fn median_time(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn breast_cancer() -> Dataset {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/breast-cancer-wisconsin.csv");
    let options = CsvOptions {
        target: Some("class".into()),
        missing: MissingPolicy::Drop,
        extra_columns: vec!["id".into()],
        ..CsvOptions::default()
    };
    let data = read_csv(&path, &options).expect("breast cancer csv").data;
    assert_eq!((data.n_rows(), data.n_features()), (683, 9));
    data
}

/// Outer 10-fold × inner 10-fold nested CV of one procedure, k ∈ {1, 3, ..., 99}.
fn nested(data: &Dataset, method: Method, seed: u64) -> f64 {
    let outer = VFold::new(10).expect("plan").instantiate(data.n_rows(), Seed(seed)).expect("outer");
    let mut config = NestedConfig::new(
        FamilySpec::from_params(FamilyKind::Knn, &FamilyParams::with_grid(GridSpec::parse("1:99:2").expect("grid"))).expect("spec"),
        Plan::VFold(VFold::new(10).expect("plan")),
        vec![SelectConfig::new(method)],
    );
    config.seed = Seed(seed);
    estimate::nested_cv(data, &outer, &config).expect("nested").procedures[0].estimate
}

fn regression(n: usize, seed: u64) -> Dataset {
    let mut rng = Seed(seed).rng(Purpose::Data, 0);
    let x: Vec<f64> = (0..2 * n).map(|_| rng.random::<f64>() * 4.0 - 2.0).collect();
    let y: Vec<f64> = (0..n).map(|i| (3.0 * x[2 * i]).sin() + x[2 * i + 1] + 0.3 * (rng.random::<f64>() - 0.5)).collect();
    Dataset::new(x, vec!["a".into(), "b".into()], Target::Real(y), "y").expect("dataset")
}

fn bootstrap(data: &Dataset, b: usize) -> f64 {
    let fam = family::build(FamilyKind::Knn, &FamilyParams::with_grid(GridSpec::parse("10").expect("grid")), data).expect("family");
    let config = BootstrapConfig { seed: Seed(1), ..BootstrapConfig::new(b) };
    estimate::bootstrap_risk(fam.as_ref(), 0, data, &config).expect("bootstrap").point632_plus
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 3 } else { 9 };
    let bc = breast_cancer();
    println!("nested_agghoo_error\t{:.6}", nested(&bc, Method::Agghoo, 0));
    println!("nested_cv_error\t{:.6}", nested(&bc, Method::Cv, 0));
    println!(
        "nested_agghoo\t{:.6}",
        median_time(reps, || {
            std::hint::black_box(nested(&bc, Method::Agghoo, 0));
        })
    );
    println!(
        "nested_cv\t{:.6}",
        median_time(reps, || {
            std::hint::black_box(nested(&bc, Method::Cv, 0));
        })
    );
    let small = regression(1000, 1);
    println!(
        "bootstrap632plus_n1000_b20\t{:.6}",
        median_time(reps, || {
            std::hint::black_box(bootstrap(&small, 20));
        })
    );
    let large = regression(10_000, 2);
    println!(
        "bootstrap632plus_n10000_b200\t{:.6}",
        median_time(if quick { 1 } else { 3 }, || {
            std::hint::black_box(bootstrap(&large, 200));
        })
    );
}
