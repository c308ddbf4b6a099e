use super::*;
use crate::data::Target;
use crate::family::Predictor;
use crate::testing::path_equals_refit;
use rand::{RngExt, SeedableRng};

fn random_data(n: usize, d: usize, classes: Option<u32>, seed: u64) -> Dataset {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<f64> = (0..n * d).map(|_| (rng.random_range(0..8) as f64) * 0.5).collect();
    let target = match classes {
        Some(k) => {
            Target::Classes { labels: (0..n).map(|_| rng.random_range(0..k)).collect(), names: (0..k).map(|c| c.to_string()).collect() }
        }
        None => Target::Real((0..n).map(|_| rng.random::<f64>()).collect()),
    };
    Dataset::new(x, (0..d).map(|j| format!("x{j}")).collect(), target, "y").unwrap()
}

/// Independent reference: full sort per query, then count votes with the documented rule.
fn reference(train: &View<'_>, q: &[f64], k: usize, task: Task, n_classes: usize) -> f64 {
    let mut all: Vec<(f64, usize)> = (0..train.len()).map(|i| (train.x(i).iter().zip(q).map(|(a, b)| (a - b).powi(2)).sum(), i)).collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let nearest = &all[..k];
    match task {
        Task::Regression => nearest.iter().map(|&(_, i)| train.y(i)).sum::<f64>() / k as f64,
        Task::Classification => {
            let mut counts = vec![0; n_classes];
            nearest.iter().for_each(|&(_, i)| counts[train.class(i) as usize] += 1);
            let top = *counts.iter().max().unwrap();
            // first class (in neighbour order) reaching the top count
            nearest.iter().map(|&(_, i)| train.class(i)).find(|&c| counts[c as usize] == top).unwrap() as f64
        }
    }
}

/// Distance weights: the path (shared lists or a fresh search) equals a fit per k, and both
/// equal an independent reference (full sort, weights 1/d, exact duplicates alone when present).
#[test]
fn distance_weights_equal_a_reference() {
    for (classes, seed) in [(Some(2), 4), (Some(3), 5), (None, 6)] {
        // grid-valued features: exact duplicates of validation rows among the training rows
        let data = random_data(240, 2, classes, seed);
        let rows: Vec<usize> = (0..240).collect();
        let (train, val) = rows.split_at(180);
        let ks: Vec<f64> = (1..=15).map(f64::from).collect();
        let fam = KnnFamily::new(ks.clone(), data.task(), data.target().n_classes()).unwrap().with_weights(Weights::Distance);
        path_equals_refit(&fam, &data.view(train), &data.view(val), 0.0);
        let shared = fam.clone().sharing_with(&data);
        path_equals_refit(&shared, &data.view(train), &data.view(val), 0.0);
        let (train, val) = (data.view(train), data.view(val));
        let path = shared.fit_path(&train).unwrap().predict(&val).unwrap();
        for (g, &k) in ks.iter().enumerate() {
            for i in 0..val.len() {
                let q = val.x(i);
                let mut all: Vec<(f64, usize)> =
                    (0..train.len()).map(|t| (train.x(t).iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt(), t)).collect();
                all.sort_by(|a, b| a.0.total_cmp(&b.0).then(train.rows()[a.1].cmp(&train.rows()[b.1])));
                let nearest = &all[..k as usize];
                let exact = nearest.iter().any(|n| n.0 == 0.0);
                let w = |r: f64| if exact { f64::from(u8::from(r == 0.0)) } else { 1.0 / r };
                match &path[g] {
                    Predictions::Real(v) => {
                        let (s, t) = nearest.iter().fold((0.0, 0.0), |(s, t), n| (s + w(n.0) * train.y(n.1), t + w(n.0)));
                        assert!((v[i] - s / t).abs() <= 1e-12 * (1.0 + v[i].abs()), "k {k} row {i}");
                    }
                    Predictions::Classes { labels, proba, .. } => {
                        let kc = data.target().n_classes();
                        let mut tally = vec![0.0; kc];
                        nearest.iter().for_each(|n| tally[train.class(n.1) as usize] += w(n.0));
                        let top = tally.iter().copied().fold(0.0, f64::max);
                        let total: f64 = tally.iter().sum();
                        let p = &proba.as_ref().unwrap()[i * kc..(i + 1) * kc];
                        assert!(p.iter().zip(&tally).all(|(a, b)| (a - b / total).abs() < 1e-12), "k {k} row {i}");
                        assert!((tally[labels[i] as usize] - top).abs() <= 1e-12 * top, "k {k} row {i}: not a heaviest class");
                    }
                }
            }
        }
    }
}

#[test]
fn path_equals_fresh_fit_at_every_k() {
    for (classes, seed) in [(Some(2), 1), (Some(3), 2), (None, 3)] {
        for (n, d) in [(60, 2), (2500, 3)] {
            let data = random_data(n, d, classes, seed);
            let rows: Vec<usize> = (0..n).collect();
            let (train, val) = rows.split_at(n * 3 / 4);
            let fam = KnnFamily::new((1..=25).map(f64::from).collect(), data.task(), data.target().n_classes()).unwrap();
            path_equals_refit(&fam, &data.view(train), &data.view(val), 1e-12);
        }
    }
}

#[test]
fn shared_lists_equal_a_fresh_search() {
    for classes in [Some(2), Some(3), None] {
        let data = random_data(300, 2, classes, 17);
        let fam = KnnFamily::new((1..=40).map(f64::from).collect(), data.task(), data.target().n_classes()).unwrap().sharing_with(&data);
        assert!(fam.shared.is_some());
        // sorted, unsorted and bootstrap-like (repeated) training rows
        let sorted: Vec<usize> = (0..200).collect();
        let unsorted: Vec<usize> = (0..200).rev().collect();
        let repeated: Vec<usize> = (0..200).map(|i| (i * 7) % 150).collect();
        let val: Vec<usize> = (200..300).collect();
        for train in [sorted, unsorted, repeated] {
            path_equals_refit(&fam, &data.view(&train), &data.view(&val), 0.0);
        }
        // Training rows on one side only: the validation rows' nearest candidates are mostly
        // not training rows, so the walk runs past the cached prefix into the whole list.
        // (Half the rows train, so the first prefix is shorter than the whole list.)
        let (left, right): (Vec<usize>, Vec<usize>) = (0..300).partition(|&r| data.row(r)[0] < 2.0);
        assert!(left.len() >= 40 && right.len() > 100);
        path_equals_refit(&fam, &data.view(&left), &data.view(&right), 0.0);
        let fresh = KnnFamily::new((1..=40).map(f64::from).collect(), data.task(), data.target().n_classes()).unwrap().sharing_with(&data);
        path_equals_refit(&fresh, &data.view(&left), &data.view(&right), 0.0);
        let Lists::PerRow { full, .. } = &fresh.shared.as_ref().unwrap().lists else { unreachable!("small data: per-row lists") };
        assert!(full.iter().any(|l| l.get().is_some()), "the fallback was exercised");
    }
}

#[test]
fn shared_width_is_the_binomial_quantile() {
    // The smallest w with P(Binomial(w, p) < kmax) ≤ 1e-9, from scipy.stats.binom.cdf:
    // (kmax, p) = (199, 0.8) → 305, (199, 0.5) → 535, (20, 0.8) → 49, (1, 0.8) → 13, (199, 0.9) → 258,
    // (50, 0.2) → 495.
    for (kmax, n_train, want) in
        [(199, 80_000, 305), (199, 50_000, 535), (20, 80_000, 49), (1, 80_000, 13), (199, 90_000, 258), (50, 20_000, 495)]
    {
        assert_eq!(shared_width(kmax, n_train, 100_000), want, "kmax={kmax} n_train={n_train}");
    }
    // Every row trains, none does, or the quantile exceeds the candidates: kmax, all, all.
    assert_eq!(shared_width(199, 1000, 1000), 199);
    assert_eq!(shared_width(5, 0, 1000), 1000);
    assert_eq!(shared_width(199, 300, 1000), 933); // scipy: 9.6e-10 at 933, 1.08e-9 at 932
    assert_eq!(shared_width(199, 250, 1000), 1000); // scipy: 5.9e-5 at 1000
    assert_eq!(shared_width(0, 800, 1000), 0);
}

#[test]
fn table_lists_equal_a_fresh_search_and_fall_back_exactly() {
    // d = 3 (the tree answers the table), d = 24 (the product search); grid-valued features
    // give exact ties and duplicated points.
    for (classes, d) in [(Some(2), 3), (Some(3), 24), (None, 24)] {
        let n = 1300;
        let data = random_data(n, d, classes, 31);
        let ks: Vec<f64> = (1..=41).step_by(2).map(f64::from).collect();
        let fam = KnnFamily::new(ks, data.task(), data.target().n_classes()).unwrap().sharing(&data, n, true);
        let shared = Arc::clone(fam.shared.as_ref().unwrap());
        assert!(matches!(shared.lists, Lists::Table { .. }));
        let val: Vec<usize> = (0..n).filter(|r| r % 5 == 2).collect();
        let train: Vec<usize> = (0..n).filter(|r| r % 5 != 2).collect();
        let repeated: Vec<usize> = (0..n * 3 / 4).map(|i| (i * 7) % n / 5 * 5).collect();
        path_equals_refit(&fam, &data.view(&train), &data.view(&val), 0.0);
        assert_eq!(shared.fallbacks.load(std::sync::atomic::Ordering::Relaxed), 0, "an even split fits in the table");
        path_equals_refit(&fam, &data.view(&repeated), &data.view(&val), 0.0);
        // Training rows on one side only: validation rows' lists (mostly other validation
        // rows) run short, and those rows are searched per split.
        let (left, right): (Vec<usize>, Vec<usize>) = (0..n).partition(|&r| data.row(r)[0] < 1.5);
        assert!(left.len() >= 41 && right.len() > 100);
        path_equals_refit(&fam, &data.view(&left), &data.view(&right), 0.0);
        assert!(shared.fallbacks.load(std::sync::atomic::Ordering::Relaxed) > 0, "the fallback was exercised");
        // and against the independent full sort, for a few rows
        let predicted = fam.fit_path(&data.view(&left)).unwrap().predict(&data.view(&right)).unwrap();
        for (g, &k) in fam.ks().iter().enumerate() {
            for i in (0..right.len()).step_by(37) {
                let want = reference(&data.view(&left), data.row(right[i]), k, data.task(), data.target().n_classes());
                assert!((predicted[g].value(i) - want).abs() < 1e-12, "d={d} k={k} row={i}");
            }
        }
    }
}

#[test]
fn a_table_filled_up_front_on_any_thread_count_equals_the_lazy_one() {
    // d = 3 (the tree answers the table), d = 10 and 24 (the product search); 1 301 rows: an
    // odd number of blocks, the last one partial. Every block filled at once, on 1, 3 and 4
    // threads, holds the lists a row-by-row lazy computation gives.
    for d in [3, 10, 24] {
        let n = 1301;
        let data = random_data(n, d, Some(3), 53);
        let family = || KnnFamily::new(vec![1.0, 9.0], data.task(), 3).unwrap().sharing(&data, n, true);
        let want = 57;
        let lazy = family();
        let lazy = lazy.shared.as_ref().unwrap();
        let mut scratch = Scratch::default();
        let expected: Vec<Vec<u32>> = (0..n).rev().map(|r| lazy.list(r, want, &mut scratch).to_vec()).collect();
        for threads in [1, 3, 4] {
            let filled = family();
            let filled = filled.shared.as_ref().unwrap();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| filled.fill_table(want, None, crate::Par::threads(threads)));
            let Lists::Table { blocks, .. } = &filled.lists else { unreachable!("a table was asked for") };
            assert!(blocks.iter().all(|b| b.get().is_some()), "every block computed");
            let lists: Vec<Vec<u32>> = (0..n).rev().map(|r| filled.list(r, want, &mut scratch).to_vec()).collect();
            assert_eq!(lists, expected, "d={d} threads={threads}");
        }
    }
}

#[test]
fn table_lists_among_the_first_rows_equal_a_fresh_search() {
    // The product search answers the table (d = 24) over the first 1 100 of 1 400 rows; rows
    // past them are queries only, and come last in the table's order.
    let (n, candidates, d) = (1400, 1100, 24);
    let data = random_data(n, d, Some(3), 37);
    let ks: Vec<f64> = (1..=41).step_by(2).map(f64::from).collect();
    let fam = KnnFamily::new(ks, data.task(), 3).unwrap().sharing(&data, candidates, true);
    let train: Vec<usize> = (0..candidates).filter(|r| r % 4 != 1).collect();
    let val: Vec<usize> = (0..candidates).filter(|r| r % 4 == 1).collect();
    let test: Vec<usize> = (candidates..n).collect();
    path_equals_refit(&fam, &data.view(&train), &data.view(&val), 0.0);
    path_equals_refit(&fam, &data.view(&train), &data.view(&test), 0.0);
    let shared = fam.shared.as_ref().unwrap();
    let Lists::Table { index, .. } = &shared.lists else { unreachable!("a table was asked for") };
    let index = index.get().expect("computed");
    assert!(matches!(index.search, TableSearch::Products(_)));
    assert_eq!(index.order[candidates..], (candidates as u32..n as u32).collect::<Vec<_>>()[..]);
}

/// The same family with the shared table held to `bytes` (its blocks beyond are computed per split).
fn with_table_budget(mut family: KnnFamily, bytes: usize) -> KnnFamily {
    Arc::get_mut(family.shared.as_mut().expect("shared")).expect("not yet shared").budget = Some(bytes);
    family
}

#[test]
fn the_table_budget_follows_the_memory_limit() {
    // 300 000 rows, d = 10, k up to 199 at τ = 0.8: 305 entries per row, 366 MB. The table
    // used to be capped at 256 MiB whatever the limit, and every split then searched alone.
    let split = |n: usize| SplitSize { n_train: n * 4 / 5, n_validation: n / 5, grid: 100, classes: 2 };
    let eight_gib = crate::limits::Limits::DEFAULT.max_memory;
    for (rows, threads) in [(300_000, 2), (300_000, 16), (1_000_000, 2), (1_000_000, 16)] {
        let table = rows * shared_width(199, rows * 4 / 5, rows) * size_of::<u32>();
        assert!(table_budget(eight_gib, rows, 10, threads, split(rows)) >= table, "rows={rows} threads={threads}");
    }
    // The rule: what is left after six copies of the data and, per thread, one split in flight.
    let data = 1000 * 11 * 8;
    let per_split = 800 * 11 * 8 + 1000 * 6 + 200 * 100 * (8 + 4 * 2);
    assert_eq!(table_budget(10 << 20, 1000, 10, 3, split(1000)), (10 << 20) - 6 * data - 3 * per_split);
    assert_eq!(table_budget(1 << 20, 1000, 10, 3, split(1000)), 0, "nothing left");
    // The shape of a real table of 300 000 rows (1 feature, to keep the test small): every
    // block kept within the default limit.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let n = 300_000;
    let x: Vec<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
    let data = Dataset::new(x, vec!["x".into()], Target::Real(vec![0.0; n]), "y").unwrap();
    let fam = KnnFamily::new(vec![199.0], Task::Regression, 0).unwrap().sharing_with(&data);
    let shared = fam.shared.as_ref().unwrap();
    let Lists::Table { blocks, .. } = &shared.lists else { panic!("a table") };
    let want = shared_width(199, n * 4 / 5, n);
    let shape = shared.table_shape(want, Some(split(n))).unwrap();
    assert_eq!((shape.width, shape.kept), (want, blocks.len()));
}

/// Splits of every kind over `n` rows: even ones, repeated training rows, training rows on one
/// side of the space only (lists run short, those rows are searched per split).
fn assorted_splits(data: &Dataset) -> Vec<(Vec<usize>, Vec<usize>)> {
    let n = data.n_rows();
    let (left, right): (Vec<usize>, Vec<usize>) = (0..n).partition(|&r| data.row(r)[0] < 1.5);
    vec![
        ((0..n).filter(|r| r % 5 != 2).collect(), (0..n).filter(|r| r % 5 == 2).collect()),
        ((0..n).filter(|r| r % 3 != 0).collect(), (0..n).filter(|r| r % 3 == 0).collect()),
        ((0..n * 3 / 4).map(|i| (i * 7) % n / 5 * 5).collect(), (0..n).filter(|r| r % 5 == 1).collect()),
        (left, right),
    ]
}

#[test]
fn a_table_in_blocks_equals_the_whole_table_on_any_thread_count() {
    // d = 3 (the tree answers the table), d = 10 and 24 (the product search); 1 301 rows: an odd
    // number of blocks, the last one partial. Budgets: no block kept, a few, all (the whole
    // table, the reference). Predictions and risks bit for bit, uniform and distance weights.
    for (d, classes, weights) in
        [(3, Some(3), Weights::Uniform), (10, Some(2), Weights::Uniform), (10, None, Weights::Distance), (24, Some(3), Weights::Distance)]
    {
        let n = 1301;
        let data = random_data(n, d, classes, 61);
        let ks: Vec<f64> = (1..=41).step_by(2).map(f64::from).collect();
        let losses = if classes.is_some() { vec![Loss::ZeroOne] } else { vec![Loss::Squared, Loss::Absolute] };
        let family =
            || KnnFamily::new(ks.clone(), data.task(), data.target().n_classes()).unwrap().with_weights(weights).sharing(&data, n, true);
        let outcomes = |fam: &KnnFamily| {
            assorted_splits(&data)
                .iter()
                .map(|(train, val)| {
                    let path = fam.fit_path(&data.view(train)).unwrap();
                    let risks = path.risks(&data.view(val), &losses).map(|r| r.unwrap());
                    let bits = risks.map(|r| r.iter().flatten().map(|v| v.to_bits()).collect::<Vec<_>>());
                    (path.predict(&data.view(val)).unwrap(), bits)
                })
                .collect::<Vec<_>>()
        };
        let whole = family();
        let expected = outcomes(&whole);
        assert_eq!(whole.shared.as_ref().unwrap().table_shape(0, None).unwrap().kept, n.div_ceil(QUERY_BLOCK));
        let width = shared_width(41, assorted_splits(&data)[0].0.len(), n);
        for blocks_kept in [0, 5] {
            for threads in [1, 2, 3] {
                let blocked = with_table_budget(family(), blocks_kept * QUERY_BLOCK * width * size_of::<u32>());
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let got = pool.install(|| outcomes(&blocked));
                let shared = blocked.shared.as_ref().unwrap();
                let Lists::Table { blocks, .. } = &shared.lists else { unreachable!("a table was asked for") };
                let shape = shared.table_shape(0, None).unwrap();
                assert_eq!((shape.width, shape.kept), (width, blocks_kept), "the first split sets the shape");
                assert!(blocks[blocks_kept..].iter().all(|b| b.get().is_none()), "no block kept beyond the budget");
                assert!(shared.fallbacks.load(Ordering::Relaxed) > 0, "rows ran short and were searched per split");
                assert!(got == expected, "d={d} classes={classes:?} weights={weights:?} kept={blocks_kept} threads={threads}");
            }
        }
    }
}

#[test]
fn risk_shortcut_equals_predictions_and_loss() {
    for (classes, losses) in [
        (Some(2), vec![Loss::ZeroOne]),
        (Some(3), vec![Loss::ZeroOne]),
        (None, vec![Loss::Squared, Loss::Absolute, Loss::Pinball { q: 0.3 }]),
    ] {
        let data = random_data(300, 2, classes, 29);
        let ks: Vec<f64> = (1..=61).step_by(3).map(f64::from).collect();
        let plain = KnnFamily::new(ks.clone(), data.task(), data.target().n_classes()).unwrap();
        let shared = plain.clone().sharing_with(&data);
        let val: Vec<usize> = (0..300).filter(|r| r % 4 == 0).collect();
        let trains: [Vec<usize>; 2] = [(0..300).filter(|r| r % 4 != 0).collect(), (0..225).map(|i| (i * 7) % 300 / 4 * 4 + 1).collect()];
        for train in &trains {
            for fam in [&plain, &shared] {
                let path = fam.fit_path(&data.view(train)).unwrap();
                let val = data.view(&val);
                let fast = path.risks(&val, &losses).expect("shortcut applies").unwrap();
                let predictions = path.predict(&val).unwrap();
                for (loss, curve) in losses.iter().zip(&fast) {
                    let slow: Vec<f64> = predictions.iter().map(|p| loss.risk(p, &val).unwrap()).collect();
                    assert_eq!(curve.iter().map(|r| r.to_bits()).collect::<Vec<_>>(), slow.iter().map(|r| r.to_bits()).collect::<Vec<_>>());
                }
                if classes.is_some() {
                    assert!(path.risks(&val, &[Loss::LogLoss]).is_none(), "log-loss needs probabilities");
                }
            }
        }
    }
}

#[test]
fn lists_among_the_first_rows_equal_a_fresh_search() {
    // sample rows 0..200 are the candidates; rows 200..300 are "test" points
    let data = random_data(300, 2, Some(2), 23);
    let fam = KnnFamily::new((1..=41).step_by(2).map(f64::from).collect(), data.task(), 2).unwrap().sharing_with_first(&data, 200);
    let narrow = fam.with_grid(vec![7.0]).unwrap();
    assert!(narrow.shared.is_some() && narrow.ks() == [7]);
    let train: Vec<usize> = (0..200).filter(|r| r % 3 != 0).collect();
    let val: Vec<usize> = (0..200).filter(|r| r % 3 == 0).collect();
    let test: Vec<usize> = (200..300).collect();
    for f in [&fam, &narrow] {
        path_equals_refit(f, &data.view(&train), &data.view(&val), 0.0);
        path_equals_refit(f, &data.view(&train), &data.view(&test), 0.0);
    }
    // a training view reaching past the candidates falls back to a fresh search
    let wide: Vec<usize> = (100..250).collect();
    path_equals_refit(&fam, &data.view(&wide), &data.view(&test[50..]), 0.0);
    assert!(KnnFamily::new(vec![3.0], Task::Classification, 2).unwrap().with_grid(vec![]).is_err());
}

#[test]
fn agrees_with_independent_reference() {
    for classes in [Some(2), Some(4), None] {
        let data = random_data(300, 2, classes, 11);
        let rows: Vec<usize> = (0..300).collect();
        let (train, val) = rows.split_at(200);
        let (train, val) = (data.view(train), data.view(val));
        let fam = KnnFamily::new(vec![1.0, 2.0, 4.0, 9.0, 30.0], data.task(), data.target().n_classes()).unwrap();
        let path = fam.fit_path(&train).unwrap().predict(&val).unwrap();
        for (g, &k) in fam.ks().iter().enumerate() {
            for i in 0..val.len() {
                let want = reference(&train, val.x(i), k, data.task(), data.target().n_classes());
                assert!((path[g].value(i) - want).abs() < 1e-12, "k={k} row={i}");
            }
        }
    }
}

#[test]
fn hand_computed_example() {
    // x: 0, 1, 2, 10 with classes a, a, b, b; query 1.6 → neighbours 2 (0.4), 1 (0.6), 0, 10.
    let d = Dataset::new(
        vec![0.0, 1.0, 2.0, 10.0, 1.6],
        vec!["x".into()],
        Target::Classes { labels: vec![0, 0, 1, 1, 0], names: vec!["a".into(), "b".into()] },
        "y",
    )
    .unwrap();
    let fam = KnnFamily::new(vec![1.0, 2.0, 3.0, 4.0], Task::Classification, 2).unwrap();
    let p = fam.fit_path(&d.view(&[0, 1, 2, 3])).unwrap().predict(&d.view(&[4])).unwrap();
    // k=1: b; k=2: tie 1–1, b's member is nearest → b; k=3: a (2 vs 1); k=4: tie 2–2, b nearest → b
    let labels: Vec<u32> = p.iter().map(|q| q.labels().unwrap()[0]).collect();
    assert_eq!(labels, [1, 1, 0, 1]);
    // regression on the same points, y = class index: k=3 → (1 + 0 + 0)/3
    let r = Dataset::new(vec![0.0, 1.0, 2.0, 10.0, 1.6], vec!["x".into()], Target::Real(vec![0.0, 0.0, 1.0, 1.0, 0.0]), "y").unwrap();
    let fam = KnnFamily::new(vec![3.0], Task::Regression, 0).unwrap();
    let p = fam.fit_path(&r.view(&[0, 1, 2, 3])).unwrap().predict(&r.view(&[4])).unwrap();
    assert!((p[0].value(0) - 1.0 / 3.0).abs() < 1e-15);
}

#[test]
fn smoother_fitted_values_and_leverages() {
    // x: 0, 0, 0, 5 (three duplicates). From x = 0 the list is positions 0, 1, 2, 3.
    let d = Dataset::new(vec![0.0, 0.0, 0.0, 5.0], vec!["x".into()], Target::Real(vec![1.0, 2.0, 4.0, 8.0]), "y").unwrap();
    let fam = KnnFamily::new(vec![1.0, 2.0, 4.0], Task::Regression, 0).unwrap();
    let s = fam.linear_smoother(&d.all()).unwrap().unwrap();
    // k = 1: every duplicate's nearest is position 0; only row 0 (and the lone row 3) is its own.
    assert_eq!(s.leverage[0], [1.0, 0.0, 0.0, 1.0]);
    // k = 2: rows 0 and 1 are in their lists (0, 1), row 2 is not; row 3's list is 3, 0.
    assert_eq!(s.leverage[1], [0.5, 0.5, 0.0, 0.5]);
    assert_eq!(s.leverage[2], [0.25; 4]);
    assert_eq!(s.fitted[1], [1.5, 1.5, 1.5, 4.5]);
    for (m, f) in s.fitted.iter().enumerate() {
        let refit = fam.fit(&d.all(), m).unwrap().predict(&d.all()).unwrap();
        assert_eq!(refit.values().unwrap(), f.as_slice());
    }
    let classes = random_data(20, 2, Some(2), 1);
    assert!(KnnFamily::new(vec![1.0], Task::Classification, 2).unwrap().linear_smoother(&classes.all()).is_none());
}

#[test]
fn features_that_would_overflow_distances_are_refused() {
    let big = Dataset::new(vec![0.0, 1e200, 2.0, 3.0], vec!["x".into()], Target::Real(vec![0.0, 1.0, 2.0, 3.0]), "y").unwrap();
    let fam = KnnFamily::new(vec![1.0], Task::Regression, 0).unwrap();
    let err = fam.fit_path(&big.view(&[0, 1, 2])).err().expect("overflow refused");
    assert!(matches!(&err, Error::Numerical(m) if m.contains("overflow")), "{err}");
    // a clean training set, a huge query point
    let path = fam.fit_path(&big.view(&[0, 2, 3])).unwrap();
    assert!(matches!(path.predict(&big.view(&[1])), Err(Error::Numerical(_))));
    let model = fam.fit(&big.view(&[0, 2, 3]), 0).unwrap();
    assert!(matches!(model.predict(&big.view(&[1])), Err(Error::Numerical(_))));
    // just below the limit works: 1e153 in one dimension
    let ok = Dataset::new(vec![0.0, 1e153, 2.0], vec!["x".into()], Target::Real(vec![0.0, 1.0, 2.0]), "y").unwrap();
    assert!(fam.fit_path(&ok.all()).unwrap().predict(&ok.all()).is_ok());
}

#[test]
fn a_directly_deserialized_inconsistent_model_errs_instead_of_panicking() {
    let data = random_data(30, 2, Some(2), 3);
    let Model::Knn(mut m) = KnnFamily::new(vec![3.0], Task::Classification, 2).unwrap().fit(&data.all(), 0).unwrap() else {
        unreachable!()
    };
    m.y.truncate(10);
    assert!(matches!(m.predict(&data.all()), Err(Error::CorruptModel(_))));
}

#[test]
fn k_larger_than_training_set_is_an_error() {
    let data = random_data(10, 1, Some(2), 0);
    let fam = KnnFamily::new(vec![1.0, 11.0], Task::Classification, 2).unwrap();
    assert!(matches!(fam.fit_path(&data.all()), Err(Error::InvalidParameter { .. })));
    assert!(KnnFamily::new(vec![], Task::Classification, 2).is_err());
    assert!(KnnFamily::new(vec![0.0], Task::Classification, 2).is_err());
    assert!(KnnFamily::new(vec![1.5], Task::Classification, 2).is_err());
}

#[test]
fn scattered_order_is_a_permutation_that_splits_neighbouring_rows() {
    for n in [0usize, 1, 2, 3, 10, 12, 97, 1_000, 4_096, 10_000] {
        let order = scattered_order(n);
        let mut seen = vec![false; n];
        order.iter().for_each(|&r| seen[r as usize] = true);
        assert!(order.len() == n && seen.iter().all(|&s| s), "n = {n}: not a permutation");
        if n >= 1_000 {
            // Rows 1..=32 (consecutive) land in more than 16 different blocks of 32 positions.
            let mut rank = vec![0usize; n];
            order.iter().enumerate().for_each(|(p, &r)| rank[r as usize] = p);
            let mut blocks: Vec<usize> = (1..=32).map(|r| rank[r] / 32).collect();
            blocks.sort_unstable();
            blocks.dedup();
            assert!(blocks.len() > 16, "n = {n}: rows 1..=32 share {} blocks", blocks.len());
        }
    }
}

#[test]
fn seeded_table_lists_equal_a_full_sort() {
    // 5 000 rows, d = 10: the table's product search with a sample, each block's thresholds
    // seeded; grid-valued features give exact ties and duplicated points.
    let (n, d, want) = (5000, 10, 99);
    let data = random_data(n, d, Some(3), 59);
    let family = KnnFamily::new(vec![1.0, 99.0], data.task(), 3).unwrap().sharing(&data, n, true);
    let shared = family.shared.as_ref().unwrap();
    assert!(matches!(shared.lists, Lists::Table { .. }));
    let mut scratch = Scratch::default();
    for r in (0..n).step_by(97) {
        let mut all: Vec<(u64, u32)> = (0..n).map(|j| (neighbors::dist2(data.row(r), data.row(j)).to_bits(), j as u32)).collect();
        all.sort_unstable();
        let expected: Vec<u32> = all[..want].iter().map(|&(_, j)| j).collect();
        assert_eq!(shared.list(r, want, &mut scratch), expected, "row {r}");
    }
    assert!(scratch.gemm.seeded_queries > 0, "the seeded search was used");
}

/// Weights in {0, ½, 1, 3/2, 2, 3} (some 0) for `n` rows.
fn some_weights(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| [0.0, 0.5, 1.0, 1.5, 2.0, 3.0][rng.random_range(0..6)]).collect()
}

/// Sample-weighted votes and means: the path (shared lists or a fresh search, sorted and
/// repeated training rows) equals a fit per k, and both equal an independent reference (full
/// sort, votes Σ w · (1/d for distance weights), the unweighted vote when every weight is 0).
#[test]
fn sample_weights_equal_a_weighted_reference() {
    for (classes, seed) in [(Some(2), 41), (Some(3), 42), (None, 43)] {
        let data = random_data(240, 2, classes, seed);
        let w = some_weights(240, seed);
        let data = data.with_weights(w.clone()).unwrap();
        let ks: Vec<f64> = (1..=12).map(f64::from).collect();
        let sorted: Vec<usize> = (0..180).collect();
        let repeated: Vec<usize> = (0..180).map(|i| (i * 7) % 150).collect();
        let val: Vec<usize> = (180..240).collect();
        for weights in [Weights::Uniform, Weights::Distance] {
            let fam = KnnFamily::new(ks.clone(), data.task(), data.target().n_classes()).unwrap().with_weights(weights);
            for train in [&sorted, &repeated] {
                path_equals_refit(&fam, &data.view(train), &data.view(&val), 0.0);
                let shared = fam.clone().sharing_with(&data);
                path_equals_refit(&shared, &data.view(train), &data.view(&val), 0.0);
                let (train, val) = (data.view(train), data.view(&val));
                let path = shared.fit_path(&train).unwrap().predict(&val).unwrap();
                for (g, &k) in ks.iter().enumerate() {
                    for i in 0..val.len() {
                        let q = val.x(i);
                        let mut all: Vec<(f64, usize)> = (0..train.len())
                            .map(|t| (train.x(t).iter().zip(q).map(|(a, b)| (a - b) * (a - b)).sum::<f64>().sqrt(), t))
                            .collect();
                        all.sort_by(|a, b| a.0.total_cmp(&b.0).then(train.rows()[a.1].cmp(&train.rows()[b.1])));
                        let nearest = &all[..k as usize];
                        let exact = nearest.iter().any(|n| n.0 == 0.0);
                        let by_distance = |r: f64| match weights {
                            Weights::Uniform => 1.0,
                            Weights::Distance if exact => f64::from(u8::from(r == 0.0)),
                            Weights::Distance => 1.0 / r,
                        };
                        let any = nearest.iter().any(|n| by_distance(n.0) * train.weight(n.1) > 0.0);
                        let wt = |n: &(f64, usize)| by_distance(n.0) * if any { train.weight(n.1) } else { 1.0 };
                        match &path[g] {
                            Predictions::Real(v) => {
                                let (s, t) = nearest.iter().fold((0.0, 0.0), |(s, t), n| (s + wt(n) * train.y(n.1), t + wt(n)));
                                assert!((v[i] - s / t).abs() <= 1e-12 * (1.0 + v[i].abs()), "{weights:?} k {k} row {i}");
                            }
                            Predictions::Classes { labels, proba, .. } => {
                                let kc = data.target().n_classes();
                                let mut tally = vec![0.0; kc];
                                nearest.iter().for_each(|n| tally[train.class(n.1) as usize] += wt(n));
                                let top = tally.iter().copied().fold(0.0, f64::max);
                                let total: f64 = tally.iter().sum();
                                let p = &proba.as_ref().unwrap()[i * kc..(i + 1) * kc];
                                assert!(p.iter().zip(&tally).all(|(a, b)| (a - b / total).abs() < 1e-12), "{weights:?} k {k} row {i}");
                                assert!((tally[labels[i] as usize] - top).abs() <= 1e-12 * top, "{weights:?} k {k} row {i}");
                                // ties go to the class whose nearest member of positive weight comes first
                                let first =
                                    nearest.iter().find(|n| wt(n) > 0.0 && (tally[train.class(n.1) as usize] - top).abs() <= 1e-12 * top);
                                if weights == Weights::Uniform {
                                    assert_eq!(labels[i], train.class(first.unwrap().1), "{weights:?} k {k} row {i}: tie rule");
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Unit weights are no weights, bit for bit; scaling every weight by one constant changes
/// nothing (votes exactly here: weights and sums are small multiples of ½; means and
/// distance-weighted votes to rounding); other weights change the fit.
#[test]
fn unit_and_scaled_weights_change_nothing() {
    for (classes, seed) in [(Some(2), 51), (Some(3), 52), (None, 53)] {
        let data = random_data(200, 2, classes, seed);
        let w = some_weights(200, seed);
        let unit = data.clone().with_weights(vec![1.0; 200]).unwrap();
        let weighted = data.clone().with_weights(w.clone()).unwrap();
        let scaled = data.clone().with_weights(w.iter().map(|v| 3.0 * v).collect()).unwrap();
        let (tr, va): (Vec<usize>, Vec<usize>) = ((0..150).collect(), (150..200).collect());
        for weights in [Weights::Uniform, Weights::Distance] {
            for share in [false, true] {
                let fam = KnnFamily::new((1..=12).map(f64::from).collect(), data.task(), data.target().n_classes())
                    .unwrap()
                    .with_weights(weights);
                let predict = |d: &Dataset| {
                    let fam = if share { fam.clone().sharing_with(d) } else { fam.clone() };
                    fam.fit_path(&d.view(&tr)).unwrap().predict(&d.view(&va)).unwrap()
                };
                assert_eq!(predict(&unit), predict(&data), "{weights:?} shared {share}");
                assert_ne!(predict(&weighted), predict(&data), "{weights:?} shared {share}");
                if weights == Weights::Uniform && classes.is_some() {
                    assert_eq!(predict(&scaled), predict(&weighted), "{weights:?} shared {share}");
                }
                // means round their products differently: equal to rounding
                if classes.is_none() {
                    for (a, b) in predict(&scaled).iter().zip(&predict(&weighted)) {
                        for i in 0..a.len() {
                            assert!((a.value(i) - b.value(i)).abs() <= 1e-12, "{weights:?} shared {share} row {i}");
                        }
                    }
                }
            }
        }
    }
}

fn proba(p: &Predictions) -> Vec<f64> {
    let Predictions::Classes { proba: Some(p), .. } = p else { panic!("no probabilities") };
    p.clone()
}

#[test]
fn hand_computed_weighted_example() {
    // x: 0, 1, 2, 10 with classes a, a, b, b; query 1.6 → neighbours 2 (0.4), 1 (0.6), 0, 10.
    let x = vec![0.0, 1.0, 2.0, 10.0, 1.6];
    let classes = |w: Vec<f64>| {
        let target = Target::Classes { labels: vec![0, 0, 1, 1, 0], names: vec!["a".into(), "b".into()] };
        Dataset::new(x.clone(), vec!["x".into()], target, "y").unwrap().with_weights(w).unwrap()
    };
    let fam = KnnFamily::new(vec![1.0, 2.0, 3.0, 4.0], Task::Classification, 2).unwrap();
    let predict = |d: &Dataset| fam.fit_path(&d.view(&[0, 1, 2, 3])).unwrap().predict(&d.view(&[4])).unwrap();
    // weights 1, 1, 3, 1: b weighs 3 of 3, 4; a 2 of 5 (k=3), a 2 vs b 4 (k=4)
    let p = predict(&classes(vec![1.0, 1.0, 3.0, 1.0, 1.0]));
    assert_eq!(p.iter().map(|q| q.labels().unwrap()[0]).collect::<Vec<_>>(), [1, 1, 1, 1]);
    assert_eq!(proba(&p[2]), [2.0 / 5.0, 3.0 / 5.0]);
    // weights 4, 1, 0, 1: k=1 has only weight 0 → the unweighted vote (b); k=2: a (1 vs 0);
    // k=3: a (5 vs 0); k=4: a 5 vs b 1
    let p = predict(&classes(vec![4.0, 1.0, 0.0, 1.0, 1.0]));
    assert_eq!(p.iter().map(|q| q.labels().unwrap()[0]).collect::<Vec<_>>(), [1, 0, 0, 0]);
    assert_eq!(proba(&p[0]), [0.0, 1.0]);
    assert_eq!(proba(&p[3]), [5.0 / 6.0, 1.0 / 6.0]);
    // regression, y = class index, weights 1, 1, 3, 1: k=3 → (3·1 + 1·0 + 1·0) / 5
    let target = Target::Real(vec![0.0, 0.0, 1.0, 1.0, 0.0]);
    let r = Dataset::new(x.clone(), vec!["x".into()], target, "y").unwrap().with_weights(vec![1.0, 1.0, 3.0, 1.0, 1.0]).unwrap();
    let fam = KnnFamily::new(vec![3.0], Task::Regression, 0).unwrap();
    let p = fam.fit_path(&r.view(&[0, 1, 2, 3])).unwrap().predict(&r.view(&[4])).unwrap();
    assert!((p[0].value(0) - 0.6).abs() < 1e-15);
    // the fitted model keeps its weights through a file
    let model = fam.fit(&r.view(&[0, 1, 2, 3]), 0).unwrap();
    let Model::Knn(knn) = &model else { unreachable!() };
    let back: KnnModel = serde_json::from_str(&serde_json::to_string(knn).unwrap()).unwrap();
    assert_eq!(back.predict(&r.view(&[4])).unwrap().value(0), p[0].value(0));
}

#[test]
fn the_models_of_a_path_and_their_clones_share_one_copy_of_the_training_points() {
    let data = random_data(60, 3, Some(2), 11);
    let fam = KnnFamily::new(vec![1.0, 3.0, 5.0], Task::Classification, 2).unwrap().sharing_with(&data);
    let rows: Vec<usize> = (0..60).rev().step_by(2).collect();
    let path = fam.fit_path(&data.view(&rows)).unwrap();
    let models: Vec<Model> = (0..3).map(|g| path.model(g).unwrap()).collect();
    let points = |m: &Model| match m {
        Model::Knn(m) => m.x.as_ptr(),
        _ => unreachable!(),
    };
    let first = points(&models[0]);
    assert!(models.iter().chain(&[models[2].clone()]).all(|m| points(m) == first), "each model or clone copied the points");
    // The file format does not change: the points are a plain array, in ascending row order.
    let Model::Knn(m) = &models[1] else { unreachable!() };
    let json = serde_json::to_value(m).unwrap();
    let mut ascending = rows.clone();
    ascending.sort_unstable();
    assert_eq!(json["x"], serde_json::json!(data.view(&ascending).gather_x()));
    let back: KnnModel = serde_json::from_value(json).unwrap();
    assert_eq!(&back, m);
}
