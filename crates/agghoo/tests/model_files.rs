//! Model files of every family: a save / load round trip predicts identically, and a file whose
//! internals were corrupted (array lengths, tree links, class indices, hyperparameters, numbers
//! out of range, an edited merged model) is refused on load with [`Error::BadFile`] naming the
//! inconsistency — never a panic, never silently different predictions. Models deserialized
//! directly (without the file checks) return errors from `predict` instead of panicking.

use std::path::Path;

use agghoo::data::{Dataset, MissingCategory, Preprocess, Target};
use agghoo::family::{self, FamilyKind, FamilyParams, GridSpec, Model, Predictor};
use agghoo::resample::MonteCarlo;
use agghoo::select::{self, FittedModel, Method, SelectConfig};
use agghoo::{Error, Purpose, Seed};
use rand::RngExt;
use serde_json::{Value, json};

/// n rows, 3 features; the target depends on the first two.
fn data(n: usize, classes: u32, seed: u64) -> Dataset {
    let mut rng = Seed(seed).rng(Purpose::Data, 0);
    let x: Vec<f64> = (0..n * 3).map(|_| rng.random::<f64>() * 2.0 - 1.0).collect();
    let score = |i: usize| x[3 * i] + 0.5 * x[3 * i + 1];
    let target = if classes == 0 {
        Target::Real((0..n).map(|i| score(i) + 0.1 * rng.random::<f64>()).collect())
    } else {
        let labels = (0..n).map(|i| (((score(i) + 1.5) / 3.0 * f64::from(classes)) as u32).min(classes - 1)).collect();
        Target::Classes { labels, names: (0..classes).map(|c| format!("c{c}")).collect() }
    };
    Dataset::new(x, vec!["a".into(), "b".into(), "c".into()], target, "y").unwrap()
}

fn fit(kind: FamilyKind, params: FamilyParams, data: &Dataset, method: Method, preprocess: Preprocess) -> FittedModel {
    let fam = family::build(kind, &params, data).unwrap();
    let splits = MonteCarlo::new(3, 0.75).unwrap().instantiate(data.n_rows(), Seed(7)).unwrap();
    let config = SelectConfig { preprocess, ..SelectConfig::new(method) };
    select::select(fam.as_ref(), data, &splits, &config).unwrap().0
}

fn grid(text: &str) -> FamilyParams {
    FamilyParams::with_grid(GridSpec::parse(text).unwrap())
}

/// The model's JSON after `edit`, loaded: the error message, which must be a `BadFile`.
fn load_error(model: &FittedModel, edit: impl FnOnce(&mut Value)) -> String {
    let mut value = serde_json::to_value(model).unwrap();
    edit(&mut value);
    match FittedModel::from_json(&value.to_string(), Path::new("m.json")) {
        Err(Error::BadFile { message, .. }) => message,
        other => panic!("expected a BadFile error, got {other:?}"),
    }
}

fn assert_refused(model: &FittedModel, expected: &str, edit: impl FnOnce(&mut Value)) {
    let message = load_error(model, edit);
    assert!(message.contains(expected), "`{message}` does not mention `{expected}`");
}

/// Round trip through text: equal model, identical predictions.
fn assert_round_trip(model: &FittedModel, data: &Dataset) {
    let text = serde_json::to_string(model).unwrap();
    let back = FittedModel::from_json(&text, Path::new("m.json")).unwrap();
    assert_eq!(&back, model);
    assert_eq!(back.predict(data).unwrap(), model.predict(data).unwrap());
    // the untouched file passes the checks the corruptions below must fail
    assert!(load_error_free(model));
}

fn load_error_free(model: &FittedModel) -> bool {
    FittedModel::from_json(&serde_json::to_string(model).unwrap(), Path::new("m.json")).is_ok()
}

fn member(v: &mut Value) -> &mut Value {
    &mut v["members"][0]["model"]
}

/// The value at a JSON pointer (`/members/0/model`).
fn at<'a>(v: &'a mut Value, pointer: &str) -> &'a mut Value {
    v.pointer_mut(pointer).unwrap_or_else(|| panic!("no {pointer}"))
}

/// Removes the last element of a JSON array.
fn pop(v: &mut Value) {
    v.as_array_mut().unwrap().pop().unwrap();
}

#[test]
fn ridge_and_kernel_ridge() {
    let d = data(80, 0, 1);
    let linear = fit(FamilyKind::Ridge, grid("log:0.001:10:5"), &d, Method::Agghoo, Preprocess::default());
    assert!(linear.is_merged());
    assert_round_trip(&linear, &d);
    assert_refused(&linear, "coefficient arrays do not match", |v| pop(&mut member(v)["coefficients"]["weights"]));
    assert_refused(&linear, "schema has 3", |v| member(v)["n_features"] = json!(4));
    // 1e999 is not a finite f64: refused while parsing
    let huge = serde_json::to_string(&linear).unwrap().replacen("\"intercept\":", "\"intercept\":1e999,\"x\":", 1);
    assert!(matches!(FittedModel::from_json(&huge, Path::new("m.json")), Err(Error::BadFile { .. })));
    assert_refused(&linear, "expected f64", |v| member(v)["intercept"] = json!(null));
    // an edited merged model (used for prediction) no longer matches its members
    assert_refused(&linear, "merged model", |v| v["merged"]["intercept"] = json!(12.5));
    assert_refused(&linear, "merged model", |v| v.as_object_mut().unwrap().remove("merged").map(|_| ()).unwrap());

    let kernel = fit(FamilyKind::KernelRidge, grid("log:0.01:1:3").set("kernel", "rbf"), &d, Method::Agghoo, Preprocess::default());
    assert_round_trip(&kernel, &d);
    assert_refused(&kernel, "gamma", |v| member(v)["coefficients"]["kernel"]["gamma"] = json!(-1.0));
    assert_refused(&kernel, "coefficient arrays do not match", |v| pop(&mut member(v)["coefficients"]["points"]));
    assert_refused(&kernel, "coefficient arrays do not match", |v| pop(&mut member(v)["coefficients"]["dual"]));
}

#[test]
fn lasso_and_elastic_net() {
    let d = data(80, 0, 2);
    let model = fit(FamilyKind::Enet, grid("log:0.001:0.1:4"), &d, Method::Cv, Preprocess::default());
    assert_round_trip(&model, &d);
    assert_refused(&model, "4 coefficients", |v| member(v)["coefficients"].as_array_mut().unwrap().push(json!(0.5)));
    assert_refused(&model, "ρ", |v| member(v)["l1_ratio"] = json!(1.5));
    assert_refused(&model, "λ", |v| member(v)["lambda"] = json!(-0.1));
}

#[test]
fn svc_and_svr() {
    let d = data(80, 2, 3);
    let svc = fit(FamilyKind::Svc, FamilyParams::default(), &d, Method::Majhoo, Preprocess::default());
    assert_round_trip(&svc, &d);
    assert_refused(&svc, "support values", |v| pop(&mut member(v)["support"]));
    assert_refused(&svc, "support values", |v| pop(&mut member(v)["coef"]));
    assert_refused(&svc, "γ", |v| member(v)["gamma"] = json!(0.0));
    assert_refused(&svc, "predicts regression", |v| member(v)["machine"] = json!("svr"));
    // a binary machine in a three-class schema
    assert_refused(&svc, "classification into 3 classes", |v| v["schema"]["class_names"].as_array_mut().unwrap().push(json!("c2")));

    // three classes: one-vs-one machines (Majhoo's vote; never merged)
    let d3 = data(90, 3, 5);
    let ovo = fit(FamilyKind::Svc, FamilyParams::default(), &d3, Method::Majhoo, Preprocess::default());
    assert!(!ovo.is_merged());
    assert_eq!(member(&mut serde_json::to_value(&ovo).unwrap())["kind"], json!("one_vs_one_svc"));
    assert_round_trip(&ovo, &d3);
    assert_refused(&ovo, "2 pairs for 3 classes", |v| pop(&mut member(v)["pairs"]));
    assert_refused(&ovo, "pair 0: classes (0, 7) out of range", |v| member(v)["pairs"][0]["negative"] = json!(7));
    assert_refused(&ovo, "pair 1 has classes (1, 2), out of order", |v| member(v)["pairs"].as_array_mut().unwrap().swap(1, 2));
    assert_refused(&ovo, "training classes [0, 1, 5]", |v| member(v)["classes"][2] = json!(5));
    assert_refused(&ovo, "training classes [0, 0, 2]", |v| member(v)["classes"][1] = json!(0));
    assert_refused(&ovo, "support values for 3 features", |v| pop(&mut member(v)["support"]));
    assert_refused(&ovo, "support indices for", |v| pop(&mut member(v)["pairs"][2]["coef"]));
    assert_refused(&ovo, "support indices not increasing", |v| member(v)["pairs"][1]["support_index"][0] = json!(100_000));
    assert_refused(&ovo, "support indices not increasing", |v| {
        let index = member(v)["pairs"][0]["support_index"].as_array_mut().unwrap();
        index.swap(0, 1);
    });
    assert_refused(&ovo, "γ", |v| member(v)["gamma"] = json!(-0.5));
    assert_refused(&ovo, "expected f64", |v| member(v)["pairs"][0]["bias"] = json!(null));
    assert_refused(&ovo, "predicts classification into 4 classes", |v| member(v)["n_classes"] = json!(4));
    assert_refused(&ovo, "classification into 4 classes", |v| v["schema"]["class_names"].as_array_mut().unwrap().push(json!("c3")));
    // the score mean is binary: refused for three classes
    assert_refused(&ovo, "aggregation ScoreMean", |v| v["aggregation"] = json!("score_mean"));
    let huge = serde_json::to_string(&ovo).unwrap().replacen("\"bias\":", "\"bias\":1e999,\"x\":", 1);
    assert!(matches!(FittedModel::from_json(&huge, Path::new("m.json")), Err(Error::BadFile { .. })));

    let r = data(80, 0, 4);
    // A fixed γ: the members share their kernel and merge (with γ = scale, each has its own).
    let svr = fit(FamilyKind::Svr, FamilyParams::default().set("gamma", "auto"), &r, Method::Agghoo, Preprocess::default());
    assert!(svr.is_merged());
    assert!(!fit(FamilyKind::Svr, FamilyParams::default(), &r, Method::Agghoo, Preprocess::default()).is_merged());
    assert_round_trip(&svr, &r);
    assert_refused(&svr, "merged model", |v| v["merged"]["support"].as_array_mut().unwrap().push(json!(0.0)));
    // a regression model whose aggregation was edited into a vote
    assert_refused(&svr, "aggregation Vote", |v| v["aggregation"] = json!("vote"));
}

#[test]
fn cart_trees() {
    let d = data(120, 3, 5);
    let model = fit(FamilyKind::Cart, grid("0,0.001,0.01"), &d, Method::Majhoo, Preprocess::default());
    assert_round_trip(&model, &d);
    // the first member with a split at the root
    let j = model.members().iter().position(|m| matches!(&m.model, Model::Cart(c) if c.n_leaves() > 2)).unwrap();
    let tree = format!("/members/{j}/model/tree");
    let root = format!("{tree}/nodes/0/split");
    assert_refused(&model, "has child 9999", |v| at(v, &root)["right"] = json!(9999));
    assert_refused(&model, "reached twice", |v| at(v, &root)["right"] = json!(0));
    assert_refused(&model, "reached twice", |v| {
        let left = at(v, &root)["left"].clone();
        at(v, &root)["right"] = left;
    });
    assert_refused(&model, "splits on feature 3", |v| at(v, &root)["feature"] = json!(3));
    assert_refused(&model, "unreachable", |v| *at(v, &root) = json!(null));
    assert_refused(&model, "values per node", |v| at(v, &tree)["width"] = json!(2));
    assert_refused(&model, "values for", |v| pop(&mut at(v, &tree)["values"]));
    assert_refused(&model, "without nodes", |v| {
        at(v, &tree)["nodes"] = json!([]);
        at(v, &tree)["values"] = json!([]);
    });
    assert_refused(&model, "α", |v| v["members"][j]["model"]["alpha"] = json!(-1.0));
    assert_refused(&model, "2 classes", |v| pop(&mut v["schema"]["class_names"]));
}

#[test]
fn forests() {
    let d = data(100, 2, 6);
    let model = fit(FamilyKind::Forest, grid("1,2").set("trees", 5), &d, Method::Cv, Preprocess::default());
    assert_round_trip(&model, &d);
    assert_refused(&model, "without trees", |v| member(v)["trees"] = json!([]));
    assert_refused(&model, "forest tree 1: node 0 has child 100000", |v| member(v)["trees"][1]["left"][0] = json!(100000));
    assert_refused(&model, "forest tree 1: node 1 is reached twice", |v| member(v)["trees"][1]["right"][0] = json!(1));
    assert_refused(&model, "forest tree 0: leaf entry 0: output 5 of 2", |v| member(v)["trees"][0]["output"][0] = json!(5));
    assert_refused(&model, "forest tree 0: leaf offsets", |v| pop(&mut member(v)["trees"][0]["offsets"]));
    assert_refused(&model, "forest tree 2: node or leaf arrays", |v| pop(&mut member(v)["trees"][2]["threshold"]));
    assert_refused(&model, "forest tree 0: node 0 splits on feature 9", |v| member(v)["trees"][0]["feature"][0] = json!(9));
    assert_refused(&model, "importances", |v| pop(&mut member(v)["impurity_importances"]));
    assert_refused(&model, "of 1 with value", |v| member(v)["task"] = json!("regression"));
}

#[test]
fn logistic_regression() {
    let d = data(120, 3, 7);
    let model = fit(FamilyKind::Logistic, grid("log:0.001:0.1:3"), &d, Method::Majhoo, Preprocess::default());
    assert_round_trip(&model, &d);
    assert_refused(&model, "class indices", |v| member(v)["classes"] = json!([0, 1, 5]));
    assert_refused(&model, "class indices", |v| member(v)["classes"] = json!([2, 1, 0]));
    assert_refused(&model, "training classes", |v| member(v)["classes"] = json!([0]));
    assert_refused(&model, "intercepts", |v| pop(&mut member(v)["intercepts"]));
    assert_refused(&model, "intercepts", |v| pop(&mut member(v)["coefficients"]));
    assert_refused(&model, "classification into 4 classes", |v| member(v)["n_classes"] = json!(4));
    assert_refused(&model, "aggregation ScoreMean", |v| v["aggregation"] = json!("score_mean"));
}

#[test]
fn knn_and_preprocessing_pipelines() {
    let d = data(60, 2, 8);
    let both = Preprocess { impute_median: true, standardize: true, categorical: None };
    let model = fit(FamilyKind::Knn, grid("1:9:2"), &d, Method::Majhoo, both);
    assert_round_trip(&model, &d);
    let transform = "/members/0/model/transform";
    assert_refused(&model, "preprocessing", |v| at(v, transform)["scale"][0] = json!(0.0));
    assert_refused(&model, "preprocessing", |v| pop(&mut at(v, transform)["mean"]));
    assert_refused(&model, "preprocessing", |v| at(v, transform)["mean"] = json!(null));
    assert_refused(&model, "class index out of range", |v| at(v, "/members/0/model/inner/y")[0] = json!(7.0));
    let text = serde_json::to_string(&model).unwrap().replacen("\"validation_risk\":", "\"validation_risk\":-1e400,\"z\":", 1);
    assert!(matches!(FittedModel::from_json(&text, Path::new("m.json")), Err(Error::BadFile { .. })));
    assert_refused(&model, "member 2: inconsistent k-NN model: k = 0", |v| *at(v, "/members/2/model/inner/k") = json!(0));
    assert_refused(&model, "no members", |v| v["members"] = json!([]));
    // a model trained on a header naming a column twice would feed one column twice
    assert_refused(&model, "the feature `a` is named twice", |v| *at(v, "/schema/feature_names/1") = json!("a"));
    // two classes of one name would print `proba_c0,proba_c0` and map a label to two classes
    assert_refused(&model, "corrupted model: the class `c0` is named twice in the schema", |v| {
        *at(v, "/schema/class_names/1") = json!("c0");
    });
    // and such a model (deserialized without the checks) is never saved
    let mut value = serde_json::to_value(&model).unwrap();
    *at(&mut value, "/schema/class_names/1") = json!("c0");
    let twice: FittedModel = serde_json::from_value(value).unwrap();
    let path = std::env::temp_dir().join(format!("agghoo-class-twice-{}.json", std::process::id()));
    assert!(matches!(twice.save(&path), Err(Error::CorruptModel(m)) if m.contains("the class `c0` is named twice")));
    assert!(!path.exists());
}

/// The data with column `c` replaced by a categorical column of cities (some missing).
fn with_city(d: &Dataset) -> Dataset {
    let cities = ["Lyon", "Paris", "Nice"];
    let text = (0..d.n_rows()).map(|i| (i % 11 != 4).then(|| cities[(i * 7) % 3].to_string())).collect();
    d.clone().with_text_columns(&[(2, text)]).unwrap()
}

#[test]
fn categorical_encodings_round_trip_and_are_checked() {
    let numeric = data(60, 2, 12);
    let d = with_city(&numeric);
    for (kind, grid) in
        [(FamilyKind::Logistic, grid("0.01,1")), (FamilyKind::Cart, FamilyParams::default()), (FamilyKind::Knn, grid("1:5:2"))]
    {
        for missing in [MissingCategory::Level, MissingCategory::MostFrequent] {
            let preprocess = kind.preprocess(&d, false, missing);
            // without the encoding, the codes would be read as numbers: refused
            assert!(matches!(family::build(kind, &grid, &d), Err(Error::InvalidParameter { name: "preprocess", .. })));
            let fam = family::build_for(kind, &grid, &d, &preprocess).unwrap();
            let splits = MonteCarlo::new(3, 0.75).unwrap().instantiate(d.n_rows(), Seed(7)).unwrap();
            let config = SelectConfig { preprocess, ..SelectConfig::new(Method::Agghoo) };
            let model = select::select(fam.as_ref(), &d, &splits, &config).unwrap().0;
            assert_eq!(model.schema.categorical, ["c"]);
            assert_round_trip(&model, &d);
            // numeric data under the categorical column's name: a schema mismatch, not codes read as levels
            assert!(matches!(model.predict(&numeric), Err(Error::SchemaMismatch(_))), "{kind:?}");
        }
    }
    let model = fit(FamilyKind::Knn, grid("1:5:2"), &numeric, Method::Agghoo, Preprocess::default());
    // numeric models keep the schema of format 3: no categorical field, no encoder
    let text = serde_json::to_string(&model).unwrap();
    assert!(!text.contains("categorical") && !text.contains("encoder"), "{text}");
    let preprocess = FamilyKind::Knn.preprocess(&d, false, MissingCategory::Level);
    let fam = family::build_for(FamilyKind::Knn, &grid("1:5:2"), &d, &preprocess).unwrap();
    let splits = MonteCarlo::new(3, 0.75).unwrap().instantiate(d.n_rows(), Seed(7)).unwrap();
    let model = select::select(fam.as_ref(), &d, &splits, &SelectConfig { preprocess, ..SelectConfig::new(Method::Agghoo) }).unwrap().0;
    let encoder = "/members/0/model/transform/encoder";
    assert_refused(&model, "categorical encoding", |v| at(v, encoder)["columns"][0]["levels"] = json!(["Paris", "Lyon"]));
    assert_refused(&model, "categorical encoding", |v| at(v, encoder)["columns"][0]["index"] = json!(7));
    assert_refused(&model, "categorical encoding", |v| at(v, encoder)["columns"][0]["missing"] = json!(9));
    assert_refused(&model, "preprocessing", |v| at(v, "/members/0/model/transform")["medians"] = json!([0.0, 0.0]));
    assert_refused(&model, "does not encode the schema's categorical columns", |v| v["schema"]["categorical"] = json!([]));
    assert_refused(&model, "not features of the schema", |v| v["schema"]["categorical"] = json!(["zz"]));
}

/// Models deserialized directly skip the file checks: prediction must still return errors.
#[test]
fn predict_on_corrupted_models_is_an_error_not_a_panic() {
    let reg = data(60, 0, 9);
    let cls = data(60, 3, 10);
    type Case<'a> = (FamilyKind, FamilyParams, &'a Dataset, fn(&mut Value));
    let cases: Vec<Case<'_>> = vec![
        (FamilyKind::Ridge, grid("1"), &reg, |m| pop(&mut m["coefficients"]["weights"])),
        (FamilyKind::KernelRidge, grid("1"), &reg, |m| pop(&mut m["coefficients"]["points"])),
        (FamilyKind::Svr, grid("0.01"), &reg, |m| pop(&mut m["support"])),
        (FamilyKind::Cart, grid("0"), &cls, |m| m["tree"]["nodes"][0]["split"]["right"] = json!(0)),
        (FamilyKind::Cart, grid("0"), &cls, |m| m["tree"]["nodes"][0]["split"]["feature"] = json!(40)),
        (FamilyKind::Cart, grid("0"), &cls, |m| m["tree"]["width"] = json!(1)),
        (FamilyKind::Cart, grid("0"), &cls, |m| pop(&mut m["tree"]["values"])),
        (FamilyKind::Forest, grid("1").set("trees", 3), &cls, |m| m["trees"] = json!([])),
        (FamilyKind::Forest, grid("1").set("trees", 3), &cls, |m| m["trees"][2]["left"][0] = json!(777)),
        (FamilyKind::Forest, grid("1").set("trees", 3), &cls, |m| m["trees"][1]["offsets"] = json!([0])),
        (FamilyKind::Logistic, grid("0.01"), &cls, |m| m["classes"] = json!([0, 1, 9])),
        (FamilyKind::Logistic, grid("0.01"), &cls, |m| m["classes"] = json!([0])),
        (FamilyKind::Logistic, grid("0.01"), &cls, |m| pop(&mut m["coefficients"])),
        (FamilyKind::Svc, grid("0.01"), &cls, |m| m["pairs"][1]["positive"] = json!(3)),
        (FamilyKind::Svc, grid("0.01"), &cls, |m| m["pairs"][0]["support_index"][0] = json!(9999)),
        (FamilyKind::Svc, grid("0.01"), &cls, |m| pop(&mut m["pairs"][2]["coef"])),
        (FamilyKind::Svc, grid("0.01"), &cls, |m| pop(&mut m["support"])),
        (FamilyKind::Svc, grid("0.01"), &cls, |m| m["pairs"] = json!([])),
        (FamilyKind::Svc, grid("0.01"), &cls, |m| m["n_features"] = json!(0)),
    ];
    for (i, (kind, params, data, edit)) in cases.into_iter().enumerate() {
        let model = family::build(kind, &params, data).unwrap().fit(&data.all(), 0).unwrap();
        assert!(model.predict(&data.all()).is_ok());
        let mut value = serde_json::to_value(&model).unwrap();
        edit(&mut value);
        let corrupted: Model = serde_json::from_value(value).unwrap();
        assert!(corrupted.predict(&data.all()).is_err(), "case {i} ({kind:?}) predicted");
        let k = if data.task() == agghoo::data::Task::Classification { 3 } else { 0 };
        assert!(corrupted.validate(3, data.task(), k).is_err(), "case {i} ({kind:?}) validated");
    }
}
