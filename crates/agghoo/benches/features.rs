//! Feature-selection benchmarks, timed in release mode.
//!
//! `cargo bench -p agghoo --bench features -- [--quick] [--write-data DIR]` prints one line per
//! case: `case<TAB>median seconds`, plus `#`-prefixed lines with what was selected (so the run
//! script can show that ours and the peer solved the same problem). `--write-data DIR` writes the
//! SFFS problem (`sffs.csv`, label in the last column) and its folds (`sffs_folds.txt`, the fold
//! of each row) for the Python peer `bench/peers/features.py`; `bench/run-features.sh` runs both.
//!
//! Cases:
//! - `sffs_knn_d30_n600`: SFFS, stopping "best" (sizes 1..30), k-NN wrapper (k = 5, 0–1 loss),
//!   5-fold CV; label `1{x0 + x1 − x2 + 0.5·x3 + 0.5·ε > 0}`, 26 pure-noise features.
//!   Also on one thread (`..._1thread`).
//! - `cfs_sfs_d1000_n1000_k50` / `..._best`: CFS forward search on d = 1000 Gaussian features
//!   (a shared factor makes them correlated), 20 informative, to 50 features / all the way.

use std::time::Instant;

use agghoo::data::{Dataset, Preprocess, Target};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec};
use agghoo::features::{CfsScorer, SearchConfig, SearchMethod, SearchReport, Stopping, WrapperScorer, search};
use agghoo::resample::{Splits, VFold};
use agghoo::{Purpose, Seed};
use rand_distr::{Distribution, StandardNormal};

fn normal(rng: &mut impl rand::Rng) -> f64 {
    StandardNormal.sample(rng)
}

fn sffs_problem() -> Dataset {
    let (n, d) = (600, 30);
    let mut rng = Seed(1).rng(Purpose::Data, 0);
    let mut x = Vec::with_capacity(n * d);
    let mut labels = Vec::with_capacity(n);
    for _ in 0..n {
        let row: Vec<f64> = (0..d).map(|_| normal(&mut rng)).collect();
        let s = row[0] + row[1] - row[2] + 0.5 * row[3] + 0.5 * normal(&mut rng);
        labels.push(u32::from(s > 0.0));
        x.extend(row);
    }
    let names = (0..d).map(|j| format!("x{j}")).collect();
    Dataset::new(x, names, Target::Classes { labels, names: vec!["0".into(), "1".into()] }, "y").expect("dataset")
}

fn cfs_problem() -> Dataset {
    let (n, d) = (1000, 1000);
    let mut rng = Seed(2).rng(Purpose::Data, 0);
    let mut x = Vec::with_capacity(n * d);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let common = normal(&mut rng);
        let row: Vec<f64> = (0..d).map(|_| normal(&mut rng) + 0.5 * common).collect();
        y.push((0..20).map(|j| row[j * 37] / (1.0 + j as f64)).sum::<f64>() + normal(&mut rng));
        x.extend(row);
    }
    let names = (0..d).map(|j| format!("x{j}")).collect();
    Dataset::new(x, names, Target::Real(y), "y").expect("dataset")
}

/// CPU time (user + system) of this process, from /proc (Linux; clock ticks of 1/100 s).
/// Reported next to wall time because the benchmark machine is shared: CPU time is less
/// disturbed by other processes than wall time.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::with_capacity(reps);
    let mut last = None;
    for _ in 0..reps {
        let start = Instant::now();
        let out = f();
        times.push(start.elapsed().as_secs_f64());
        last = Some(out);
    }
    (median(times), last.expect("at least one repetition"))
}

fn sffs(data: &Dataset, splits: &Splits) -> SearchReport {
    let params = FamilyParams::with_grid(GridSpec::Values(vec![5.0]));
    let fam = family::build(FamilyKind::Knn, &params, data).expect("family");
    let wrapper = WrapperScorer::new(fam.as_ref(), data, splits, 0, None, Preprocess::default()).expect("wrapper");
    search(&wrapper, &SearchConfig::new(SearchMethod::Sffs, Stopping::Best)).expect("search")
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let reps = if quick { 1 } else { 5 };
    let data = sffs_problem();
    let splits = VFold::new(5).expect("plan").instantiate(data.n_rows(), Seed(3)).expect("splits");
    if let Some(dir) = args.iter().position(|a| a == "--write-data").and_then(|i| args.get(i + 1)) {
        std::fs::create_dir_all(dir)?;
        let d = data.n_features();
        let mut csv = String::new();
        for i in 0..data.n_rows() {
            for v in data.row(i) {
                csv.push_str(&format!("{v:.17e},"));
            }
            csv.push_str(&format!("{}\n", data.target().value(i)));
        }
        std::fs::write(format!("{dir}/sffs.csv"), csv)?;
        let mut fold = vec![0usize; data.n_rows()];
        for (j, s) in splits.iter().enumerate() {
            for &i in s.validation() {
                fold[i] = j;
            }
        }
        std::fs::write(format!("{dir}/sffs_folds.txt"), fold.iter().map(|f| format!("{f}\n")).collect::<String>())?;
        let _ = d;
    }

    let (t, report) = time(reps, || sffs(&data, &splits));
    println!("sffs_knn_d30_n600\t{t:.6}");
    println!(
        "# sffs_knn_d30_n600 selected {:?} risk {:.6} evaluations {} by_size_risk {:?}",
        report.selected,
        report.score.value,
        report.n_evaluations,
        report.by_size.iter().map(|r| (r.size, (r.score.value * 1e6).round() / 1e6)).collect::<Vec<_>>()
    );
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let runs = reps.min(3);
    let cpu = cpu_seconds();
    let (t1, _) = pool.install(|| time(runs, || sffs(&data, &splits)));
    println!("sffs_knn_d30_n600_1thread\t{t1:.6}");
    println!("sffs_knn_d30_n600_cpu\t{:.6}", (cpu_seconds() - cpu) / runs as f64);

    let big = cfs_problem();
    for (name, stopping) in [("cfs_sfs_d1000_n1000_k50", Stopping::Count { n_features: 50 }), ("cfs_sfs_d1000_n1000_best", Stopping::Best)]
    {
        let (t, report) = time(reps.min(3), || {
            let cfs = CfsScorer::new(&big).expect("cfs");
            search(&cfs, &SearchConfig::new(SearchMethod::Sfs, stopping)).expect("search")
        });
        println!("{name}\t{t:.6}");
        println!("# {name} size {} merit {:.6} evaluations {}", report.selected.len(), -report.score.value, report.n_evaluations);
    }
    Ok(())
}
