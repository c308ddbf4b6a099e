//! TreeCV benchmark: time vs k on Covertype-shaped data (PEGASOS, λ = 1e-6) and MSD-shaped data
//! (LSQ-SGD), TreeCV and standard, fixed and randomised order, on the rayon pool.
//!
//! `cargo bench -p agghoo --bench treecv -- [--quick] [--io] [--threads N]`
//! prints tab-separated `RESULT` lines (seconds wall, passes, estimate, standard error, chunking
//! seconds, CPU seconds), which `bench/run-treecv.sh` turns into tables.
//! `--quick` uses 1/10 of the rows; `--io` also times reading a 500k × 90 CSV and LibSVM file
//! (`--io-only`: and stops there);
//! `--dump` also writes the data for `bench/peers/treecv.py` (`--dump-only`: and stops there);
//! `--diag` times one pass, one evaluation and the methods at k ∈ {2, 10, n}.
//! Every k also runs the tree with the features stored as `f32` (`Storage::F32`, method
//! `TreeF32` in the output).
//! Filters, to keep runs short: `--data covertype|msd`, `--ks 2,5,n` (`n` = leave-one-out),
//! `--tree-only` (skip the standard method), `--reps R` (best of R, default 3 for short runs).

use std::io::Write;
use std::time::Instant;

use agghoo::Seed;
use agghoo::data::generators::{covertype_like, msd_like};
use agghoo::data::{CsvOptions, Dataset, TaskHint, read_csv, read_libsvm};
use agghoo::incremental::{Incremental, LsqSgd, Pegasos};
use agghoo::treecv::{self, ChunkedData, Method, Order, Storage, TreeCvConfig};

/// Standard k-fold is skipped once its predicted time (per-pass time × (k − 1)) exceeds this
/// (`TREECV_CAP_SECONDS`, default 60).
fn standard_cap_seconds() -> f64 {
    std::env::var("TREECV_CAP_SECONDS").ok().and_then(|v| v.parse().ok()).unwrap_or(60.0)
}

fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    (best, out.expect("reps ≥ 1"))
}

/// CPU time of every thread of this process so far (Linux `schedstat`, ns), to read alongside the
/// wall time on a shared machine; 0 where unavailable.
fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else { return 0.0 };
    tasks
        .filter_map(|t| t.ok())
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()))
        .sum::<f64>()
        / 1e9
}

fn one_pass<L: Incremental>(learner: &L, chunks: &ChunkedData) -> f64 {
    let rows = chunks.chunk_range(0, chunks.n_chunks() - 1);
    best_of(3, || {
        let mut m = learner.init(chunks.n_features());
        rows.update(learner, &mut m);
        m
    })
    .0
}

/// Command-line filters of the benchmark.
struct Filter {
    data: Option<String>,
    ks: Option<Vec<Option<usize>>>,
    tree_only: bool,
    reps: usize,
}

impl Filter {
    fn parse(args: &[String]) -> Self {
        let value = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
        let ks = value("--ks")
            .map(|v| v.split(',').map(|k| if k == "n" { None } else { Some(k.parse().expect("--ks: integers or n")) }).collect());
        Self {
            data: value("--data"),
            ks,
            tree_only: args.iter().any(|a| a == "--tree-only"),
            reps: value("--reps").map(|r| r.parse().expect("--reps")).unwrap_or(3),
        }
    }
    fn wants(&self, name: &str) -> bool {
        self.data.as_deref().is_none_or(|d| d == name)
    }
    fn ks(&self, n: usize) -> Vec<usize> {
        match &self.ks {
            Some(ks) => ks.iter().map(|k| k.unwrap_or(n)).collect(),
            None => vec![2, 5, 10, 20, 50, 100, 1000, n],
        }
    }
}

fn run_dataset<L: Incremental>(name: &str, learner: &L, data: &Dataset, ks: &[usize], filter: &Filter) {
    let n = data.n_rows();
    let chunks_n = ChunkedData::new(learner, data, 2, None).expect("chunks");
    let pass = one_pass(learner, &chunks_n);
    println!("PASS\t{name}\t{n}\t{}\t{pass:.6}", data.n_features());
    let mut standard_pass_time = std::collections::HashMap::new();
    for &k in ks {
        let t = Instant::now();
        let chunks = ChunkedData::new(learner, data, k, Some(Seed(1))).expect("chunks");
        let prep = t.elapsed().as_secs_f64();
        let chunks_f32 = chunks.clone().with_storage(Storage::F32).expect("generated data fit f32");
        for (label, method, chunks) in
            [("Tree", Method::Tree, &chunks), ("Standard", Method::Standard, &chunks), ("TreeF32", Method::Tree, &chunks_f32)]
        {
            if method == Method::Standard && filter.tree_only {
                continue;
            }
            for order in [Order::Fixed, Order::Randomised] {
                if method == Method::Standard
                    && let Some(per_pass) = standard_pass_time.get(&order)
                {
                    let predicted = per_pass * (k - 1) as f64;
                    if predicted > standard_cap_seconds() {
                        println!("SKIP\t{name}\tstandard\t{order:?}\t{k}\tpredicted {predicted:.0} s");
                        continue;
                    }
                }
                let config = TreeCvConfig::new().method(method).order(order).parallel(true).seed(Seed(7));
                let predicted = match (method, standard_pass_time.get(&order)) {
                    (Method::Standard, Some(p)) => p * (k - 1) as f64,
                    _ => 0.0,
                };
                let reps = if predicted < 2.0 { filter.reps } else { 1 };
                let cpu0 = cpu_seconds();
                let (secs, report) = best_of(reps, || treecv::run(learner, chunks, &config).expect("run"));
                let cpu = (cpu_seconds() - cpu0) / reps as f64;
                if method == Method::Standard {
                    standard_pass_time.insert(order, secs / report.passes);
                }
                println!(
                    "RESULT\t{name}\t{label}\t{order:?}\t{k}\t{secs:.6}\t{:.3}\t{:.12}\t{:.6}\t{prep:.3}\t{cpu:.6}",
                    report.passes, report.estimate, report.standard_error
                );
                std::io::stdout().flush().ok();
            }
        }
    }
}

/// Writes the data and the learner's prepared targets as raw little-endian f64 for the Python peer.
fn dump<L: Incremental>(name: &str, learner: &L, data: &Dataset) {
    let base = std::env::temp_dir().join(format!("agghoo-treecv-{name}"));
    let bytes = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let y = learner.prepare_target(data.target()).expect("target");
    std::fs::write(base.with_file_name(format!("agghoo-treecv-{name}-x.f64")), bytes(data.x())).expect("dump x");
    std::fs::write(base.with_file_name(format!("agghoo-treecv-{name}-y.f64")), bytes(&y)).expect("dump y");
}

fn time_readers(n: usize) {
    let data = msd_like(n, Seed(5)).expect("data");
    let dir = std::env::temp_dir();
    let (csv, svm) = (dir.join("agghoo-treecv-bench.csv"), dir.join("agghoo-treecv-bench.svm"));
    {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&csv).expect("csv"));
        let header: Vec<String> = data.feature_names().iter().cloned().chain(std::iter::once("year".to_string())).collect();
        writeln!(w, "{}", header.join(",")).expect("write");
        let mut s = svm_writer(&svm);
        for i in 0..data.n_rows() {
            let row = data.row(i);
            let y = data.target().value(i);
            let fields: Vec<String> = row.iter().map(|v| format!("{v:.6}")).collect();
            writeln!(w, "{},{y:.6}", fields.join(",")).expect("write");
            let pairs: Vec<String> = row.iter().enumerate().map(|(j, v)| format!("{}:{v:.6}", j + 1)).collect();
            writeln!(s, "{y:.6} {}", pairs.join(" ")).expect("write");
        }
    }
    let mb = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len() as f64 / 1e6).unwrap_or(0.0);
    let opts = CsvOptions { target: Some("year".into()), task: TaskHint::Regression, ..CsvOptions::default() };
    let (t_csv, d) = best_of(1, || read_csv(&csv, &opts).expect("read csv"));
    println!("IO\tcsv\t{n}\t{:.1} MB\t{t_csv:.3}\t{}", mb(&csv), d.data.n_features());
    let (t_svm, d) = best_of(1, || read_libsvm(&svm, TaskHint::Regression, None).expect("read libsvm"));
    println!("IO\tlibsvm\t{n}\t{:.1} MB\t{t_svm:.3}\t{}", mb(&svm), d.n_features());
    std::fs::remove_file(csv).ok();
    std::fs::remove_file(svm).ok();
}

fn svm_writer(path: &std::path::Path) -> std::io::BufWriter<std::fs::File> {
    std::io::BufWriter::new(std::fs::File::create(path).expect("libsvm"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let io = args.iter().any(|a| a == "--io" || a == "--io-only");
    let dump_only = args.iter().any(|a| a == "--dump-only");
    let dump_data = dump_only || args.iter().any(|a| a == "--dump");
    let threads = args.iter().position(|a| a == "--threads").and_then(|i| args.get(i + 1)).and_then(|t| t.parse().ok()).unwrap_or(2);
    rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().ok();
    let scale = if quick { 10 } else { 1 };
    if args.iter().any(|a| a == "--diag") {
        diag(581_012 / scale);
        return;
    }
    let filter = Filter::parse(&args);
    let (n_cov, n_msd) = (581_012 / scale, 463_715 / scale);
    println!("# threads = {threads}, n_covertype = {n_cov}, n_msd = {n_msd}");
    if io {
        time_readers(500_000 / scale);
        if args.iter().any(|a| a == "--io-only") {
            return;
        }
    }
    if filter.wants("covertype") {
        let t = Instant::now();
        let cov = covertype_like(n_cov, Seed(1)).expect("covertype");
        println!("GEN\tcovertype\t{:.3}", t.elapsed().as_secs_f64());
        if dump_data {
            dump("covertype", &Pegasos::new(1e-6).expect("λ"), &cov);
        }
        if !dump_only {
            run_dataset("covertype", &Pegasos::new(1e-6).expect("λ"), &cov, &filter.ks(n_cov), &filter);
        }
    }
    if !filter.wants("msd") {
        return;
    }
    let t = Instant::now();
    let msd = msd_like(n_msd, Seed(2)).expect("msd");
    println!("GEN\tmsd\t{:.3}", t.elapsed().as_secs_f64());
    if dump_data {
        dump("msd", &LsqSgd::paper(), &msd);
    }
    if !dump_only {
        run_dataset("msd", &LsqSgd::paper(), &msd, &filter.ks(n_msd), &filter);
    }
}

fn diag(n: usize) {
    let cov = covertype_like(n, Seed(1)).expect("covertype");
    let learner = Pegasos::new(1e-6).expect("λ");
    for k in [2, 10, n] {
        let chunks = ChunkedData::new(&learner, &cov, k, Some(Seed(1))).expect("chunks");
        let pass = one_pass(&learner, &chunks);
        let eval = best_of(3, || {
            let m = learner.init(54);
            chunks.chunk_range(0, k - 1).loss_sum(&learner, &m)
        })
        .0;
        for parallel in [false, true] {
            for method in [Method::Tree, Method::Standard] {
                if method == Method::Standard && k > 100 {
                    continue;
                }
                let config = TreeCvConfig::new().method(method).parallel(parallel);
                let (secs, r) = best_of(3, || treecv::run(&learner, &chunks, &config).expect("run"));
                println!(
                    "k={k} pass={pass:.4} eval={eval:.4} {method:?} parallel={parallel}: {secs:.4} s, passes {:.2}, per pass {:.4}",
                    r.passes,
                    secs / r.passes
                );
            }
        }
    }
}
