//! Reports from elsewhere and the files agghoo writes: `replay` of crafted reports writes nothing
//! the replay command line did not ask for and reruns only the commands that print a report;
//! `predict` keeps every row and quotes its CSV cells; `--json --out` writes the document; write
//! errors name the path; `study` checks its manifest; EKCV reports the value it fitted.

mod common;

use std::path::Path;
use std::process::Output;

use common::{agghoo, assert_error, scratch, stderr, stdout, write};
use serde_json::{Value, json};

/// `agghoo` run from the folder `cwd`.
fn agghoo_in(cwd: &Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_agghoo")).args(args).current_dir(cwd).output().expect("run agghoo")
}

fn json_of(o: &Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).expect("json")
}

/// 30 rows: an id column, two features and a class target.
fn training_csv(dir: &Path) -> String {
    let rows: String = (0..30).map(|i| format!("r{i},{i},{},{}\n", (i * 7) % 11, i % 2)).collect();
    write(dir, "train.csv", &format!("id,a,b,y\n{rows}"))
}

/// A report of `run` (printed with `--json`) whose invocation is edited by `edit`, saved in `dir`.
fn crafted(dir: &Path, name: &str, run: &[&str], edit: impl FnOnce(&mut Value)) -> String {
    let mut doc = json_of(&agghoo_in(dir, &[run, &["--json"][..]].concat()));
    edit(&mut doc["invocation"]);
    write(dir, name, &doc.to_string())
}

/// Replaying crafted reports: an absolute or `..` output path is not written (said on stderr),
/// `--out-dir` rebases it by file name and refuses to write through a symbolic link; the model
/// and data the report names are only read.
#[test]
fn replay_writes_no_output_path_the_report_records() {
    let dir = scratch("replay-outputs");
    let work = dir.join("work");
    let victim = dir.join("victim");
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&victim).unwrap();
    let train = training_csv(&work);
    assert!(agghoo_in(&work, &["select", "--data", &train, "--target", "y", "--ignore", "id", "--out", "model.json"]).status.success());
    // The attack of the sweep: an id cell holding a shell line, `--out` an absolute path.
    let attack = write(&work, "new.csv", "id,a,b\n\"touch PWNED;#\",1,2\nx,3,4\n");
    let bashrc = victim.join("fake_bashrc");
    let report = crafted(&work, "predict.json", &["predict", "--model", "model.json", "--data", &attack, "--id", "id"], |inv| {
        inv["predict"]["out"] = json!(bashrc.display().to_string());
        inv["predict"]["output"]["json"] = json!(false);
    });
    let o = agghoo_in(&work, &["replay", &report]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!bashrc.exists(), "replay wrote the recorded absolute --out");
    assert!(stderr(&o).contains(&format!("not writing the recorded --out {}", bashrc.display())), "{}", stderr(&o));
    assert!(stdout(&o).contains("touch PWNED;#"), "the predictions go to stdout: {}", stdout(&o));
    // `..` from a sub-folder.
    let sub = work.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let report_up = crafted(&work, "up.json", &["predict", "--model", "model.json", "--data", &attack], |inv| {
        inv["predict"]["out"] = json!("../escaped.csv");
        inv["predict"]["model"] = json!(work.join("model.json").display().to_string());
    });
    assert!(agghoo_in(&sub, &["replay", &report_up]).status.success());
    assert!(!work.join("escaped.csv").exists(), "replay wrote the recorded ../ path");
    // --out-dir: inside DIR by file name; the victim folder stays untouched.
    let out_dir = dir.join("rerun");
    let o = agghoo_in(&work, &["replay", &report, "--out-dir", &out_dir.display().to_string()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(out_dir.join("fake_bashrc").exists() && !bashrc.exists());
    assert!(stderr(&o).contains(&format!("is written to {}", out_dir.join("fake_bashrc").display())), "{}", stderr(&o));
    // A rebased target that is a symbolic link (to the victim) is refused.
    std::fs::write(&bashrc, "original\n").unwrap();
    std::fs::remove_file(out_dir.join("fake_bashrc")).unwrap();
    std::os::unix::fs::symlink(&bashrc, out_dir.join("fake_bashrc")).unwrap();
    let o = agghoo_in(&work, &["replay", &report, "--out-dir", &out_dir.display().to_string()]);
    assert_error(&o, 2, &["symbolic link", "fake_bashrc"]);
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "original\n");
    // Every output flag of select and estimate: dropped without --out-dir.
    let select = crafted(&work, "select.json", &["select", "--data", &train, "--target", "y", "--ignore", "id"], |inv| {
        inv["select"]["out"] = json!(victim.join("model.json").display().to_string());
        inv["select"]["plot"] = json!("../../plot");
    });
    let o = agghoo_in(&work, &["replay", &select]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("not writing the recorded --out") && stderr(&o).contains("not writing the recorded --plot"));
    assert_eq!(json_of(&o)["result"]["model_file"], Value::Null);
    let estimate =
        crafted(&work, "estimate.json", &["estimate", "--data", &train, "--target", "y", "--ignore", "id", "--value", "3"], |inv| {
            inv["estimate"]["oof"] = json!(victim.join("oof.csv").display().to_string());
            inv["estimate"]["curve_out"] = json!(victim.join("curve").display().to_string());
            inv["estimate"]["validation_curve"] = json!(true);
        });
    let o = agghoo_in(&work, &["replay", &estimate]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("--oof") && stderr(&o).contains("--curve-out"), "{}", stderr(&o));
    let written: Vec<_> = std::fs::read_dir(&victim).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(written, ["fake_bashrc"], "replay wrote into the victim folder");
    std::fs::remove_dir_all(&dir).ok();
}

/// Invocations that print no report (gen, splits), `study` and `reproduce` without `--out-dir`
/// are refused; huge numbers and wrong types are clear errors, never a panic.
#[test]
fn replay_refuses_what_prints_no_report_and_bad_values() {
    let dir = scratch("replay-refused");
    let train = training_csv(&dir);
    let base = crafted(&dir, "base.json", &["select", "--data", &train, "--target", "y", "--ignore", "id"], |_| {});
    let select: Value = serde_json::from_str::<Value>(&std::fs::read_to_string(&base).unwrap()).unwrap()["invocation"]["select"].clone();
    let report = |name: &str, invocation: Value| write(&dir, name, &json!({"schema_version": 1, "invocation": invocation}).to_string());
    let generate = report("gen.json", json!({"gen": {"data": select["data"], "seed": 0, "out": dir.join("g.csv")}}));
    assert_error(&agghoo_in(&dir, &["replay", &generate]), 2, &["`gen`", "replay reruns select, predict"]);
    assert!(!dir.join("g.csv").exists());
    let splits = report("splits.json", json!({"splits": {"data": select["data"], "plan": select["plan"], "seed": 0, "out": "s.json"}}));
    assert_error(&agghoo_in(&dir, &["replay", &splits]), 2, &["`splits`"]);
    let study_args = json!({"data_dir": "data/study", "quick": true, "sets": [], "families": [], "out": dir.join("s"), "json": true});
    assert_error(&agghoo_in(&dir, &["replay", &report("study.json", json!({"study": study_args}))]), 2, &["`study`"]);
    let reproduce = report("reproduce.json", json!({"reproduce": {"experiment": "knn", "out": "/tmp/x", "json": true}}));
    assert_error(&agghoo_in(&dir, &["replay", &reproduce]), 2, &["reproduce", "--out-dir"]);
    let replay = report("replay.json", json!({"replay": {"report": "replay.json"}}));
    assert_error(&agghoo_in(&dir, &["replay", &replay]), 2, &["`replay` itself"]);
    // Huge numbers and wrong types in an otherwise valid select report.
    let edited = |name: &str, edit: &dyn Fn(&mut Value)| {
        let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
        edit(&mut doc["invocation"]["select"]);
        write(&dir, name, &doc.to_string())
    };
    // A report records the spec it ran, and replay reruns the spec: a huge number there, or in
    // the invocation of a report without a spec (from before specs), is a clear error.
    let mut doc: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    doc["spec"]["plan"]["n_splits"] = json!(u64::MAX);
    let huge_spec = write(&dir, "huge-spec.json", &doc.to_string());
    assert_error(&agghoo_in(&dir, &["replay", &huge_spec]), 1, &["18446744073709551615 splits", "--limit splits=N"]);
    doc["spec"]["plan"]["n_splits"] = json!(-1);
    let negative = write(&dir, "negative-spec.json", &doc.to_string());
    assert_error(&agghoo_in(&dir, &["replay", &negative]), 2, &["the recorded spec is not one this agghoo runs", "-1"]);
    doc.as_object_mut().unwrap().remove("spec");
    doc["invocation"]["select"]["plan"]["n_splits"] = json!(u64::MAX);
    let huge_splits = write(&dir, "huge.json", &doc.to_string());
    assert_error(&agghoo_in(&dir, &["replay", &huge_splits]), 1, &["18446744073709551615 splits", "--limit splits=N"]);
    let float_n = edited("float.json", &|s| s["data"]["n"] = json!(1e300));
    assert_error(&agghoo_in(&dir, &["replay", &float_n]), 2, &["not one this agghoo runs", "floating point `1e+300`, expected usize"]);
    let wrong_type = edited("type.json", &|s| s["data"]["data"] = json!(5));
    assert_error(&agghoo_in(&dir, &["replay", &wrong_type]), 2, &["not one this agghoo runs", "invalid type"]);
    let bad_method = edited("method.json", &|s| s["method"] = json!("rm -rf"));
    assert_error(&agghoo_in(&dir, &["replay", &bad_method]), 2, &["not one this agghoo runs", "rm -rf"]);
    std::fs::remove_dir_all(&dir).ok();
}

/// The cells of a CSV text (RFC 4180: quoted cells may hold commas, quotes and line breaks).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let (mut rows, mut row, mut cell) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    rows
}

/// `predict` keeps every input row in order whatever the target cell holds (an empty target
/// dropped the row and shifted the later ones), states over how many rows the risk is, writes
/// `--json --out` to the file, and writes id cells holding a newline, a comma or a quote as one
/// cell each.
#[test]
fn predict_keeps_every_row_and_quotes_its_cells() {
    let dir = scratch("predict-rows");
    let train = training_csv(&dir);
    let model = dir.join("m.json").display().to_string();
    assert!(agghoo(&["select", "--data", &train, "--target", "y", "--ignore", "id", "--out", &model]).status.success());
    let ids = ["plain", "two\nlines", "a,b", "say \"hi\"", "=1+2", "r5", "r6", "r7", "r8", "r9"];
    let cell = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let rows = |target: &dyn Fn(usize) -> String| -> String {
        ids.iter().enumerate().map(|(i, id)| format!("{},{},{},{}\n", cell(id), i * 3, (i * 5) % 11, target(i))).collect()
    };
    let with_gap = write(&dir, "gap.csv", &format!("id,a,b,y\n{}", rows(&|i| if i == 2 { String::new() } else { (i % 2).to_string() })));
    let no_target = write(&dir, "none.csv", &format!("id,a,b,z\n{}", rows(&|_| "0".into())));
    let run = |data: &str, out: &str| {
        let o = agghoo(&["predict", "--model", &model, "--data", data, "--id", "id", "--out", out]);
        assert!(o.status.success(), "{}", stderr(&o));
        (parse_csv(&std::fs::read_to_string(out).unwrap()), stderr(&o))
    };
    let (gap, said) = run(&with_gap, &dir.join("gap-out.csv").display().to_string());
    let (reference, _) = run(&no_target, &dir.join("none-out.csv").display().to_string());
    assert_eq!(gap.len(), 11, "a header and 10 rows: {gap:?}");
    assert_eq!(gap, reference, "the same predictions in the same rows with and without a target");
    let read_ids: Vec<&str> = gap[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(read_ids, ids, "each id one cell, in order");
    assert!(gap.iter().all(|r| r.len() == 2), "{gap:?}");
    assert!(said.contains("on the 9 of these 10 rows that have a target"), "{said}");
    let all_gaps = write(&dir, "gaps.csv", &format!("id,a,b,y\n{}", rows(&|_| String::new())));
    let (gaps, said) = run(&all_gaps, &dir.join("gaps-out.csv").display().to_string());
    assert_eq!(gaps, reference, "every target cell empty: every row still predicted");
    assert!(said.contains("no risk"), "{said}");
    // --json --out writes the document to the file (it wrote nothing).
    let json_out = dir.join("p.json");
    let o = agghoo(&["predict", "--model", &model, "--data", &with_gap, "--json", "--out", &json_out.display().to_string()]);
    assert!(o.status.success() && o.stdout.is_empty(), "{}", stderr(&o));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json_out).unwrap()).unwrap();
    assert_eq!(
        (doc["command"].as_str(), doc["result"]["n_rows"].as_u64(), doc["result"]["risk_rows"].as_u64()),
        (Some("predict"), Some(10), Some(9))
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Every output path error names the path and what was written (it was only `No such file or
/// directory (os error 2)`).
#[test]
fn write_errors_name_the_path_and_what_was_written() {
    let dir = scratch("write-errors");
    let train = training_csv(&dir);
    let model = dir.join("m.json").display().to_string();
    assert!(agghoo(&["select", "--data", &train, "--target", "y", "--ignore", "id", "--out", &model]).status.success());
    let missing = |name: &str| dir.join("no-such-folder").join(name).display().to_string();
    let select = ["select", "--data", &train, "--target", "y", "--ignore", "id"];
    let estimate = ["estimate", "--data", &train, "--target", "y", "--ignore", "id", "--value", "3"];
    let cases: Vec<(Vec<String>, &str, String)> = vec![
        (
            vec!["predict".into(), "--model".into(), model.clone(), "--data".into(), train.clone(), "--out".into(), missing("p.csv")],
            "writing the predictions to",
            missing("p.csv"),
        ),
        (
            vec!["gen".into(), "--data".into(), "gen:knn".into(), "--n".into(), "20".into(), "--out".into(), missing("g.csv")],
            "writing the generated data to",
            missing("g.csv"),
        ),
        (
            select.iter().map(|s| s.to_string()).chain(["--out".into(), missing("m.json")]).collect(),
            "saving the model (--out)",
            missing("m.json"),
        ),
        (
            estimate.iter().map(|s| s.to_string()).chain(["--oof".into(), missing("oof.csv")]).collect(),
            "out-of-fold predictions (--oof)",
            missing("oof.csv"),
        ),
        (
            estimate.iter().map(|s| s.to_string()).chain(["--validation-curve".into(), "--curve-out".into(), missing("c")]).collect(),
            "the validation curve (--curve-out)",
            missing("c-validation.csv"),
        ),
        (
            vec!["splits".into(), "--data".into(), "gen:knn".into(), "--n".into(), "20".into(), "--out".into(), missing("s.json")],
            "saving the splits (--out)",
            missing("s.json"),
        ),
    ];
    for (args, what, path) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_error(&agghoo(&args), 1, &[what, path]);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `study` refuses a manifest that lists no set (it printed tables of -0.0 and exited 0) and a
/// manifest whose counts disagree with the file read, naming the set and both numbers.
#[test]
fn study_refuses_an_empty_or_wrong_manifest() {
    let dir = scratch("study-manifest");
    let header = "name\ttask\ttarget\trows\tfeatures\tnumeric\tcategorical\tcategorical_names\tmissing_cells\tclasses\tsource\toriginal\tlicence\tchanges\n";
    std::fs::write(dir.join("manifest.tsv"), header).unwrap();
    let study = |d: &Path| {
        agghoo(&["study", "--data-dir", &d.display().to_string(), "--reps", "2", "--out", &dir.join("out").display().to_string()])
    };
    assert_error(&study(&dir), 1, &["manifest.tsv", "lists no data set"]);
    let iris = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/study/iris.csv.gz");
    std::fs::copy(iris, dir.join("iris.csv.gz")).unwrap();
    let line = "iris\tclassification\tSpecies\t999999999999\t4\t4\t0\t-\t0\t3\ts\to\tl\t-\n";
    std::fs::write(dir.join("manifest.tsv"), format!("{header}{line}")).unwrap();
    assert_error(&study(&dir), 1, &["iris.csv.gz", "rows: the file has 150, the manifest lists 999999999999"]);
    assert!(!dir.join("out").exists(), "nothing written");
    std::fs::remove_dir_all(&dir).ok();
}

/// EKCV's `final_value` is the value the model was fitted with (k-NN: a whole k on the grid, as
/// `member_values`); the mean of the selections is `mean_selected` (it reported k = 5.4 for a
/// model fitted with k = 5).
#[test]
fn ekcv_reports_the_value_it_fitted_and_the_mean_apart() {
    let mut off_grid = 0;
    for seed in ["1", "2", "3", "4", "5", "6"] {
        let o = agghoo(&["select", "--data", "gen:knn", "--n", "120", "--grid", "1:15:1", "--method", "ekcv", "--seed", seed, "--json"]);
        let doc = json_of(&o);
        let report = &doc["result"]["report"];
        let (fitted, mean) = (report["final_value"].as_f64().unwrap(), report["mean_selected"].as_f64().unwrap());
        assert_eq!(doc["result"]["member_values"], json!([fitted]), "seed {seed}");
        assert_eq!(fitted.fract(), 0.0, "seed {seed}: k = {fitted}");
        assert!((fitted - mean).abs() <= 0.5, "seed {seed}: k = {fitted}, mean {mean}");
        off_grid += usize::from(mean.fract() != 0.0);
    }
    assert!(off_grid > 0, "no seed gave a mean off the grid: the test tests nothing");
    // Ridge fits off the grid: the value fitted is the mean itself.
    let o = agghoo(&["select", "--data", "gen:svr", "--n", "100", "--family", "ridge", "--method", "ekcv", "--seed", "2", "--json"]);
    let report = &json_of(&o)["result"]["report"];
    assert_eq!(report["final_value"], report["mean_selected"]);
}

/// `select` and `estimate` reports record the spec they ran: `--spec FILE` runs it again to the
/// same result, replay reruns it (whatever the invocation's flags say), and a bad spec field is a
/// usage error naming the file and the field.
#[test]
fn a_recorded_spec_runs_again_to_the_same_result() {
    let dir = scratch("spec-rerun");
    let train = training_csv(&dir);
    let runs: [&[&str]; 2] = [
        &["select", "--data", &train, "--target", "y", "--ignore", "id", "--method", "cv", "--grid", "1:9:2", "--plan", "vfold", "-V", "3"],
        &["estimate", "--data", "gen:svr", "--n", "60", "--family", "ridge", "--value", "0.5", "--splits", "4", "--seed", "2"],
    ];
    for run in runs {
        let first = json_of(&agghoo_in(&dir, &[run, &["--json"][..]].concat()));
        assert!(first["spec"].is_object(), "{run:?}: no spec in {first}");
        let spec = write(&dir, "spec.json", &first["spec"].to_string());
        let data_flags: Vec<&str> = run.iter().copied().take_while(|a| !a.starts_with("--family") && !a.starts_with("--method")).collect();
        let again = json_of(&agghoo_in(&dir, &[&data_flags[..], &["--spec", &spec, "--json"]].concat()));
        assert_eq!((&again["result"], &again["spec"]), (&first["result"], &first["spec"]), "{run:?}");
        // Replay reruns the recorded spec, not the invocation's flags.
        let mut edited = first.clone();
        let command = run[0];
        edited["invocation"][command]["seed"] = json!(77);
        let report = write(&dir, "edited.json", &edited.to_string());
        let replayed = json_of(&agghoo_in(&dir, &["replay", &report]));
        assert_eq!(replayed["result"], first["result"], "{run:?}");
    }
    let select_data = ["select", "--data", &train, "--target", "y", "--ignore", "id"];
    let bad = write(&dir, "bad.json", r#"{"metod": "cv"}"#);
    assert_error(&agghoo_in(&dir, &[&select_data[..], &["--spec", &bad]].concat()), 2, &["bad.json", "unknown field `metod`", "line 1"]);
    let bad = write(&dir, "bad-value.json", r#"{"method": "cv", "one_standard_error": true, "tie": "lats"}"#);
    assert_error(&agghoo_in(&dir, &[&select_data[..], &["--spec", &bad]].concat()), 2, &["parameter `tie` must be one of"]);
    let rule = write(&dir, "rule.json", r#"{"method": "agghoo", "one_standard_error": true}"#);
    assert_error(&agghoo_in(&dir, &[&select_data[..], &["--spec", &rule]].concat()), 2, &["one-se"]);
    // The flags a spec replaces are refused beside it.
    let o = agghoo_in(&dir, &[&select_data[..], &["--spec", &rule, "--method", "cv"]].concat());
    assert_error(&o, 2, &["--spec", "--method"]);
    std::fs::remove_dir_all(&dir).ok();
}

/// `features` and `treecv` reports record the spec they ran: `--spec FILE` runs it again to the
/// same result, replay reruns the recorded spec (whatever the invocation's flags say), and a
/// spec file beyond the memory budget is refused by name and size before it is read.
#[test]
fn features_and_treecv_specs_run_again_to_the_same_result() {
    let dir = scratch("spec-features-treecv");
    let runs: [(&[&str], &[&str]); 2] = [
        (
            &["features", "--data", "bundled:breast-cancer", "--missing", "drop"],
            &[
                "--method",
                "sfs",
                "--scorer",
                "wrapper:knn:5",
                "--features",
                "2",
                "--inner",
                "vfold:3",
                "--evaluate",
                "vfold:3",
                "--seed",
                "4",
            ],
        ),
        (
            &["treecv", "--data", "gen:covertype", "--n", "400"],
            &["--learner", "gaussian-nb", "--folds", "loo", "--order", "random", "--seed", "6"],
        ),
    ];
    // TreeCV's timings and memory differ from run to run.
    let result = |doc: &Value| {
        let mut r = doc["result"].clone();
        if let Some(m) = r.as_object_mut() {
            m.retain(|k, _| !["wall_seconds", "memory"].contains(&k.as_str()));
        }
        r
    };
    for (data, flags) in runs {
        let first = json_of(&agghoo_in(&dir, &[data, flags, &["--json"]].concat()));
        assert!(first["spec"].is_object(), "{data:?}: no spec in {first}");
        let spec = write(&dir, "spec.json", &first["spec"].to_string());
        let again = json_of(&agghoo_in(&dir, &[data, &["--spec", &spec, "--json"]].concat()));
        assert_eq!((result(&again), &again["spec"]), (result(&first), &first["spec"]), "{data:?}");
        let mut edited = first.clone();
        edited["invocation"][data[0]]["seed"] = json!(77);
        let report = write(&dir, "edited.json", &edited.to_string());
        let replayed = json_of(&agghoo_in(&dir, &["replay", &report]));
        assert_eq!(result(&replayed), result(&first), "{data:?}");
        // The flags a spec replaces are refused beside it.
        assert_error(&agghoo_in(&dir, &[data, &["--spec", &spec, "--seed", "1"]].concat()), 2, &["--spec", "--seed"]);
    }
    let bad = write(&dir, "bad.json", r#"{"learner": "density", "lambda": [0.1]}"#);
    assert_error(&agghoo_in(&dir, &["treecv", "--data", "gen:covertype", "--n", "50", "--spec", &bad]), 2, &["lambda", "pegasos"]);
    let text = format!("{{\"seed\": 1{}}}", " ".repeat(4096));
    let (big, size) = (write(&dir, "big.json", &text), format!("{} bytes", text.len()));
    for command in ["features", "treecv", "select", "estimate"] {
        let o = agghoo_in(&dir, &["--max-memory", "1K", command, "--data", "gen:knn", "--spec", &big]);
        assert_error(&o, 1, &["big.json", &size, "--max-memory"]);
    }
    assert_error(&agghoo_in(&dir, &["--max-memory", "1K", "replay", &big]), 1, &["big.json", &size]);
    std::fs::remove_dir_all(&dir).ok();
}
