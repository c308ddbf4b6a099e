//! Adding a procedure or a plan is one file and one registration line, a family one folder and
//! one registration entry (docs/ARCHITECTURE.md § Checklists): this test reads the sources of the
//! library, the CLI and the Python binding and checks that no code outside a procedure's (a
//! plan's) own file, a family's own folder, and its registration dispatches on its variant — no
//! `Method::X =>` arm, no `== PlanKind::X` test, no `matches!(…, Plan::X(_))`, no `FamilyKind::X =>`
//! — except the uses listed below, and that the variant is named as a value (a default, a fixed
//! line-up) only in the files listed below. Tests and comments are not read.

use std::path::{Path, PathBuf};

/// Files that may name a procedure's or a plan's variant as a value (not dispatch on it), with why.
const VALUE_USES: &[(&str, &str)] = &[
    ("agghoo/src/spec.rs", "the specs' defaults: agghoo for select, agghoo / cv / holdout for compare, the default plans"),
    ("agghoo/src/experiments/study.rs", "the study's fixed line-up of the paper's procedures and plans"),
    ("agghoo/src/experiments/breast_cancer.rs", "the experiment's CV and Majhoo, as in the paper"),
    ("agghoo/src/features/embedded.rs", "the Lasso's λ is chosen by CV"),
    ("agghoo-cli/src/args.rs", "`--method`'s default (agghoo)"),
    ("agghoo-cli/src/cmd/study.rs", "the study's short table labels of its fixed line-up"),
    ("agghoo-cli/src/cmd/splits.rs", "`agghoo splits`' default plan"),
    ("agghoo-cli/src/cmd/compare.rs", "`agghoo compare`'s default inner plan"),
    ("agghoo-cli/src/cmd/estimate.rs", "`agghoo estimate`'s default plan"),
    ("agghoo/src/select/procedure/agghoo.rs", "a procedure's default plan"),
    ("agghoo/src/select/procedure/majhoo.rs", "a procedure's default plan"),
    ("agghoo/src/select/procedure/cv.rs", "a procedure's default plan"),
    ("agghoo/src/select/procedure/holdout.rs", "a procedure's default plan"),
    ("agghoo/src/select/procedure/acv.rs", "a procedure's default plan"),
    ("agghoo/src/select/procedure/ekcv.rs", "a procedure's default plan"),
    ("agghoo/src/select/procedure/subagging.rs", "a procedure's default plan"),
];

/// Code that may dispatch on a variant outside its file: `(file, variant path, why)`.
const DISPATCH_USES: &[(&str, &str, &str)] = &[
    ("agghoo/src/experiments/study.rs", "Method::HoldOut", "the study's table label of its hold-out"),
    ("agghoo/src/experiments/study.rs", "PlanKind::MonteCarlo", "the study's labels of CV on Monte-Carlo splits"),
    ("agghoo/src/experiments/study.rs", "PlanKind::VFold", "the study's labels of CV on Monte-Carlo splits"),
    ("agghoo-cli/src/cmd/study.rs", "Method::HoldOut", "the study's short table labels of its fixed line-up"),
    ("agghoo-cli/src/cmd/study.rs", "Method::Cv", "the study's short table labels of its fixed line-up"),
    ("agghoo-cli/src/cmd/study.rs", "Method::Agghoo", "the study's short table labels of its fixed line-up"),
    ("agghoo-cli/src/cmd/study.rs", "PlanKind::MonteCarlo", "the study's short table labels of its fixed line-up"),
    ("agghoo/src/spec.rs", "Plan::UserFolds", "a folds plan without folds takes the inputs' fold column (the data's)"),
    ("agghoo-cli/src/source.rs", "Plan::UserFolds", "the fold column travels with the rows, not in the recorded plan"),
    ("agghoo/src/spec.rs", "Plan::Bootstrap", "the bootstrap estimators (.632, out-of-bag) belong to the bootstrap plan"),
];
/// Code that may dispatch on a family's variant (`FamilySpec::X`, `FamilyKind::X`, `Model::X`)
/// outside its folder and its registration: `(file, variant path, why)`.
const FAMILY_DISPATCH_USES: &[(&str, &str, &str)] = &[
    (
        "agghoo-py/src/jobs.rs",
        "Model::Forest",
        "a job's forest members travel in MessagePack's binary form (their trees' arrays as byte strings)",
    ),
    ("agghoo/src/features/embedded.rs", "Model::Lasso", "embedded selection scores features by the Lasso's coefficients"),
    ("agghoo/src/features/embedded.rs", "Model::Forest", "embedded selection scores features by the forest's importances"),
    ("agghoo/src/experiments/study.rs", "FamilyKind::Logistic", "the study's logistic regression at the paper's looser tolerance"),
];

/// Files that may name a family's variant as a value (not dispatch on it), with why.
const FAMILY_VALUE_USES: &[(&str, &str)] = &[
    ("agghoo/src/spec.rs", "the specs' default family (k-NN, as the CLI's `--family`)"),
    ("agghoo/src/family/spec.rs", "the kind a composite without members reports (k-NN; it does not build)"),
    ("agghoo/src/features/embedded.rs", "embedded selection fits the Lasso / elastic net or a forest"),
    ("agghoo/src/experiments/study.rs", "the study's fixed line-up of the paper's families"),
    ("agghoo/src/experiments/breast_cancer.rs", "the experiment's CART and forest, as in the paper"),
    ("agghoo/src/experiments/cart.rs", "the experiment's CART, as in the paper"),
    ("agghoo/src/experiments/svr.rs", "the experiment's SVR, as in the paper"),
    ("agghoo-py/src/jobs.rs", "a job's forest members travel in MessagePack's binary form (their trees' arrays as byte strings)"),
];

/// `crates/`: the parent of this crate's folder.
fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crates folder").to_path_buf()
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The sources read: `(path relative to crates/, code lines with their numbers)`, tests and
/// comments left out (a file's `#[cfg(test)]` module is its end, by the project's style; files
/// named `tests.rs` or `*_tests.rs` are tests).
fn sources() -> Vec<(String, Vec<(usize, String)>)> {
    let crates = crates_dir();
    let mut files = Vec::new();
    for krate in ["agghoo", "agghoo-cli", "agghoo-py"] {
        rust_files(&crates.join(krate).join("src"), &mut files);
    }
    files.sort();
    assert!(files.len() > 50, "the sources were not found under {}", crates.display());
    files
        .into_iter()
        .filter(|p| !p.file_stem().is_some_and(|s| s == "tests" || s.to_string_lossy().ends_with("_tests")))
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable source");
            let rel = path.strip_prefix(&crates).expect("under crates/").to_string_lossy().replace('\\', "/");
            let all: Vec<&str> = text.lines().collect();
            let tests = (0..all.len())
                .find(|&i| {
                    all[i].trim() == "#[cfg(test)]"
                        && all.get(i + 1).is_some_and(|l| l.trim_start().trim_start_matches("pub(crate) ").starts_with("mod "))
                })
                .unwrap_or(all.len());
            let lines = all[..tests]
                .iter()
                .enumerate()
                .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or("").to_string()))
                .filter(|(_, l)| !l.trim().is_empty())
                .collect();
            (rel, lines)
        })
        .collect()
}

/// The registration lines of the `registry!` invocation in `file`: `(line, variant, module)` for
/// each line `Variant(module::Type, …)` between `registry! {` and its closing `}`; `variant` is
/// the line's first word, or with `field = Some(i)` its i-th argument (a plan's `PlanKind`).
fn registrations(
    sources: &[(String, Vec<(usize, String)>)],
    file: &str,
    registry: &str,
    field: Option<usize>,
) -> Vec<(usize, String, String)> {
    let (_, lines) = sources.iter().find(|(f, _)| f == file).unwrap_or_else(|| panic!("{file} not read"));
    let start = lines.iter().position(|(_, l)| l.trim() == format!("{registry}! {{")).unwrap_or_else(|| panic!("no {registry}! in {file}"));
    let mut out = Vec::new();
    for (number, line) in &lines[start + 1..] {
        let line = line.trim();
        if line == "}" {
            break;
        }
        let (variant, rest) = line.split_once('(').unwrap_or_else(|| panic!("{file}:{number}: not a registration: {line}"));
        let module = rest.split("::").next().unwrap_or_default();
        let variant = match field {
            Some(i) => rest.split(',').nth(i).unwrap_or_else(|| panic!("{file}:{number}: no argument {i}")),
            None => variant,
        };
        out.push((*number, variant.trim().to_string(), module.trim().to_string()));
    }
    assert!(!out.is_empty(), "{registry}! registers nothing");
    out
}

/// Whether the mention of `path` (e.g. `Method::Cv`) at byte `at` of `line` dispatches on it: a
/// pattern (a match arm, `=>`, `|` or a guard after it; `let` / `if let`), a comparison (`==`,
/// `!=`) or a `matches!`.
fn dispatches(line: &str, at: usize, path: &str) -> bool {
    let before = line[..at].trim_end();
    let mut after = line[at + path.len()..].trim_start();
    // Skip the variant's fields: `(p)`, `(_)`, `{ .. }`.
    if let Some(open) = after.chars().next().filter(|c| *c == '(' || *c == '{') {
        let close = if open == '(' { ')' } else { '}' };
        let mut depth = 0;
        for (i, c) in after.char_indices() {
            depth += i32::from(c == open) - i32::from(c == close);
            if depth == 0 {
                after = after[i + 1..].trim_start();
                break;
            }
        }
    }
    after.starts_with("=>")
        || after.starts_with("if ")
        || after.starts_with('|') && !after.starts_with("||")
        || before.ends_with('|') && !before.ends_with("||")
        || before.ends_with("==")
        || before.ends_with("!=")
        || before.ends_with("let")
        || after.starts_with("==")
        || after.starts_with("!=")
        || before.contains("matches!(")
}

/// Every mention of `path` as a whole word in `line`, by byte offset.
fn mentions(line: &str, path: &str) -> Vec<usize> {
    line.match_indices(path)
        .filter(|&(at, _)| {
            let next = line[at + path.len()..].chars().next();
            let prev = line[..at].chars().next_back();
            !next.is_some_and(|c| c.is_alphanumeric() || c == '_') && !prev.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
        .map(|(at, _)| at)
        .collect()
}

/// A registration to check: the `name!` invocation in `file`, whose lines' variants (first word,
/// or argument `field`) are those of `enum_name`, each type in `own_folder/module.rs`.
#[derive(Clone, Copy)]
struct Registry<'a> {
    file: &'a str,
    name: &'a str,
    field: Option<usize>,
    enum_name: &'a str,
    own_folder: &'a str,
}

const PROCEDURES: Registry<'static> = Registry {
    file: "agghoo/src/select/procedure/mod.rs",
    name: "procedures",
    field: None,
    enum_name: "Method",
    own_folder: "agghoo/src/select/procedure",
};
const PLANS: Registry<'static> =
    Registry { file: "agghoo/src/resample/mod.rs", name: "plans", field: None, enum_name: "Plan", own_folder: "agghoo/src/resample" };
const PLAN_KINDS: Registry<'static> = Registry { field: Some(1), enum_name: "PlanKind", ..PLANS };

/// A registered variant: `Enum::Variant`, where its own code lives (a file, or a folder ending in
/// `/`), and the registry file's lines that register it.
struct Registered {
    path: String,
    own: String,
    lines: std::ops::RangeInclusive<usize>,
}

/// The misplaced mentions of the registered variants: `file:line: text` for each.
fn misplaced(sources: &[(String, Vec<(usize, String)>)], registry: Registry<'_>) -> Vec<String> {
    let Registry { file: registry_file, name, field, enum_name, own_folder } = registry;
    let registered: Vec<Registered> = registrations(sources, registry_file, name, field)
        .into_iter()
        .map(|(line, variant, module)| Registered {
            path: format!("{enum_name}::{variant}"),
            own: format!("{own_folder}/{module}.rs"),
            lines: line..=line,
        })
        .collect();
    misplaced_uses(sources, registry_file, &registered, DISPATCH_USES, |file| VALUE_USES.iter().any(|(f, _)| *f == file))
}

/// The mentions of `registered` variants outside their own code and registration lines that
/// dispatch on them (unless `dispatch_uses` lists them) or name them as a value in a file
/// `value_allowed` refuses: `file:line: text` for each.
fn misplaced_uses(
    sources: &[(String, Vec<(usize, String)>)],
    registry_file: &str,
    registered: &[Registered],
    dispatch_uses: &[(&str, &str, &str)],
    value_allowed: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut found = Vec::new();
    for Registered { path, own, lines: registration } in registered {
        let (enum_name, variant) = path.split_once("::").expect("Enum::Variant");
        for (file, lines) in sources {
            if file == own || own.ends_with('/') && file.starts_with(own.as_str()) {
                continue;
            }
            // The enum under another name (`use agghoo::family::Model as MemberModel;`).
            let renamed = format!("{enum_name} as ");
            let spellings: Vec<String> = std::iter::once(path.clone())
                .chain(lines.iter().flat_map(|(_, l)| {
                    l.match_indices(&renamed)
                        .filter(|&(at, _)| !l[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
                        .map(|(at, _)| l[at + renamed.len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>())
                        .filter(|alias| !alias.is_empty())
                        .map(|alias| format!("{alias}::{variant}"))
                        .collect::<Vec<_>>()
                }))
                .collect();
            for (number, line) in lines {
                if file == registry_file && registration.contains(number) {
                    continue;
                }
                for spelling in &spellings {
                    for at in mentions(line, spelling) {
                        let allowed = if dispatches(line, at, spelling) {
                            dispatch_uses.iter().any(|&(f, p, _)| f == file && p == path)
                        } else {
                            value_allowed(file)
                        };
                        if !allowed {
                            found.push(format!("{file}:{number}: {}", line.trim()));
                        }
                    }
                }
            }
        }
    }
    found
}

/// The file of the `families!` registration.
const FAMILIES_FILE: &str = "agghoo/src/family/mod.rs";

/// The families' registration (`families!` in `family/mod.rs`): one entry per family folder,
/// `module { Variant(Config) = default, INFO; … } models { Variant(ModelType), … }`, over one
/// or several lines. Returns the registered variants of `FamilySpec`, `FamilyKind` and `Model`,
/// each owned by its folder, all registered by the block's lines.
fn family_registrations(sources: &[(String, Vec<(usize, String)>)], file: &str) -> Vec<Registered> {
    let (_, lines) = sources.iter().find(|(f, _)| f == file).unwrap_or_else(|| panic!("{file} not read"));
    let start = lines.iter().position(|(_, l)| l.trim().ends_with("families! {")).unwrap_or_else(|| panic!("no families! in {file}"));
    let end =
        start + lines[start..].iter().position(|(_, l)| l.trim() == "}").unwrap_or_else(|| panic!("families! in {file} is not closed"));
    let block_lines = lines[start].0..=lines[end].0;
    let text: String = lines[start + 1..end].iter().map(|(_, l)| format!("{l} ")).collect();
    // Attributes (`#[serde(…)]`) say nothing of the variant.
    let mut rest = text.as_str();
    let mut plain = String::new();
    while let Some(at) = rest.find("#[") {
        plain.push_str(&rest[..at]);
        rest = rest[at..].split_once(']').unwrap_or_else(|| panic!("{file}: an unclosed attribute")).1;
    }
    plain.push_str(rest);
    let variant_of = |item: &str| item.split_once('(').map(|(v, _)| v.trim().to_string()).filter(|v| !v.is_empty());
    let mut out = Vec::new();
    let mut rest = plain.as_str();
    while let Some((module, after)) = rest.split_once('{') {
        let module = module.trim();
        let (families, after) = after.split_once('}').unwrap_or_else(|| panic!("{file}: folder {module} is not closed"));
        let after = after.trim_start().strip_prefix("models").unwrap_or_else(|| panic!("{file}: folder {module} names no models"));
        let (_, after) = after.split_once('{').unwrap_or_else(|| panic!("{file}: folder {module}: models {{ … }}"));
        let (models, after) = after.split_once('}').unwrap_or_else(|| panic!("{file}: folder {module}: models not closed"));
        let own = format!("agghoo/src/family/{module}/");
        for variant in families.split(';').filter_map(variant_of) {
            for enum_name in ["FamilySpec", "FamilyKind"] {
                out.push(Registered { path: format!("{enum_name}::{variant}"), own: own.clone(), lines: block_lines.clone() });
            }
        }
        for variant in models.split(',').filter_map(variant_of) {
            out.push(Registered { path: format!("Model::{variant}"), own: own.clone(), lines: block_lines.clone() });
        }
        rest = after;
    }
    assert!(!out.is_empty(), "families! registers nothing");
    out
}

#[test]
fn a_procedure_is_named_only_in_its_file_and_on_its_registration_line() {
    let found = misplaced(&sources(), PROCEDURES);
    assert!(found.is_empty(), "procedure variants named outside their file and registration line:\n{}", found.join("\n"));
}

#[test]
fn a_plan_is_named_only_in_its_file_and_on_its_registration_line() {
    let sources = sources();
    let mut found = misplaced(&sources, PLANS);
    found.extend(misplaced(&sources, PLAN_KINDS));
    assert!(found.is_empty(), "plan variants named outside their file and registration line:\n{}", found.join("\n"));
    assert_eq!(registrations(&sources, PLANS.file, PLANS.name, None).len(), 10, "the plans' registration was not read");
}

#[test]
fn a_family_is_named_only_in_its_folder_and_on_its_registration_line() {
    let sources = sources();
    let registered = family_registrations(&sources, FAMILIES_FILE);
    let count = |prefix: &str| registered.iter().filter(|r| r.path.starts_with(prefix)).count();
    assert_eq!((count("FamilyKind::"), count("Model::")), (10, 8), "the families' registration was not read");
    let value_allowed = |file: &str| FAMILY_VALUE_USES.iter().any(|(f, _)| *f == file);
    let found = misplaced_uses(&sources, FAMILIES_FILE, &registered, FAMILY_DISPATCH_USES, value_allowed);
    assert!(found.is_empty(), "family variants named outside their folder and registration:\n{}", found.join("\n"));
}

/// The families' checker reads a registration over several lines with attributes, and refuses
/// a hand-written arm outside the family's folder.
#[test]
fn the_family_checker_refuses_hand_written_dispatch() {
    let registration = [
        "registry::families! {",
        "    knn { Knn(KnnConfig) = Default::default(), KNN; } models { Knn(KnnModel) }",
        "    svm {",
        "        #[serde(deserialize_with = \"svm::deserialize_svc\")]",
        "        Svc(SvmConfig) = svm::SvmConfig::svc(), SVC;",
        "    } models { Svm(SvmModel), OneVsOneSvc(OneVsOneSvc) }",
        "}",
    ];
    let check = |file: &str, line: &str| {
        let sources = vec![
            (FAMILIES_FILE.to_string(), registration.iter().enumerate().map(|(i, l)| (i + 1, l.to_string())).collect()),
            (file.to_string(), vec![(7, line.to_string())]),
        ];
        let registered = family_registrations(&sources, FAMILIES_FILE);
        let paths: Vec<&str> = registered.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(
            paths,
            ["FamilySpec::Knn", "FamilyKind::Knn", "Model::Knn", "FamilySpec::Svc", "FamilyKind::Svc", "Model::Svm", "Model::OneVsOneSvc"]
        );
        misplaced_uses(&sources, FAMILIES_FILE, &registered, &[], |_| false).len()
    };
    for line in [
        "        FamilyKind::Knn => 3,",
        "    if kind == FamilyKind::Svc {",
        "    matches!(m, Model::OneVsOneSvc(_))",
        "    Model::Svm(m) | Model::Knn(m) => 1,",
    ] {
        assert!(check("agghoo-cli/src/source.rs", line) >= 1, "{line}");
        assert_eq!(check("agghoo/src/family/svm/ovo.rs", &line.replace("Knn", "Svm")), 0, "{line}");
    }
    assert_eq!(check("agghoo-cli/src/source.rs", "    let spec = FamilySpec::Knn(config);"), 1);
    // The enum renamed by a `use` is read under its new name.
    let renamed = |line: &str| {
        let sources = vec![
            (FAMILIES_FILE.to_string(), registration.iter().enumerate().map(|(i, l)| (i + 1, l.to_string())).collect()),
            (
                "agghoo-py/src/jobs.rs".to_string(),
                vec![(1, "use agghoo::family::{Family, Model as FamilyModel};".to_string()), (9, line.to_string())],
            ),
        ];
        misplaced_uses(&sources, FAMILIES_FILE, &family_registrations(&sources, FAMILIES_FILE), &[], |_| false)
    };
    assert_eq!(renamed("            FamilyModel::Knn(m) => m,"), ["agghoo-py/src/jobs.rs:9: FamilyModel::Knn(m) => m,"]);
    assert!(renamed("            OtherModel::Knn(m) => m,").is_empty());
    assert_eq!(check("agghoo-cli/src/source.rs", "    FamilyKind::Knnx => 3,"), 0);
}

/// The checker sees what it must refuse: a hand-written arm, a comparison, a `matches!`, a value
/// in a file not listed; and lets a value in a listed file, and a longer name, pass.
#[test]
fn the_checker_refuses_hand_written_dispatch() {
    let registration = |line: &str| vec![(1, "procedures! {".to_string()), (2, line.to_string()), (3, "}".to_string())];
    let check = |file: &str, line: &str| {
        let sources = vec![
            (PROCEDURES.file.to_string(), registration("    Cv(cv::Cv, \"cv\", \"CV\"),")),
            (file.to_string(), vec![(7, line.to_string())]),
        ];
        misplaced(&sources, PROCEDURES).len()
    };
    let bad = [
        "        Method::Cv => PlanKind::VFold,",
        "        Method::Agghoo | Method::Cv => 0,",
        "    if method == Method::Cv {",
        "    matches!(m, Method::Cv)",
        "        crate::select::Method::Cv => 1,",
    ];
    for line in bad {
        for file in ["agghoo/src/spec.rs", "agghoo-cli/src/source.rs"] {
            assert_eq!(check(file, line), 1, "{file}: {line}");
        }
    }
    assert_eq!(check("agghoo-cli/src/source.rs", "SelectConfig::new(Method::Cv)"), 1);
    for ok in ["SelectConfig::new(Method::Cv)", "method: Method::CvPlus,", "TreeMethod::Cv => 1,"] {
        assert_eq!(check("agghoo/src/spec.rs", ok), 0, "{ok}");
    }
    assert_eq!(check("agghoo/src/select/procedure/cv.rs", "Method::Cv => 1,"), 0);
    // A plan's kind is its registration line's second argument.
    let sources = vec![
        ("agghoo/src/resample/mod.rs".to_string(), {
            let mut r = registration("    RepeatedVFold(repeated::RepeatedVFold, Repeated, \"repeated\", \"Repeated V-fold\"),");
            r[0].1 = "plans! {".into();
            r
        }),
        (
            "agghoo-cli/src/source.rs".to_string(),
            vec![(7, "    PlanKind::Repeated => 5,".to_string()), (8, "    Plan::RepeatedVFold(p) => p,".to_string())],
        ),
    ];
    assert_eq!(misplaced(&sources, PLAN_KINDS), ["agghoo-cli/src/source.rs:7: PlanKind::Repeated => 5,"]);
    assert_eq!(misplaced(&sources, PLANS), ["agghoo-cli/src/source.rs:8: Plan::RepeatedVFold(p) => p,"]);
}
