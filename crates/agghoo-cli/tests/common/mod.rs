//! Helpers shared by the end-to-end tests: run the binary, read its output, scratch files.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn agghoo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agghoo")).args(args).output().expect("run agghoo")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A scratch directory unique to the test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agghoo-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

pub fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// Asserts a failed run with `code` whose one-line error mentions every `needle`.
pub fn assert_error(o: &Output, code: i32, needles: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    for n in needles {
        assert!(err.contains(n), "`{n}` not in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}
