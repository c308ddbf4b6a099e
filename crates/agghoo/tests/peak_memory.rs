//! The memory estimate checked before an evaluation ([`agghoo::engine::fit_memory`]) is an upper
//! bound: the peak resident memory of a process that runs the evaluation stays below it. Each
//! case runs in a child process (this test binary, re-run on the one case), which reads its own
//! high-water mark (`VmHWM` of `/proc/self/status`, Linux) after the evaluation.

use agghoo::Seed;
use agghoo::data::{CategoryOptions, Dataset, Preprocess, Target};
use agghoo::engine::{EvalOptions, evaluate_splits, fit_memory};
use agghoo::family::{self, FamilyKind, FamilyParams};
use agghoo::loss::Loss;
use agghoo::resample::MonteCarlo;

const CHILD: &str = "AGGHOO_PEAK_MEMORY_CASE";

/// The peak resident bytes of this process so far.
fn peak_rss() -> u128 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM");
    let kib: u128 = line.split_whitespace().nth(1).and_then(|v| v.parse().ok()).expect("VmHWM in kB");
    kib * 1024
}

/// Ridge on a text column of `levels` levels (one-hot: `levels + 1` dense columns), or an RBF SVC
/// on 30 classes; evaluated on 2 Monte-Carlo splits. Prints `estimate=… peak=…`.
fn run_case(case: &str) {
    let n = 1600;
    let (kind, target, text) = match case {
        "ridge" => (FamilyKind::Ridge, Target::Real((0..n).map(|i| (i % 13) as f64 * 0.5).collect()), true),
        _ => (
            FamilyKind::Svc,
            Target::Classes { labels: (0..n as u32).map(|i| i % 30).collect(), names: (0..30).map(|c| format!("c{c}")).collect() },
            false,
        ),
    };
    let x: Vec<f64> = (0..n).flat_map(|i| [((i * 7) % 13) as f64, ((i * 11) % 17) as f64]).collect();
    let mut data = Dataset::new(x, vec!["t".into(), "a".into()], target, "y").unwrap();
    if text {
        data = data.with_text_columns(&[(0, (0..n).map(|i| Some(format!("l{}", i % 1200))).collect())]).unwrap();
    }
    let preprocess = Preprocess::for_data(&data, false, CategoryOptions::default());
    let family = family::build_for(kind, &FamilyParams::default(), &data, &preprocess).unwrap();
    let splits = MonteCarlo::new(2, 0.5).unwrap().instantiate(data.n_rows(), Seed(3)).unwrap();
    let loss = if text { Loss::Squared } else { Loss::ZeroOne };
    let options = EvalOptions { losses: vec![loss], preprocess, ..Default::default() };
    let (estimate, what) = fit_memory(family.as_ref(), &data, &splits, &options);
    evaluate_splits(family.as_ref(), &data, &splits, &options, &agghoo::engine::Rayon).unwrap();
    println!("estimate={estimate} peak={} ({what})", peak_rss());
}

/// Runs `case` in a child process and returns (estimate, peak).
fn measure(case: &str) -> (u128, u128) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["child_process_runs_the_case", "--exact", "--nocapture", "--test-threads", "1"])
        .env(CHILD, case)
        .output()
        .expect("run the child");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let line = text.lines().find(|l| l.contains("estimate=")).unwrap_or_else(|| panic!("no estimate in: {text}"));
    let field =
        |key: &str| -> u128 { line.split(key).nth(1).and_then(|r| r.split_whitespace().next()).and_then(|v| v.parse().ok()).unwrap() };
    eprintln!("{case}: {line}");
    (field("estimate="), field("peak="))
}

/// The child's side of [`measure`] (does nothing in a normal run).
#[test]
fn child_process_runs_the_case() {
    if let Ok(case) = std::env::var(CHILD) {
        run_case(&case);
    }
}

#[test]
fn peak_memory_stays_within_the_estimate() {
    if !std::path::Path::new("/proc/self/status").exists() {
        return; // no VmHWM to read outside Linux
    }
    for case in ["ridge", "svc"] {
        let (estimate, peak) = measure(case);
        assert!(peak <= estimate, "{case}: peak {peak} B above the estimate {estimate} B");
    }
}
