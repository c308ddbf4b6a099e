//! Golden `--json` outputs: every family, procedure and plan, estimate, compare, features, treecv
//! and a small reproduction, compared value for value (every float to the bit) with documents
//! recorded by an earlier build. A change that moves any result fails here; an intended one is
//! recorded again with `AGGHOO_BLESS=1 cargo test -p agghoo-cli --test golden_outputs` and shows
//! up in review as a diff of `tests/golden/runs/`; `AGGHOO_BLESS=new` records only the runs that
//! have no document yet (a new run), leaving every other untouched.
//!
//! Compared: the whole document except the timings and peak memory (they vary run to run) and
//! the `invocation` and `spec` blocks (they list every option with its default, so a new option
//! would touch every file without changing a result; the spec's own tests are in `reports.rs`).

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

/// (name, arguments after the subcommand's `--json`).
const RUNS: &[(&str, &[&str])] = &[
    ("select-knn-majhoo-mc", &["select", "--data", "gen:knn", "--n", "300", "--grid", "1:29:2", "--method", "majhoo", "--seed", "1"]),
    (
        "select-knn-cv-vfold",
        &[
            "select", "--data", "gen:knn", "--n", "300", "--grid", "1:29:2", "--method", "cv", "--plan", "vfold", "--splits", "5",
            "--seed", "2",
        ],
    ),
    (
        "select-knn-cv-1se",
        &["select", "--data", "gen:knn", "--n", "300", "--method", "cv", "--one-se", "--plan", "vfold", "--splits", "5", "--seed", "2"],
    ),
    ("select-knn-holdout", &["select", "--data", "gen:knn", "--n", "200", "--method", "holdout", "--seed", "3"]),
    ("select-knn-acv", &["select", "--data", "gen:knn", "--n", "200", "--method", "acv", "--seed", "3"]),
    ("select-knn-ekcv", &["select", "--data", "gen:knn", "--n", "200", "--method", "ekcv", "--seed", "3"]),
    ("select-knn-subagging", &["select", "--data", "gen:knn", "--n", "200", "--method", "subagging", "--seed", "3"]),
    (
        "select-knn-repeated",
        &[
            "select",
            "--data",
            "gen:knn",
            "--n",
            "200",
            "--method",
            "cv",
            "--plan",
            "repeated",
            "--splits",
            "4",
            "--repeats",
            "2",
            "--seed",
            "4",
        ],
    ),
    ("select-knn-loo", &["select", "--data", "gen:knn", "--n", "60", "--method", "cv", "--plan", "loo", "--grid", "1:9:2"]),
    (
        "select-knn-bootstrap",
        &["select", "--data", "gen:knn", "--n", "150", "--method", "agghoo", "--plan", "bootstrap", "--splits", "5", "--seed", "5"],
    ),
    (
        "select-bc-knn-std",
        &[
            "select",
            "--data",
            "bundled:breast-cancer",
            "--missing",
            "median",
            "--standardize",
            "--grid",
            "1:21:2",
            "--method",
            "majhoo",
            "--seed",
            "6",
        ],
    ),
    (
        "select-bc-logistic",
        &[
            "select",
            "--data",
            "bundled:breast-cancer",
            "--missing",
            "median",
            "--standardize",
            "--family",
            "logistic",
            "--method",
            "agghoo",
            "--seed",
            "7",
        ],
    ),
    (
        "select-bc-cart",
        &[
            "select",
            "--data",
            "bundled:breast-cancer",
            "--missing",
            "median",
            "--family",
            "cart",
            "--method",
            "cv",
            "--plan",
            "vfold",
            "--splits",
            "5",
            "--seed",
            "8",
        ],
    ),
    (
        "select-bc-forest",
        &[
            "select",
            "--data",
            "bundled:breast-cancer",
            "--missing",
            "median",
            "--family",
            "forest",
            "--param",
            "trees=20",
            "--method",
            "agghoo",
            "--splits",
            "3",
            "--seed",
            "9",
        ],
    ),
    (
        "select-bc-svc",
        &[
            "select",
            "--data",
            "bundled:breast-cancer",
            "--missing",
            "median",
            "--standardize",
            "--family",
            "svc",
            "--grid",
            "log:0.001:10:7",
            "--method",
            "majhoo",
            "--splits",
            "4",
            "--seed",
            "10",
        ],
    ),
    ("select-svr-ridge", &["select", "--data", "gen:svr", "--n", "200", "--family", "ridge", "--method", "agghoo", "--seed", "11"]),
    (
        "select-svr-kernel-ridge",
        &[
            "select",
            "--data",
            "gen:svr",
            "--n",
            "150",
            "--family",
            "kernel-ridge",
            "--method",
            "cv",
            "--plan",
            "vfold",
            "--splits",
            "5",
            "--seed",
            "12",
        ],
    ),
    ("select-msd-lasso", &["select", "--data", "gen:msd", "--n", "200", "--family", "lasso", "--method", "agghoo", "--seed", "13"]),
    (
        "select-msd-enet",
        &[
            "select", "--data", "gen:msd", "--n", "200", "--family", "enet", "--method", "cv", "--plan", "vfold", "--splits", "5",
            "--seed", "14",
        ],
    ),
    (
        "select-svr-svr",
        &[
            "select",
            "--data",
            "gen:svr",
            "--n",
            "120",
            "--family",
            "svr",
            "--grid",
            "log:0.01:100:7",
            "--method",
            "agghoo",
            "--splits",
            "4",
            "--seed",
            "15",
        ],
    ),
    ("select-genuer-cart", &["select", "--data", "gen:genuer", "--n", "200", "--family", "cart", "--method", "agghoo", "--seed", "16"]),
    (
        "estimate-knn-vfold",
        &["estimate", "--data", "gen:knn", "--n", "200", "--param", "5", "--loss", "01,logloss", "--plan", "vfold", "--seed", "17"],
    ),
    ("estimate-ridge-loo", &["estimate", "--data", "gen:svr", "--n", "100", "--family", "ridge", "--param", "0.1", "--plan", "loo"]),
    (
        "estimate-ridge-bootstrap",
        &[
            "estimate",
            "--data",
            "gen:svr",
            "--n",
            "100",
            "--family",
            "ridge",
            "--param",
            "0.1",
            "--plan",
            "bootstrap",
            "--splits",
            "20",
            "--seed",
            "18",
        ],
    ),
    (
        "estimate-cart-mc",
        &[
            "estimate",
            "--data",
            "gen:genuer",
            "--n",
            "150",
            "--family",
            "cart",
            "--param",
            "0.01",
            "--plan",
            "mc",
            "--splits",
            "6",
            "--seed",
            "19",
        ],
    ),
    (
        "compare-knn",
        &[
            "compare",
            "--data",
            "gen:knn",
            "--n",
            "200",
            "--grid",
            "1:15:2",
            "--methods",
            "agghoo,cv,cv+1se,holdout,subagging",
            "--outer",
            "vfold:4",
            "--seed",
            "20",
        ],
    ),
    (
        "compare-ridge",
        &[
            "compare",
            "--data",
            "gen:svr",
            "--n",
            "150",
            "--family",
            "ridge",
            "--methods",
            "agghoo,cv,ekcv,acv",
            "--outer",
            "5x2",
            "--seed",
            "21",
        ],
    ),
    (
        "features-sffs-cfs",
        &[
            "features",
            "--data",
            "bundled:breast-cancer",
            "--missing",
            "drop",
            "--method",
            "sffs",
            "--scorer",
            "cfs",
            "--evaluate",
            "vfold:3",
            "--seed",
            "22",
        ],
    ),
    (
        "features-sfs-wrapper",
        &[
            "features",
            "--data",
            "gen:genuer",
            "--n",
            "120",
            "--method",
            "sfs",
            "--scorer",
            "wrapper:knn:5",
            "--features",
            "3",
            "--seed",
            "23",
        ],
    ),
    (
        "select-svc-two-axes-cv",
        &[
            "select",
            "--data",
            "gen:knn",
            "--n",
            "200",
            "--family",
            "svc",
            "--grid",
            "lambda=log:1e-4:1:5",
            "--grid",
            "gamma=log:0.1:10:3",
            "--method",
            "cv",
            "--plan",
            "vfold",
            "--splits",
            "5",
            "--seed",
            "27",
        ],
    ),
    (
        "select-union-three-families-agghoo",
        &[
            "select",
            "--data",
            "bundled:breast-cancer",
            "--missing",
            "median",
            "--standardize",
            "--family",
            "knn,logistic,forest",
            "--param",
            "trees=50",
            "--method",
            "agghoo",
            "--splits",
            "6",
            "--seed",
            "28",
        ],
    ),
    (
        "compare-three-families",
        &[
            "compare",
            "--data",
            "gen:knn",
            "--n",
            "150",
            "--family",
            "knn,logistic,cart",
            "--methods",
            "cv",
            "--outer",
            "vfold:4",
            "--splits",
            "4",
            "--seed",
            "29",
        ],
    ),
    (
        "treecv-pegasos",
        &["treecv", "--data", "gen:covertype", "--n", "2000", "--learner", "pegasos", "--lambda", "1e-4", "--folds", "10", "--seed", "24"],
    ),
    (
        "treecv-lsq-random",
        &["treecv", "--data", "gen:msd", "--n", "1000", "--learner", "lsq-sgd", "--folds", "loo", "--order", "random", "--seed", "25"],
    ),
    (
        "treecv-nb-standard",
        &[
            "treecv",
            "--data",
            "gen:covertype",
            "--n",
            "1000",
            "--learner",
            "gaussian-nb",
            "--folds",
            "8",
            "--method",
            "standard",
            "--seed",
            "26",
        ],
    ),
];

/// Keys whose values vary from run to run (timings, memory) or list options rather than results.
const VOLATILE: &[&str] = &["wall_seconds", "seconds", "before_bytes", "peak_bytes", "invocation", "spec"];

fn strip(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for key in VOLATILE {
                map.remove(*key);
            }
            map.values_mut().for_each(strip);
        }
        Value::Array(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

fn run(args: &[&str]) -> Value {
    let mut full: Vec<&str> = vec![args[0], "--json", "--threads", "2"];
    full.extend_from_slice(&args[1..]);
    let out = Command::new(env!("CARGO_BIN_EXE_agghoo")).args(&full).output().expect("run agghoo");
    assert!(out.status.success(), "agghoo {}: {}", full.join(" "), String::from_utf8_lossy(&out.stderr));
    let mut doc: Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    strip(&mut doc);
    doc
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/runs")
}

#[test]
fn every_run_reproduces_its_golden_document() {
    let bless_new = std::env::var_os("AGGHOO_BLESS").is_some_and(|v| v == "new");
    let bless = std::env::var_os("AGGHOO_BLESS").is_some() && !bless_new;
    let dir = golden_dir();
    let mut failures = Vec::new();
    for (name, args) in RUNS {
        let got = run(args);
        let path = dir.join(format!("{name}.json"));
        if bless || (bless_new && !path.exists()) {
            std::fs::create_dir_all(&dir).expect("golden dir");
            std::fs::write(&path, serde_json::to_string_pretty(&got).expect("json") + "\n").expect("write golden");
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (record with AGGHOO_BLESS=1)", path.display()));
        let mut want: Value = serde_json::from_str(&text).expect("golden JSON");
        strip(&mut want);
        if got != want {
            failures.push(format!("{name}: agghoo {} differs from {}", args.join(" "), path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_golden_set_covers_every_subcommand_that_computes() {
    for cmd in ["select", "estimate", "compare", "features", "treecv"] {
        assert!(RUNS.iter().any(|(_, a)| a[0] == cmd), "no golden run of `{cmd}`");
    }
    let files = std::fs::read_dir(golden_dir()).map(|d| d.count()).unwrap_or(0);
    assert_eq!(files, RUNS.len(), "one golden file per run, and no stale ones");
}
