//! The benchmark scripts (`bench/run-*.sh`) fail loudly: a bench that fails stops its script with a
//! non-zero exit and its error shown, never an empty table.

use std::path::PathBuf;
use std::process::Command;

fn bench_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bench")
}

/// Runs `script` in bash after sourcing `bench/lib.sh`; returns (exit code, stdout, stderr).
fn with_lib(script: &str) -> (Option<i32>, String, String) {
    let lib = bench_dir().join("lib.sh");
    let o = Command::new("bash").arg("-c").arg(format!("source '{}'\n{script}", lib.display())).output().expect("bash");
    (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_failing_bench_stops_the_script_and_shows_its_error() {
    let (code, out, err) = with_lib("x=$(run sh -c 'echo the bench broke >&2; exit 3')\necho after: $x");
    assert_ne!(code, Some(0));
    assert!(err.contains("the bench broke") && err.contains("FAILED"), "{err}");
    assert!(!out.contains("after"), "the script went on: {out}");
    // a bench that prints nothing is a failure too
    let (code, out, _) = with_lib("x=$(run true)\necho after");
    assert_ne!(code, Some(0));
    assert!(!out.contains("after"));
    // a missing key stops the script
    let (code, out, err) = with_lib("require \"$(printf 'a\\t1\\nb\\t2')\" a c\necho after");
    assert_ne!(code, Some(0));
    assert!(err.contains("`c`") && !out.contains("after"), "{err}");
    // the good path passes values through
    let (code, out, _) = with_lib("x=$(run printf 'k\\t7')\nrequire \"$x\" k\necho \"got $x\"");
    assert_eq!(code, Some(0));
    assert!(out.contains("got k\t7"), "{out}");
}

#[test]
fn every_bench_script_uses_the_loud_runner_and_hides_no_errors() {
    let mut scripts = 0;
    for entry in std::fs::read_dir(bench_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.starts_with("run-") && name.ends_with(".sh")) {
            continue;
        }
        scripts += 1;
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("lib.sh"), "{name} does not source bench/lib.sh");
        assert!(!text.contains("2>/dev/null"), "{name} hides a command's errors");
        assert!(!text.contains("/work/"), "{name} names a path of the developers' machine");
    }
    assert!(scripts >= 8, "{scripts} scripts found");
}
