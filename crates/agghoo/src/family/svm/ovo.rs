//! More than two classes: one-vs-one (OvO) voting over binary C-SVCs, as LIBSVM and
//! scikit-learn's `SVC` do it. The rule is stated in the parent module's doc (`# Classification`);
//! this module holds the pairs, their path, the fitted [`OneVsOneSvc`] and the vote.
//!
//! Kernel work: when the training set fits the full matrix (`n_t ≤ FULL_MATRIX_MAX_ROWS`) its
//! kernel matrix is computed once and every pair's solver gets a copy of its sub-block (so the
//! solver reads its rows contiguously); otherwise each pair gets its own cache over its own rows.
//! Both hold the same kernel values (the same kernel on the same points), so the solutions are
//! identical bit for bit. Pairs are solved
//! in parallel; each pair is deterministic, so the result does not depend on the thread count.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::cache::{KernelCache, Points};
use super::{Problem, SvmFamily, check_features, check_kernel_model, decision_values, one_class};
use crate::Par;
use crate::data::View;
use crate::error::{Error, Result};
use crate::family::numerics::kernel::Kernel;
use crate::family::{FittedPath, Model};
use crate::predictions::{PathPredictions, Predictions};

/// The binary sub-problem of the classes `positive < negative` on a training set.
struct Pair {
    /// Class voted for when the decision is positive (label +1 in the dual).
    positive: u32,
    /// Class voted for otherwise (label −1).
    negative: u32,
    /// Positions in the training set of the rows of the two classes, increasing.
    rows: Vec<usize>,
}

impl Pair {
    /// The dual problem of the pair, its variables (and kernel rows) in the order of `rows`.
    fn problem(&self, train: &View<'_>) -> Problem {
        let l = self.rows.len();
        let y = self.rows.iter().map(|&i| if train.class(i) == self.positive { 1.0 } else { -1.0 }).collect();
        let weights = train.non_unit_weights().map(|w| self.rows.iter().map(|&i| w[i]).collect());
        Problem { y, p: vec![-1.0; l], doubled: false, n: l, weights }
    }

    /// The problem and a kernel cache over the pair's rows: the sub-block of `shared` (the
    /// training set's full matrix, copied, no kernel evaluation) when there is one, else a cache
    /// of its own (computed with parallelism `par`).
    fn problem_and_cache(&self, train: &View<'_>, points: &Points, shared: Option<&KernelCache>, par: Par) -> (Problem, KernelCache) {
        let cache = shared.and_then(|k| k.sub_block(&self.rows)).unwrap_or_else(|| {
            let mut x = Vec::with_capacity(self.rows.len() * points.d);
            self.rows.iter().for_each(|&i| x.extend_from_slice(points.row(i)));
            KernelCache::new(Points { x, d: points.d, kernel: points.kernel }, par)
        });
        (self.problem(train), cache)
    }
}

/// `β_t = y_t α_t` over the pair's rows (C-SVC: one variable per row).
fn pair_beta(problem: &Problem, alpha: &[f64]) -> Vec<f64> {
    alpha.iter().zip(&problem.y).map(|(a, y)| a * y).collect()
}

/// The classes present in `train` (increasing) and their pairs `(a, b)`, `a < b`, in LIBSVM's
/// order `(c₀, c₁), (c₀, c₂), …, (c_{m−2}, c_{m−1})`. Rows of weight 0 are left out (absent).
///
/// # Errors
/// [`Error::ConstantTarget`] when fewer than two classes are present.
fn pairs(train: &View<'_>) -> Result<(Vec<u32>, Vec<Pair>)> {
    let k = train.n_classes();
    let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); k];
    for i in (0..train.len()).filter(|&i| train.weight(i) > 0.0) {
        if let Some(rows) = rows_of.get_mut(train.class(i) as usize) {
            rows.push(i);
        }
    }
    let classes: Vec<u32> = (0..k).filter(|&c| !rows_of[c].is_empty()).map(|c| c as u32).collect();
    if classes.len() < 2 {
        return Err(one_class(train));
    }
    let mut pairs = Vec::with_capacity(classes.len() * (classes.len() - 1) / 2);
    for (s, &a) in classes.iter().enumerate() {
        for &b in &classes[s + 1..] {
            let mut rows: Vec<usize> = rows_of[a as usize].iter().chain(&rows_of[b as usize]).copied().collect();
            rows.sort_unstable();
            pairs.push(Pair { positive: a, negative: b, rows });
        }
    }
    Ok((classes, pairs))
}

fn points_of(fam: &SvmFamily, train: &View<'_>) -> Result<Points> {
    let x = train.gather_x();
    Ok(Points { kernel: Kernel::rbf(fam.gamma_for(train, &x)?)?, x, d: train.n_features() })
}

/// The cold fit at box bound `c` (the reference path): every pair's binary C-SVC from α = 0 on a
/// kernel cache of its own rows.
///
/// # Errors
/// [`Error::ConstantTarget`] for fewer than two classes; solver failures.
pub(super) fn fit(fam: &SvmFamily, train: &View<'_>, c: f64) -> Result<OneVsOneSvc> {
    let (classes, pairs) = pairs(train)?;
    let points = points_of(fam, train)?;
    let par = train.par();
    let fits: Vec<(Vec<f64>, f64)> = pairs
        .par_iter()
        .with_min_len(par.min_len(pairs.len()))
        .map(|pair| {
            let (problem, mut cache) = pair.problem_and_cache(train, &points, None, par.split(pairs.len()));
            let sol = fam.solve(&problem, c, &mut cache, None)?;
            Ok((pair_beta(&problem, &sol.alpha), -sol.rho))
        })
        .collect::<Vec<Result<_>>>()
        .into_iter()
        .collect::<Result<_>>()?;
    let betas: Vec<&[f64]> = fits.iter().map(|(b, _)| b.as_slice()).collect();
    let biases: Vec<f64> = fits.iter().map(|(_, b)| *b).collect();
    Ok(OneVsOneSvc::from_dense(&points, train.n_classes(), classes, &pairs, &betas, &biases))
}

/// The path: every pair solves the grid in increasing C, warm-started as the binary path, on
/// the training set's shared kernel matrix (or its own cache when the set is too large).
///
/// # Errors
/// As [`fit`].
pub(super) fn fit_path(fam: &SvmFamily, train: &View<'_>) -> Result<OneVsOnePath> {
    let (classes, pairs) = pairs(train)?;
    let points = points_of(fam, train)?;
    let n_t = train.len();
    let par = train.par();
    let size = super::training_size(train);
    let shared = (n_t <= super::cache::FULL_MATRIX_MAX_ROWS).then(|| KernelCache::new(points.clone(), par));
    let per_pair: Vec<(Vec<Vec<f64>>, Vec<f64>)> = pairs
        .par_iter()
        .with_min_len(par.min_len(pairs.len()))
        .map(|pair| {
            let (problem, mut cache) = pair.problem_and_cache(train, &points, shared.as_ref(), par.split(pairs.len()));
            // the same C for every pair: from the whole training set's size
            fam.solve_path(&problem, size, &mut cache, pair_beta)
        })
        .collect::<Vec<Result<_>>>()
        .into_iter()
        .collect::<Result<_>>()?;
    let (betas, biases) = per_pair.into_iter().unzip();
    Ok(OneVsOnePath { n_classes: train.n_classes(), classes, points, pairs, betas, biases })
}

/// Every grid point's pairs over the training rows.
pub(super) struct OneVsOnePath {
    n_classes: usize,
    classes: Vec<u32>,
    points: Points,
    pairs: Vec<Pair>,
    /// `[pair][grid_index][position in the pair's rows]`.
    betas: Vec<Vec<Vec<f64>>>,
    /// `[pair][grid_index]`.
    biases: Vec<Vec<f64>>,
}

impl FittedPath for OneVsOnePath {
    fn predict(&self, validation: &View<'_>) -> Result<PathPredictions> {
        check_features(self.points.d, validation)?;
        // training rows that are a support vector of some pair at some grid point, increasing
        let n_t = self.points.len();
        let mut used = vec![false; n_t];
        for (pair, betas) in self.pairs.iter().zip(&self.betas) {
            for beta in betas {
                pair.rows.iter().zip(beta).filter(|(_, b)| **b != 0.0).for_each(|(&i, _)| used[i] = true);
            }
        }
        let mut slot = vec![usize::MAX; n_t];
        let mut support = Vec::new();
        let mut n_sv = 0;
        for i in (0..n_t).filter(|&i| used[i]) {
            slot[i] = n_sv;
            n_sv += 1;
            support.extend_from_slice(self.points.row(i));
        }
        // expansions ordered [grid_index][pair], dense over the support (zeros add nothing)
        let n_grid = self.betas.first().map_or(0, Vec::len);
        let mut coefs = Vec::with_capacity(n_grid * self.pairs.len());
        let mut biases = Vec::with_capacity(n_grid * self.pairs.len());
        for m in 0..n_grid {
            for (q, pair) in self.pairs.iter().enumerate() {
                let mut dense = vec![0.0; n_sv];
                pair.rows.iter().zip(&self.betas[q][m]).filter(|(_, b)| **b != 0.0).for_each(|(&i, &b)| dense[slot[i]] = b);
                coefs.push(dense);
                biases.push(self.biases[q][m]);
            }
        }
        let refs: Vec<&[f64]> = coefs.iter().map(Vec::as_slice).collect();
        let decisions = decision_values(validation, &support, self.points.d, &self.points.kernel, &refs, &biases);
        let classes: Vec<(u32, u32)> = self.pairs.iter().map(|p| (p.positive, p.negative)).collect();
        decisions.chunks(self.pairs.len().max(1)).map(|per_pair| vote(per_pair, &classes, self.n_classes, validation.len())).collect()
    }

    fn model(&self, grid_index: usize) -> Result<Model> {
        let betas: Vec<&[f64]> = self
            .betas
            .iter()
            .map(|b| b.get(grid_index).map(Vec::as_slice))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::invalid("grid index", "on the grid", grid_index))?;
        let biases: Vec<f64> = self.biases.iter().map(|b| b[grid_index]).collect();
        Ok(Model::OneVsOneSvc(OneVsOneSvc::from_dense(&self.points, self.n_classes, self.classes.clone(), &self.pairs, &betas, &biases)))
    }
}

/// The one-vs-one vote of the pairs' decision values (`decisions[q][row]`, pair q voting for
/// `classes[q].0` when positive, else for `classes[q].1`): the class with the most votes, ties to
/// the lowest class index (LIBSVM's rule); `proba` = votes / number of pairs (vote fractions,
/// not calibrated probabilities); no decision score.
pub(super) fn vote(decisions: &[Vec<f64>], classes: &[(u32, u32)], n_classes: usize, n_rows: usize) -> Result<Predictions> {
    if decisions.iter().flatten().any(|v| !v.is_finite()) {
        return Err(Error::Numerical("SVM decision value is not finite".into()));
    }
    let n_pairs = decisions.len() as f64;
    let mut labels = Vec::with_capacity(n_rows);
    let mut proba = vec![0.0; n_rows * n_classes];
    let mut votes = vec![0u32; n_classes];
    for i in 0..n_rows {
        votes.iter_mut().for_each(|v| *v = 0);
        for (d, &(a, b)) in decisions.iter().zip(classes) {
            votes[if d[i] > 0.0 { a } else { b } as usize] += 1;
        }
        let winner = (1..n_classes).fold(0, |best, c| if votes[c] > votes[best] { c } else { best });
        labels.push(winner as u32);
        proba[i * n_classes..(i + 1) * n_classes].iter_mut().zip(&votes).for_each(|(p, &v)| *p = f64::from(v) / n_pairs);
    }
    Ok(Predictions::Classes { labels, n_classes, proba: Some(proba), decision: None })
}

/// One pair's machine inside a [`OneVsOneSvc`]: `f(x) = Σ_s β_s K(x_s, x) + b` over the model's
/// support vectors listed in `support_index`; a positive `f` votes for `positive`, otherwise for
/// `negative`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PairMachine {
    /// The smaller class index of the pair, voted for when `f(x) > 0` (label +1 in the dual).
    positive: u32,
    /// The larger class index, voted for when `f(x) ≤ 0` (label −1).
    negative: u32,
    /// Indices into the model's support vectors, strictly increasing.
    support_index: Vec<usize>,
    /// `β_s = y_s α_s`, one per entry of `support_index`.
    coef: Vec<f64>,
    /// The bias b (LIBSVM's `−ρ`).
    bias: f64,
}

/// A K-class C-SVC (K > 2) by one-vs-one voting: one binary machine per pair of the classes seen
/// in training, sharing their support vectors (LIBSVM's multi-class model). Predicts the class
/// with the most pair votes, ties to the lowest class index, with the vote fractions as `proba`
/// (see the parent module's `# Classification`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OneVsOneSvc {
    gamma: f64,
    n_features: usize,
    /// K, the number of classes of the training schema.
    n_classes: usize,
    /// The classes present in the training set, strictly increasing (at least two); a class
    /// absent from training has no machine and never receives a vote.
    classes: Vec<u32>,
    /// Support vectors of all pairs, row-major `n_support × n_features`.
    support: Vec<f64>,
    /// One machine per pair `(a, b)` of `classes`, `a < b`, in the order `(c₀, c₁), (c₀, c₂), …,
    /// (c_{m−2}, c_{m−1})`: m(m − 1)/2 machines for m classes present.
    pairs: Vec<PairMachine>,
}

impl OneVsOneSvc {
    /// The model from each pair's expansion over its rows (`betas[q][t]` for row `pairs[q].rows[t]`).
    /// Support vectors are the training rows used by some pair, in training order; each pair's
    /// list keeps that order, so its decision sums in the same order as the path's.
    fn from_dense(points: &Points, n_classes: usize, classes: Vec<u32>, pairs: &[Pair], betas: &[&[f64]], biases: &[f64]) -> Self {
        let n_t = points.len();
        let mut slot = vec![usize::MAX; n_t];
        for (pair, beta) in pairs.iter().zip(betas) {
            pair.rows.iter().zip(beta.iter()).filter(|(_, b)| **b != 0.0).for_each(|(&i, _)| slot[i] = 0);
        }
        let mut support = Vec::new();
        for (n_sv, (i, s)) in slot.iter_mut().enumerate().filter(|(_, s)| **s != usize::MAX).enumerate() {
            *s = n_sv;
            support.extend_from_slice(points.row(i));
        }
        let machines = pairs
            .iter()
            .zip(betas)
            .zip(biases)
            .map(|((pair, beta), &bias)| {
                let (support_index, coef) =
                    pair.rows.iter().zip(beta.iter()).filter(|(_, b)| **b != 0.0).map(|(&i, &b)| (slot[i], b)).unzip();
                PairMachine { positive: pair.positive, negative: pair.negative, support_index, coef, bias }
            })
            .collect();
        Self { gamma: points.gamma(), n_features: points.d, n_classes, classes, support, pairs: machines }
    }

    /// K, the number of classes predicted.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }
    /// The classes seen in training (increasing); pairs are formed over these.
    pub fn classes(&self) -> &[u32] {
        &self.classes
    }
    /// The kernel's γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }
    /// Number of distinct support vectors over all pairs.
    pub fn n_support(&self) -> usize {
        self.support.len().checked_div(self.n_features).unwrap_or(0)
    }
    /// The pairs `(a, b)`, in the model's order; pair q votes for `a` when its decision is > 0.
    pub fn pairs(&self) -> Vec<(u32, u32)> {
        self.pairs.iter().map(|p| (p.positive, p.negative)).collect()
    }

    /// Each pair's decision function on every row of `rows`, `[pair][row]` (pair order of
    /// [`OneVsOneSvc::pairs`]).
    ///
    /// # Errors
    /// [`Error::SchemaMismatch`] for another number of features; [`Error::CorruptModel`] for an
    /// inconsistent model.
    pub fn decisions(&self, rows: &View<'_>) -> Result<Vec<Vec<f64>>> {
        check_features(self.n_features, rows)?;
        self.check_shape()?;
        let n_sv = self.n_support();
        let coefs: Vec<Vec<f64>> = self
            .pairs
            .iter()
            .map(|p| {
                let mut dense = vec![0.0; n_sv];
                p.support_index.iter().zip(&p.coef).for_each(|(&s, &b)| dense[s] = b);
                dense
            })
            .collect();
        let refs: Vec<&[f64]> = coefs.iter().map(Vec::as_slice).collect();
        let biases: Vec<f64> = self.pairs.iter().map(|p| p.bias).collect();
        Ok(decision_values(rows, &self.support, self.n_features, &Kernel::rbf(self.gamma)?, &refs, &biases))
    }

    /// What prediction indexes by: whole support vectors, and per pair as many coefficients as
    /// indices, each index in range and the list strictly increasing.
    fn check_shape(&self) -> Result<()> {
        let bad = |what: String| Err(Error::CorruptModel(format!("inconsistent one-vs-one SVM model: {what}")));
        if self.n_features == 0 || !self.support.len().is_multiple_of(self.n_features) {
            return bad(format!("{} support values for {} features", self.support.len(), self.n_features));
        }
        if self.n_classes < 2 || self.pairs.is_empty() {
            return bad(format!("{} classes and {} pairs", self.n_classes, self.pairs.len()));
        }
        let n_sv = self.n_support();
        for (q, p) in self.pairs.iter().enumerate() {
            if p.positive as usize >= self.n_classes || p.negative as usize >= self.n_classes {
                return bad(format!("pair {q}: classes ({}, {}) out of range for {} classes", p.positive, p.negative, self.n_classes));
            }
            if p.support_index.len() != p.coef.len() {
                return bad(format!("pair {q}: {} support indices for {} coefficients", p.support_index.len(), p.coef.len()));
            }
            if p.support_index.iter().any(|&s| s >= n_sv) || p.support_index.windows(2).any(|w| w[0] >= w[1]) {
                return bad(format!("pair {q}: support indices not increasing within {n_sv} support vectors"));
            }
        }
        Ok(())
    }

    /// Checks a deserialized model: the shape of [`OneVsOneSvc::check_shape`]; at least two
    /// training classes, strictly increasing and below K; exactly m(m − 1)/2 pairs for m
    /// classes, each naming the expected classes in order; `γ > 0`; every number finite.
    ///
    /// # Errors
    /// [`Error::CorruptModel`] naming the inconsistency.
    pub(crate) fn validate(&self, n_features: usize) -> Result<()> {
        let bad = |what: String| Err(Error::CorruptModel(format!("inconsistent one-vs-one SVM model: {what}")));
        check_kernel_model("one-vs-one SVM model", self.n_features, n_features, self.gamma)?;
        self.check_shape()?;
        let m = self.classes.len();
        if m < 2 || self.classes.windows(2).any(|w| w[0] >= w[1]) || self.classes.iter().any(|&c| c as usize >= self.n_classes) {
            return bad(format!(
                "training classes {:?} are not at least two increasing class indices below {}",
                self.classes, self.n_classes
            ));
        }
        if self.pairs.len() != m * (m - 1) / 2 {
            return bad(format!("{} pairs for {m} classes (expected {})", self.pairs.len(), m * (m - 1) / 2));
        }
        let expected = self.classes.iter().enumerate().flat_map(|(s, &a)| self.classes[s + 1..].iter().map(move |&b| (a, b)));
        if let Some((q, _)) = self.pairs.iter().zip(expected).enumerate().find(|(_, (p, e))| (p.positive, p.negative) != *e) {
            return bad(format!("pair {q} has classes ({}, {}), out of order or range", self.pairs[q].positive, self.pairs[q].negative));
        }
        let numbers = self.support.iter().chain(self.pairs.iter().flat_map(|p| p.coef.iter().chain(std::iter::once(&p.bias))));
        if numbers.into_iter().any(|v| !v.is_finite()) {
            return bad("a non-finite support vector, coefficient or bias".into());
        }
        Ok(())
    }
}

impl crate::family::Predictor for OneVsOneSvc {
    fn predict(&self, rows: &View<'_>) -> Result<Predictions> {
        let decisions = self.decisions(rows)?;
        vote(&decisions, &self.pairs(), self.n_classes, rows.len())
    }
}
