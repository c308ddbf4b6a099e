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

#[test]
fn the_speedup_table_takes_medians_and_pairs_each_round() {
    // Three rounds: the machine was twice as slow in round 2 for both sides, so the per-round
    // speed-up stays 2 while the times' medians move; `_ours_cold` compares with the peer's case.
    let dir = std::env::temp_dir().join(format!("agghoo-speedup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ours = dir.join("ours");
    let peer = dir.join("peer");
    std::fs::write(&ours, "1 a 1.0\n1 a_ours_cold 4.0\n2 a 2.0\n2 a_ours_cold 8.0\n3 a 1.5\n3 a_ours_cold 2.0\n").unwrap();
    std::fs::write(&peer, "1 a 2.0\n2 a 4.0\n3 a 3.0\n").unwrap();
    let (code, out, err) = with_lib(&format!("speedup_table '{}' '{}'", ours.display(), peer.display()));
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("| a | 1.5000 | 3.0000 | 2.00× | 2.00–2.00 (3 rounds) |"), "{out}");
    // cold: 4, 8, 2 against 2, 4, 3 → speed-ups 0.5, 0.5, 1.5
    assert!(out.contains("| a (no warm start) | 4.0000 | 3.0000 | 0.50× | 0.50–1.50 (3 rounds) |"), "{out}");
    // a round without the peer's time stops the script
    std::fs::write(&peer, "1 a 2.0\n2 a 4.0\n").unwrap();
    let (code, out, err) = with_lib(&format!("speedup_table '{}' '{}'\necho after", ours.display(), peer.display()));
    assert_ne!(code, Some(0));
    assert!(err.contains("no time for a in round 3") && !out.contains("after"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
