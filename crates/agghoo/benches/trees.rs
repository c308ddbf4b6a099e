//! Trees benchmark (docs/benchmarks/trees.md): the CART family on Genuer's problem (d = 50,
//! n = 500, the full-sample pruning sequence as grid), one Majhoo run with V = 10 Monte-Carlo
//! splits, τ = 0.8; and a 500-tree random forest on the same data.
//!
//! Writes the data, splits and grid to `<out>/problem.json` for the Python peer
//! (`bench/peers/trees.py`) and our timings to `<out>/ours.json`.
//! Usage: `cargo bench -p agghoo --bench trees -- [--out DIR] [--reps N]`.

use std::time::Instant;

use agghoo::data::generators::genuer;
use agghoo::family::forest::{ForestModel, ForestOptions};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec, Predictor};
use agghoo::resample::{MonteCarlo, Plan, PlanContext};
use agghoo::select::{self, Method, SelectConfig};
use agghoo::{Loss, Seed};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median wall time, mean process CPU time (all threads; /proc ticks, so averaged over the
/// repetitions) and the last result.
fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, f64, T) {
    let mut out = f(); // warm-up
    let mut times = Vec::with_capacity(reps);
    let cpu0 = cpu();
    for _ in 0..reps {
        let start = Instant::now();
        out = f();
        times.push(start.elapsed().as_secs_f64());
    }
    let cpu_s = (cpu() - cpu0) / reps as f64;
    (median(times), cpu_s, out)
}

fn cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let out = std::path::PathBuf::from(value("--out").unwrap_or_else(|| "target/bench-trees".into()));
    let reps: usize = value("--reps").map_or(Ok(20), |r| r.parse())?;
    std::fs::create_dir_all(&out)?;

    let data = genuer(500, 50, Seed(1), 0)?;
    let test = genuer(5000, 50, Seed(1), 1)?;
    let splits = Plan::MonteCarlo(MonteCarlo::new(10, 0.8)?).instantiate(&PlanContext::of(&data), Seed(2))?;

    if args.iter().any(|a| a == "--profile") {
        let fam = family::build(FamilyKind::Cart, &FamilyParams::default(), &data)?;
        let split = &splits.as_slice()[0];
        let (train, val) = (data.view(split.train()), data.view(split.validation()));
        let c0 = cpu();
        for _ in 0..1000 {
            let path = fam.fit_path(&train)?;
            std::hint::black_box(path.predict(&val)?);
        }
        eprintln!("fit_path+predict: {:.3} ms cpu", cpu() - c0);
        let c0 = cpu();
        for _ in 0..10 {
            std::hint::black_box(select::select(fam.as_ref(), &data, &splits, &SelectConfig::new(Method::Majhoo))?);
        }
        eprintln!("select: {:.3} ms cpu", (cpu() - c0) * 100.0);
        return Ok(());
    }
    // CART + Majhoo. Grids: the default (distinct α's of the full-sample pruning sequence) and 61
    // values evenly spaced on [0, α_max] of that sequence; the peer uses the same values.
    let (build_s, _, fam) = time(reps, || family::build(FamilyKind::Cart, &FamilyParams::default(), &data));
    let fam = fam?;
    let alpha_max = fam.grid().values().last().copied().unwrap_or(0.0);
    let grid61: Vec<f64> = (0..61).map(|i| alpha_max * f64::from(i) / 60.0).collect();
    let fam61 = family::build(FamilyKind::Cart, &FamilyParams::with_grid(GridSpec::Values(grid61.clone())), &data)?;
    let config = SelectConfig::new(Method::Majhoo);
    let mut cart = serde_json::Map::new();
    for (name, fam) in [("default", &fam), ("61", &fam61)] {
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
            let (s, cpu_s, result) = pool.install(|| time(reps, || select::select(fam.as_ref(), &data, &splits, &config)));
            let (model, _) = result?;
            let risk = Loss::ZeroOne.risk(&model.predict(&test)?, &test.all())?;
            eprintln!("cart majhoo, grid {name} ({} α), {threads} thread(s): {:.2} ms, test error {risk:.4}", fam.grid().len(), s * 1e3);
            cart.insert(format!("select_seconds_{name}_{threads}"), s.into());
            cart.insert(format!("select_cpu_seconds_{name}_{threads}"), cpu_s.into());
            cart.insert(format!("test_error_{name}"), risk.into());
        }
    }
    cart.insert("build_seconds".into(), build_s.into());
    cart.insert("grid_len_default".into(), fam.grid().len().into());

    // Random forest, 500 trees, on all 500 rows.
    let mut forest = serde_json::Map::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
        let (s, cpu_s, model) = pool.install(|| time(reps.min(5), || ForestModel::fit(&data.all(), &ForestOptions::default())));
        let model = model?;
        let risk = Loss::ZeroOne.risk(&model.predict(&test.all())?, &test.all())?;
        eprintln!("forest 500 trees, {threads} thread(s): {:.1} ms, test error {risk:.4}, oob {:?}", s * 1e3, model.oob_error());
        forest.insert(format!("fit_seconds_{threads}"), s.into());
        forest.insert(format!("fit_cpu_seconds_{threads}"), cpu_s.into());
        forest.insert("test_error".into(), risk.into());
    }

    let problem = serde_json::json!({
        "n_features": data.n_features(),
        "x": data.x(),
        "y": (0..data.n_rows()).map(|i| data.target().value(i)).collect::<Vec<_>>(),
        "x_test": test.x(),
        "y_test": (0..test.n_rows()).map(|i| test.target().value(i)).collect::<Vec<_>>(),
        "splits": splits.iter().map(|s| serde_json::json!({"train": s.train(), "validation": s.validation()})).collect::<Vec<_>>(),
        "alphas": fam.grid().values(),
        "alphas61": fam61.grid().values(),
    });
    std::fs::write(out.join("problem.json"), serde_json::to_string(&problem)?)?;
    let ours = serde_json::json!({ "cart": cart, "forest": forest, "reps": reps });
    std::fs::write(out.join("ours.json"), serde_json::to_string_pretty(&ours)?)?;
    println!("{}", serde_json::to_string_pretty(&ours)?);
    Ok(())
}
