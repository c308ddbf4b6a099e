//! Memory bounds end to end: requests whose allocations grow with the number of classes, the
//! product of the grid axes or the one-hot width are refused at once under `--max-memory` and
//! `--limit`, with the estimate and the flag, never a panic, an abort or a hang.

mod common;

use common::{agghoo, assert_error, scratch, write};

/// `n` rows of two numeric features and a text target of `classes` classes.
fn text_classes(name: &str, n: usize, classes: usize) -> String {
    let rows: String = (0..n).map(|i| format!("{},{},c{}\n", (i * 7) % 13, (i * 11) % 17, i % classes)).collect();
    write(&scratch(name), "classes.csv", &format!("a,b,y\n{rows}"))
}

#[test]
fn one_vs_one_svms_count_their_pairs_before_any_fit() {
    let data = text_classes("ovo", 1000, 100);
    let run = |extra: &[&str]| agghoo(&[&["select", "--data", &data, "--target", "y", "--family", "svc", "--splits", "2"], extra].concat());
    // 4950 pairs: their expansions and decision values alone are hundreds of MB
    assert_error(&run(&["--max-memory", "50M"]), 1, &["split(s) in flight of `svc`", "800 training rows", "--max-memory"]);
    let data = text_classes("ovo300", 1000, 300);
    assert_error(&agghoo(&["select", "--data", &data, "--target", "y", "--family", "svc", "--splits", "2"]), 1, &["--max-memory"]);
}

#[test]
fn product_grids_are_bounded_before_any_axis_is_expanded() {
    let axes = ["--grid", "lambda=log:1e-4:1:50000", "--grid", "gamma=log:0.1:10:50000"];
    for (family, data) in [("svc", "gen:knn"), ("svr", "gen:svr"), ("kernel-ridge", "gen:svr")] {
        let o = agghoo(&[&["select", "--data", data, "--n", "100", "--family", family], &axes[..]].concat());
        assert_error(&o, 1, &["2500000000 grid points", "lambda: 50000 × gamma: 50000", "--limit grid-points=N"]);
    }
    let enet = ["--grid", "lambda=log:1e-4:1:50000", "--grid", "l1_ratio=log:0.01:1:50000"];
    let o = agghoo(&[&["select", "--data", "gen:svr", "--n", "100", "--family", "enet"], &enet[..]].concat());
    assert_error(&o, 1, &["2500000000 grid points", "l1_ratio: 50000", "--limit grid-points=N"]);
}

/// A text column of 9 999 levels becomes 10 000 dense columns: ridge's matrices are counted with
/// that width, and refused under a budget they exceed, on one thread or two (no hang).
#[test]
fn one_hot_width_counts_in_the_memory_estimate() {
    let rows: String = (0..10_000).map(|i| format!("l{},{},{}\n", i % 9999, i % 7, (i % 13) as f64 * 0.5)).collect();
    let data = write(&scratch("onehot"), "levels.csv", &format!("t,a,y\n{rows}"));
    for threads in ["1", "2"] {
        let o = agghoo(&[
            "--threads",
            threads,
            "--max-memory",
            "1G",
            "select",
            "--data",
            &data,
            "--target",
            "y",
            "--family",
            "ridge",
            "--splits",
            "2",
        ]);
        assert_error(&o, 1, &["10001 feature columns after one-hot encoding", "--max-memory"]);
    }
}
