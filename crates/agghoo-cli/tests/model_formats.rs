//! Model files across formats: forests saved by an older build (format 2, every node storing
//! its values) still load and predict bit for bit the same, and today's format stores only the
//! leaves' nonzero values, so a forest's file does not grow with the number of classes.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/forest-v2").join(name)
}

fn agghoo(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_agghoo")).args(args).output().expect("run agghoo");
    assert!(o.status.success(), "agghoo {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agghoo-model-formats-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn predict(model: &Path, data: &Path, out: &Path) -> String {
    agghoo(&[
        "predict",
        "--model",
        &model.display().to_string(),
        "--data",
        &data.display().to_string(),
        "--out",
        &out.display().to_string(),
    ]);
    std::fs::read_to_string(out).expect("predictions")
}

fn format_version(model: &Path) -> u64 {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(model).expect("model")).expect("json");
    v["format_version"].as_u64().expect("format_version")
}

/// (data, old model, old predictions, `--param trees=B`) of each fixture.
const FIXTURES: [(&str, &str, &str, &str); 2] = [
    ("regression.csv", "regression-model.json", "regression-predictions.csv", "trees=4"),
    ("classes20.csv", "classes20-model.json", "classes20-predictions.csv", "trees=3"),
];

#[test]
fn format_2_forests_load_and_predict_bit_for_bit() {
    let dir = scratch("v2");
    for (data, model, expected, _) in FIXTURES {
        assert_eq!(format_version(&fixture(model)), 2);
        let got = predict(&fixture(model), &fixture(data), &dir.join(expected));
        let want = std::fs::read_to_string(fixture(expected)).expect("fixture");
        assert_eq!(got, want, "{model}");
    }
}

#[test]
fn refits_store_leaves_only_and_predict_as_before() {
    let dir = scratch("v3");
    for (data, old_model, expected, trees) in FIXTURES {
        let model = dir.join(old_model);
        let data = fixture(data);
        let m = model.display().to_string();
        agghoo(&[
            "select",
            "--data",
            &data.display().to_string(),
            "--target",
            "y",
            "--family",
            "forest",
            "--param",
            trees,
            "--grid",
            "1,3",
            "--splits",
            "2",
            "--seed",
            "5",
            "--out",
            &m,
        ]);
        assert_eq!(format_version(&model), 6);
        // the same fit as the older build, so the same predictions
        let got = predict(&model, &data, &dir.join(expected));
        assert_eq!(got, std::fs::read_to_string(fixture(expected)).expect("fixture"), "{old_model}");
        let (new_size, old_size) =
            (std::fs::metadata(&model).expect("model").len(), std::fs::metadata(fixture(old_model)).expect("fixture").len());
        // 20 classes: format 2 held 20 fractions at every node; the leaves are nearly pure
        if old_model.starts_with("classes20") {
            assert!(new_size * 4 < old_size, "{new_size} bytes vs {old_size} in format 2");
        } else {
            assert!(new_size < old_size, "{new_size} bytes vs {old_size} in format 2");
        }
    }
}

/// The first JSON object holding a `trees` array (a forest member), wherever the file nests it.
fn first_forest(v: &mut serde_json::Value) -> Option<&mut serde_json::Value> {
    if v.get("trees").is_some_and(serde_json::Value::is_array) {
        return Some(v);
    }
    match v {
        serde_json::Value::Object(m) => m.values_mut().find_map(first_forest),
        serde_json::Value::Array(a) => a.iter_mut().find_map(first_forest),
        _ => None,
    }
}

#[test]
fn a_corrupted_format_2_forest_is_an_error_not_a_panic() {
    let dir = scratch("v2-corrupt");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("classes20-model.json")).expect("fixture")).expect("json");
    let forest = first_forest(&mut v).expect("a forest member");
    forest["trees"][0]["values"] = serde_json::json!([0.5]);
    let model = dir.join("corrupt.json");
    std::fs::write(&model, v.to_string()).expect("write");
    let o = Command::new(env!("CARGO_BIN_EXE_agghoo"))
        .args(["predict", "--model", &model.display().to_string(), "--data", &fixture("classes20.csv").display().to_string()])
        .output()
        .expect("run agghoo");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("forest tree 0: values out of range") && !err.contains("panicked"), "{err}");
}
