//! `--grid NAME=VALUES` axes and `--family a,b,c` from the command line: the tables, the heat
//! map, saved models and `predict`, replay of a recorded invocation (old and new shapes), and a
//! usage error (exit 2, never a panic) for each bad axis.

mod common;

use common::{agghoo, assert_error, scratch, stderr, stdout};

fn ok(args: &[&str]) -> String {
    let o = agghoo(args);
    assert!(o.status.success(), "agghoo {}: {}", args.join(" "), stderr(&o));
    stdout(&o)
}

fn usage_error(args: &[&str], needles: &[&str]) {
    assert_error(&agghoo(args), 2, needles);
}

const SVC: &[&str] = &[
    "select",
    "--data",
    "gen:knn",
    "--n",
    "150",
    "--family",
    "svc",
    "--grid",
    "lambda=log:1e-3:1:4",
    "--grid",
    "gamma=0.5,2",
    "--method",
    "cv",
    "--plan",
    "vfold",
    "--splits",
    "4",
];

const UNION: &[&str] = &[
    "select",
    "--data",
    "gen:knn",
    "--n",
    "150",
    "--family",
    "knn,logistic,cart",
    "--grid",
    "k=1:15:2",
    "--method",
    "agghoo",
    "--splits",
    "6",
];

#[test]
fn two_axes_print_the_chosen_combination_and_draw_a_heat_map() {
    let dir = scratch("heatmap");
    let prefix = dir.join("svc");
    let out = ok(&[SVC, &["--plot", prefix.to_str().unwrap()][..]].concat());
    assert!(out.contains("8 grid points (lambda × gamma)"), "{out}");
    assert!(out.contains("final: lambda = ") && out.contains(", gamma = "), "{out}");
    for ext in ["svg", "png", "csv"] {
        let file = dir.join(format!("svc-heatmap.{ext}"));
        assert!(std::fs::metadata(&file).is_ok_and(|m| m.len() > 0), "{}", file.display());
    }
    let csv = std::fs::read_to_string(dir.join("svc-heatmap.csv")).unwrap();
    assert_eq!(csv.lines().count(), 9, "{csv}");
    assert!(csv.starts_with("lambda,gamma,cv_risk,standard_error"));
    // JSON: every grid point names each axis; the member its point.
    let doc: serde_json::Value = serde_json::from_str(&ok(&[SVC, &["--json"][..]].concat())).unwrap();
    let points = doc["result"]["report"]["grid_points"].as_array().expect("grid points");
    assert_eq!(points.len(), 8);
    assert!(points.iter().all(|p| p["values"]["lambda"].is_number() && p["values"]["gamma"].is_number()));
    assert_eq!(doc["result"]["member_points"][0]["family"], "svc");
    // k-NN over k × weights, the one-standard-error rule per axis
    let knn = ok(&[
        "select",
        "--data",
        "gen:knn",
        "--n",
        "150",
        "--grid",
        "k=1:15:2",
        "--grid",
        "weights=uniform,distance",
        "--method",
        "cv",
        "--one-se",
    ]);
    assert!(knn.contains("16 grid points (k × weights)") && knn.contains("final: k = "), "{knn}");
    // --plot on a one-axis grid is a usage error
    usage_error(&["select", "--data", "gen:knn", "--n", "100", "--plot", dir.join("x").to_str().unwrap()], &["--plot"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_union_names_the_family_of_each_member_and_its_models_predict() {
    let dir = scratch("union");
    let model = dir.join("union.json");
    let out = ok(&[UNION, &["--out", model.to_str().unwrap()][..]].concat());
    assert!(out.contains("union of 3 families"), "{out}");
    for family in ["knn", "logistic", "cart"] {
        assert!(out.contains(&format!("│ {family} ")), "no row for {family}: {out}");
    }
    assert!(out.contains("members, combined by Vote"), "{out}");
    // The model predicts after saving; its members record their families.
    let data = dir.join("new.csv");
    ok(&["gen", "--data", "gen:knn", "--n", "30", "--seed", "9", "--out", data.to_str().unwrap()]);
    let predictions = ok(&["predict", "--model", model.to_str().unwrap(), "--data", data.to_str().unwrap()]);
    assert_eq!(predictions.lines().count(), 31, "{predictions}");
    let saved: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(saved["family"], "knn,logistic,cart");
    assert!(saved["members"].as_array().unwrap().iter().all(|m| m["point"]["family"].is_string()));
    // The two-axis model too.
    let svc = dir.join("svc.json");
    ok(&[SVC, &["--out", svc.to_str().unwrap()][..]].concat());
    let predictions = ok(&["predict", "--model", svc.to_str().unwrap(), "--data", data.to_str().unwrap()]);
    assert_eq!(predictions.lines().count(), 31);
    std::fs::remove_dir_all(&dir).ok();
}

/// A recorded invocation with repeated `--grid` and a family list replays to the same document,
/// and one recorded with a single `grid` string and `family` name (the shape before both became
/// lists) still replays.
#[test]
fn replays_of_grids_old_and_new() {
    let dir = scratch("replay");
    let first = ok(&[UNION, &["--json"][..]].concat());
    let report = dir.join("union.json");
    std::fs::write(&report, &first).unwrap();
    assert_eq!(ok(&["replay", report.to_str().unwrap()]), first);
    let old = ok(&["select", "--data", "gen:knn", "--n", "100", "--grid", "1:9:2", "--method", "cv", "--json"]);
    let mut doc: serde_json::Value = serde_json::from_str(&old).unwrap();
    let select = &mut doc["invocation"]["select"]["family"];
    assert_eq!(select["grid"], serde_json::json!(["1:9:2"]));
    select["grid"] = serde_json::json!("1:9:2");
    select["family"] = serde_json::json!("knn");
    std::fs::write(&report, doc.to_string()).unwrap();
    assert_eq!(ok(&["replay", report.to_str().unwrap()]), old);
    select_null_grid(&dir);
    std::fs::remove_dir_all(&dir).ok();
}

fn select_null_grid(dir: &std::path::Path) {
    let old = ok(&["select", "--data", "gen:knn", "--n", "100", "--method", "cv", "--json"]);
    let mut doc: serde_json::Value = serde_json::from_str(&old).unwrap();
    doc["invocation"]["select"]["family"]["grid"] = serde_json::Value::Null;
    let report = dir.join("null.json");
    std::fs::write(&report, doc.to_string()).unwrap();
    assert_eq!(ok(&["replay", report.to_str().unwrap()]), old);
}

#[test]
fn bad_axes_are_usage_errors() {
    let base = ["select", "--data", "gen:knn", "--n", "100", "--method", "cv"];
    fn join<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [base, extra].concat()
    }
    let with = |extra: &[&'static str]| join(&base, extra);
    // an axis the family does not have: named, with the family's axes
    usage_error(&with(&["--family", "svc", "--grid", "degree=2,3"]), &["degree", "svc has lambda or C, gamma"]);
    // an axis no family of a union has
    usage_error(&with(&["--family", "knn,logistic", "--grid", "gamma=1,2"]), &["gamma", "knn has k", "logistic has lambda"]);
    // an axis given twice, a family given twice
    usage_error(&with(&["--family", "svc", "--grid", "gamma=1,2", "--grid", "gamma=3"]), &["gamma", "twice"]);
    usage_error(&with(&["--family", "knn,knn"]), &["knn", "twice"]);
    // two grids without names; a grid without a name for a union
    usage_error(&with(&["--grid", "1:9:2", "--grid", "1:5:2"]), &["axis name"]);
    usage_error(&with(&["--family", "knn,logistic", "--grid", "1:9:2"]), &["several families"]);
    // malformed axis values
    usage_error(&with(&["--family", "svc", "--grid", "gamma=x,y"]), &["grid"]);
    // a setting no family of the union knows
    let o = agghoo(&with(&["--family", "knn,logistic", "--param", "trees=10"]));
    assert!(!o.status.success() && stderr(&o).contains("trees") && !stderr(&o).contains("panicked"), "{}", stderr(&o));
    // estimate evaluates one rule of one family
    usage_error(&["estimate", "--data", "gen:knn", "--n", "100", "--family", "knn,logistic", "--param", "5"], &["estimate"]);
    // compare: an axis none of the compared families has
    usage_error(
        &["compare", "--data", "gen:knn", "--n", "100", "--family", "knn,logistic", "--grid", "gamma=1,2", "--outer", "vfold:3"],
        &["gamma", "knn has k, weights", "logistic has lambda, penalty"],
    );
    // two names of one path axis; a path axis other than the one --param grid names
    usage_error(
        &with(&["--family", "svc", "--grid", "lambda=0.1,1", "--grid", "C=1,2"]),
        &["`lambda` and `C`", "svc has lambda or C, gamma"],
    );
    usage_error(&with(&["--family", "svc", "--param", "grid=lambda", "--grid", "C=1,2"]), &["`C` with --param grid=lambda"]);
}

#[test]
fn compare_gives_one_row_per_family_and_method() {
    let out = ok(&[
        "compare",
        "--data",
        "gen:knn",
        "--n",
        "120",
        "--family",
        "knn,logistic",
        "--grid",
        "k=1:9:2",
        "--methods",
        "cv,agghoo",
        "--outer",
        "vfold:3",
        "--splits",
        "3",
    ]);
    for row in ["knn:cv", "knn:agghoo", "logistic:cv", "logistic:agghoo", "knn:cv − logistic:agghoo"] {
        assert!(out.contains(row), "no `{row}`: {out}");
    }
}

/// 60 rows: two numeric features, a text column whose level `z` is on one row only, two classes.
fn rare_level_csv(dir: &std::path::Path) -> String {
    let mut text = String::from("x1,x2,colour,y\n");
    for i in 0..60u32 {
        let (x1, x2) = (f64::from(i % 7) * 0.5, f64::from((i * 13) % 11) * 0.3);
        let colour = if i == 17 {
            "z"
        } else if i % 2 == 0 {
            "red"
        } else {
            "blue"
        };
        let y = u32::from(x1 + x2 + if colour == "red" { 1.0 } else { 0.0 } > 3.0);
        text.push_str(&format!("{x1},{x2},{colour},{y}\n"));
    }
    common::write(dir, "rare.csv", &text)
}

/// In a union with one-hot families, a forest is as wide as each training set: a split whose
/// training rows lack the rare level (one column fewer) fits (it failed with "the tree model has
/// 5 features, the data have 4"). `compare` routes `--param trees=5` to the forest as `select` does.
#[test]
fn forest_in_a_union_fits_training_sets_that_lack_a_level() {
    let dir = scratch("rare-level");
    let csv = rare_level_csv(&dir);
    let union = ["--data", csv.as_str(), "--target", "y", "--family", "knn,forest", "--param", "trees=5", "--seed", "3"];
    let out = ok(&[&["select"][..], &union, &["--method", "agghoo", "--splits", "8", "--tau", "0.5"]].concat());
    assert!(out.contains("union of 2 families"), "{out}");
    let out = ok(&[&["compare"][..], &union, &["--methods", "cv", "--outer", "vfold:3", "--splits", "3"]].concat());
    assert!(out.contains("forest:cv") && out.contains("knn:cv"), "{out}");
    // A setting neither family knows is still refused, naming what each knows.
    let o = agghoo(&[&["compare"][..], &union, &["--param", "tres=5", "--methods", "cv", "--outer", "vfold:3"]].concat());
    assert!(!o.status.success() && stderr(&o).contains("`tres` (knn knows weights; forest knows trees"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

/// `--grid C=…` is svc's and svr's other name for the path axis (`--param grid=C`), as `--help`
/// lists it, alone or with `gamma`: the same report as with `--param grid=C`.
#[test]
fn c_names_the_path_axis_of_svc_and_svr() {
    for (family, data) in [("svc", "gen:knn"), ("svr", "gen:svr")] {
        let base =
            ["select", "--data", data, "--n", "80", "--family", family, "--method", "cv", "--plan", "vfold", "--splits", "3", "--json"];
        for extra in [&["--grid", "C=0.5,2,8"][..], &["--grid", "C=0.5,2,8", "--grid", "gamma=0.5,2"]] {
            let alias = ok(&[&base[..], extra].concat());
            let canonical = ok(&[&base[..], extra, &["--param", "grid=C"]].concat());
            let report = |text: &str| serde_json::from_str::<serde_json::Value>(text).unwrap()["result"].clone();
            assert_eq!(report(&alias), report(&canonical), "{family} {extra:?}");
            assert!(alias.contains("\"C\""), "{alias}");
        }
    }
}
