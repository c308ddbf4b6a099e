//! One full Agghoo (Majhoo) run of the k-NN family on the papers' problem, timed.
//!
//! `cargo bench -p agghoo --bench knn` prints one line per case: `case<TAB>median seconds`.
//! `bench/run-knn.sh` runs this and the Python peers in one go and writes the ratio table.
//! Flags: `--quick` (n = 500 and 10 000 only), `--large` (also n = 300 000, d = 10: minutes),
//! `--case N:EXTRA` (only those cases), `--profile` (five n = 500 runs, no output),
//! `--max-memory SIZE` (the memory limit, as the CLI's: a small one leaves the shared neighbour
//! table few blocks, the rest computed per split).

use std::time::Instant;

use agghoo::data::{Dataset, Target, generators};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec};
use agghoo::resample::MonteCarlo;
use agghoo::select::{self, Method, SelectConfig};
use agghoo::{Purpose, Seed};
use rand::RngExt;

/// The k-NN problem with `extra` uniform noise features appended (d = 2 + extra).
fn problem(n: usize, extra: usize, seed: u64) -> Dataset {
    let base = generators::knn_problem(n, Seed(seed)).expect("generator");
    if extra == 0 {
        return base;
    }
    let mut rng = Seed(seed).rng(Purpose::Data, 99);
    let mut x = Vec::with_capacity(n * (2 + extra));
    for i in 0..n {
        x.extend_from_slice(base.row(i));
        x.extend((0..extra).map(|_| rng.random::<f64>()));
    }
    let names = (0..2 + extra).map(|j| format!("x{j}")).collect();
    let Target::Classes { labels, names: classes } = base.target().clone() else { unreachable!("classification problem") };
    Dataset::new(x, names, Target::Classes { labels, names: classes }, "y").expect("dataset")
}

/// Median time of `reps` full runs; each run builds the family (its caches included) afresh.
fn time_agghoo(data: &Dataset, reps: usize) -> f64 {
    let grid = FamilyParams::with_grid(GridSpec::parse("1:199:2").expect("grid"));
    let mut times = Vec::with_capacity(reps);
    for r in 0..reps {
        let start = Instant::now();
        let fam = family::build(FamilyKind::Knn, &grid, data).expect("family");
        let splits = MonteCarlo::new(10, 0.8).expect("plan").instantiate(data.n_rows(), Seed(r as u64)).expect("splits");
        let (model, _) = select::select(fam.as_ref(), data, &splits, &SelectConfig::new(Method::Majhoo)).expect("select");
        std::hint::black_box(model);
        times.push(start.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let args: Vec<String> = std::env::args().collect();
    if let Some(size) = args.windows(2).find(|w| w[0] == "--max-memory").map(|w| &w[1]) {
        let max_memory = agghoo::limits::parse_size(size).expect("--max-memory SIZE");
        agghoo::limits::Limits { max_memory, ..agghoo::limits::Limits::global() }.set_global();
    }
    let small = problem(500, 0, 1);
    if std::env::args().any(|a| a == "--profile") {
        time_agghoo(&small, 5);
        return;
    }
    // `--case N:EXTRA` (repeatable): only those cases, e.g. `--case 30000:8` for n = 30 000, d = 10.
    let only: Vec<(usize, usize)> = args
        .windows(2)
        .filter(|w| w[0] == "--case")
        .filter_map(|w| w[1].split_once(':').and_then(|(n, e)| Some((n.parse().ok()?, e.parse().ok()?))))
        .collect();
    if !only.is_empty() {
        for &(n, extra) in &only {
            let data = problem(n, extra, 2);
            println!("knn_agghoo_n{n}_d{}\t{:.6}", 2 + extra, time_agghoo(&data, 1));
        }
        return;
    }
    let large = std::env::args().any(|a| a == "--large");
    println!("knn_agghoo_n500\t{:.6}", time_agghoo(&small, if quick { 20 } else { 200 }));
    let cases = [(10_000usize, 0usize), (30_000, 0), (100_000, 0), (100_000, 8), (100_000, 48), (50_000, 48), (300_000, 8)];
    for &(n, extra) in &cases {
        if (quick && n > 10_000) || (!large && n > 100_000) {
            continue;
        }
        let data = problem(n, extra, 2);
        println!("knn_agghoo_n{n}_d{}\t{:.6}", 2 + extra, time_agghoo(&data, if n >= 100_000 { 1 } else { 3 }));
    }
}
