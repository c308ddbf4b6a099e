//! `agghoo reproduce`: a tiny run writes the table, the JSON and both plots; bad names fail.

use std::process::{Command, Output};

fn agghoo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agghoo")).args(args).output().expect("run agghoo")
}

#[test]
fn reproduce_knn_writes_json_and_plots() {
    let dir = std::env::temp_dir().join(format!("agghoo-reproduce-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    let o = agghoo(&["reproduce", "knn", "--reps", "2", "--n", "100", "--out", &out, "--threads", "2"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("majhoo") && stdout.contains("oracle") && stdout.contains("V = 20"), "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("knn.json")).unwrap()).unwrap();
    assert_eq!(json["command"], "reproduce");
    let rows = json["result"]["rows"].as_array().unwrap();
    // 9 τ × 5 V × (Majhoo, CV) + 2 oracle rows
    assert_eq!(rows.len(), 9 * 5 * 2 + 2);
    assert!(rows.iter().all(|r| r["mean"].as_f64().unwrap().is_finite()));
    assert_eq!(json["result"]["n"], 100);
    for ext in ["svg", "png"] {
        let meta = std::fs::metadata(dir.join(format!("knn.{ext}"))).unwrap();
        assert!(meta.len() > 1000, "knn.{ext} is {} bytes", meta.len());
    }
    let png = std::fs::read(dir.join("knn.png")).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    // --json prints the same document on stdout
    let o = agghoo(&["reproduce", "knn", "--reps", "2", "--n", "60", "--out", &out, "--json"]);
    assert!(o.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["result"]["experiment"], "knn");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reproduce_rejects_unknown_experiments_and_bad_sizes() {
    let o = agghoo(&["reproduce", "nope", "--reps", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("knn"));
    let o = agghoo(&["reproduce", "knn", "--reps", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn reproduce_treecv_writes_json_and_both_plots() {
    let dir = std::env::temp_dir().join(format!("agghoo-reproduce-treecv-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    let o = agghoo(&["reproduce", "treecv", "--n", "2000", "--reps", "2", "--out", &out, "--threads", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("tree-randomised") && stdout.contains("standard-fixed") && stdout.contains("passes tree"), "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("treecv.json")).unwrap()).unwrap();
    assert_eq!(json["result"]["experiment"], "treecv");
    assert_eq!(json["result"]["n"], 2000);
    let rows = json["result"]["rows"].as_array().unwrap();
    // k ∈ {2, 5, 10, 20, 50, 100, 1000, 2000}: at n = 2000 every standard run is under the default cap
    assert_eq!(rows.len(), 2 * 4 * 8);
    assert!(rows.iter().all(|r| r["seconds"].as_f64().unwrap() >= 0.0 && r["v"].as_u64().unwrap() >= 2));
    for name in ["treecv-time", "treecv-estimate"] {
        for ext in ["svg", "png"] {
            let meta = std::fs::metadata(dir.join(format!("{name}.{ext}"))).unwrap();
            assert!(meta.len() > 1000, "{name}.{ext} is {} bytes", meta.len());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every experiment the README and the results page promise runs end to end at a small size
/// (knn and treecv have their own tests above). `reproduce svr` once stopped with an SMO error at
/// its full size while the library's small-size tests passed: the CLI runs are the promise.
#[test]
fn reproduce_every_experiment_runs_at_small_size() {
    let dir = std::env::temp_dir().join(format!("agghoo-reproduce-all-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    for (name, size) in [("cart", &["--n", "120"][..]), ("svr", &["--n", "200"][..]), ("breast-cancer", &[][..])] {
        let o = agghoo(&[&["reproduce", name, "--reps", "2", "--out", &out, "--threads", "2"][..], size].concat());
        assert!(o.status.success(), "reproduce {name}: {}", String::from_utf8_lossy(&o.stderr));
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap()).unwrap();
        assert_eq!(json["result"]["experiment"], name);
        let rows = json["result"]["rows"].as_array().unwrap();
        assert!(!rows.is_empty() && rows.iter().all(|r| r["mean"].as_f64().is_some_and(f64::is_finite)), "{name}: {rows:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `agghoo study --quick`, made tiny: the tables, the JSON, the Markdown report and both plots;
/// a failing cell is reported, not fatal; bad flags fail with exit 2.
#[test]
fn study_quick_writes_tables_json_markdown_and_plots() {
    let dir = std::env::temp_dir().join(format!("agghoo-study-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    let data_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/study");
    let o = agghoo(&[
        "study",
        "--quick",
        "--data-dir",
        data_dir,
        "--sets",
        "penguins,salaries",
        "--reps",
        "2",
        "--max-train",
        "50",
        "--max-test",
        "30",
        "--forest-trees",
        "3",
        "--out",
        &out,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    for needle in [
        "agghoo τ=0.8 V=10",
        "cv+1se V=10",
        "subagging τ=0.8 V=10",
        "bagging V=10",
        "ensemble: subagging / cv",
        "selection: agghoo / subagging",
        "knn",
        "cart",
        "svm",
        "linear",
        "8 cells (0 failed)",
    ] {
        assert!(stdout.contains(needle), "{needle} missing in {stdout}");
    }
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("study.json")).unwrap()).unwrap();
    assert_eq!(json["command"], "study");
    let cells = json["result"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 8);
    assert!(cells.iter().all(|c| c["rows"].as_array().unwrap().len() == 12 && c["rows"][0]["risks"].as_array().unwrap().len() == 2));
    assert!(cells.iter().all(|c| c["comparisons"].as_array().unwrap().len() == 6), "{cells:?}");
    assert_eq!(json["result"]["tie"], "first");
    let md = std::fs::read_to_string(dir.join("study.md")).unwrap();
    assert!(md.contains("### Summary") && md.contains("| penguins | knn |") && md.contains("### svm: per data set"), "{md}");
    assert!(md.contains("### Where the gain comes from") && md.contains("| bagging / agghoo |"), "{md}");
    for base in ["study-relative", "study-tau"] {
        let png = std::fs::read(dir.join(format!("{base}.png"))).unwrap();
        assert_eq!(&png[..4], b"\x89PNG");
        assert!(std::fs::metadata(dir.join(format!("{base}.svg"))).unwrap().len() > 1000);
    }
    let o = agghoo(&["study", "--data-dir", data_dir, "--families", "forest", "--out", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    let o = agghoo(&["study", "--data-dir", data_dir, "--sets", "nope", "--reps", "2", "--out", &out]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nope"));
    let o = agghoo(&["study", "--data-dir", "/nonexistent/study", "--out", &out]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/study"));
    let o = agghoo(&["study", "--data-dir", data_dir, "--sizes", "100,50", "--out", &out]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--sizes"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The size axis: the first size runs every set, a larger one only the sets with that many
/// training rows, with its own repetitions and families; the tie rule is recorded; the
/// confirmation sets are their own folder.
#[test]
fn study_size_axis_tie_rule_and_confirmation_sets() {
    let dir = std::env::temp_dir().join(format!("agghoo-study-sizes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    let data_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/study");
    let tiny = ["--reps", "2", "--max-test", "30", "--forest-trees", "0", "--families", "cart", "--out", &out];
    let mut args =
        vec!["study", "--data-dir", data_dir, "--sets", "iris,penguins", "--sizes", "40,200", "--size-reps", "3", "--tie", "last"];
    args.extend(tiny);
    let o = agghoo(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |name: &str| serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap();
    let (small, large) = (read("study.json"), read("study-n200.json"));
    assert_eq!(small["result"]["cells"].as_array().unwrap().len(), 2);
    // iris has 105 training rows: only penguins (240) reaches 200.
    let cells = large["result"]["cells"].as_array().unwrap();
    assert_eq!((cells.len(), cells[0]["set"].as_str(), cells[0]["n_train"].as_u64()), (1, Some("penguins"), Some(200)));
    assert_eq!((large["result"]["reps"].as_u64(), large["result"]["tie"].as_str()), (Some(3), Some("last")));
    let axis = std::fs::read_to_string(dir.join("study-sizes.md")).unwrap();
    assert!(axis.contains("| 40 | cart | 2 | 2 |") && axis.contains("| 200 | cart | 1 | 3 |") && axis.contains("CPU-hours"), "{axis}");

    // A size no chosen set reaches is skipped, with a warning.
    let mut args = vec!["study", "--data-dir", data_dir, "--sets", "iris", "--sizes", "40,500"];
    args.extend(tiny);
    let o = agghoo(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no chosen set has 500 training rows"));
    assert!(!dir.join("study-n500.json").exists());

    let mut args = vec!["study", "--data-dir", data_dir, "--sets", "confirmation"];
    args.extend(tiny);
    let o = agghoo(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sets: Vec<String> =
        read("study.json")["result"]["cells"].as_array().unwrap().iter().map(|c| c["set"].as_str().unwrap().to_string()).collect();
    assert_eq!(sets.len(), 9);
    assert!(sets.contains(&"default".to_string()) && !sets.contains(&"iris".to_string()), "{sets:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
