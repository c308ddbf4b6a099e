//! Growing one CART tree: exact best split over the candidate features, shared by the CART
//! family and the random forest (see `README.md` beside this file).
//!
//! Rows are sorted once per feature ([`Presorted`]); every node is a contiguous range of each
//! feature's sorted list, and splitting a node stably partitions those ranges. Finding the best
//! split of a node of `n_t` rows costs `O(n_t)` per candidate feature, with no sort below the
//! root. The alternative, sorting each node's rows per feature as scikit-learn does, costs a
//! `log n_t` factor more and was not kept.
//!
//! Rows carry integer multiplicities (1 for CART, bootstrap counts for forests): a row drawn c
//! times counts exactly as c copies, so a bootstrap never copies data. They may also carry sample
//! weights (as scikit-learn's `sample_weight`): a row's weight is its multiplicity times its sample
//! weight, and every impurity, leaf value and node weight is weighted, while `min_samples_leaf`
//! and the two-row minimum of a split still count rows (copies), as scikit-learn's
//! `min_samples_leaf` counts samples. A row of weight 0 is left out, as if absent.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::data::{Task, View};
use crate::error::{Error, Result};

/// Node impurity `i(t)`, with `p_k` the weighted class fractions of node t.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    /// Gini index `1 − Σ_k p_k²` (classification; the default).
    Gini,
    /// Entropy `−Σ_k p_k log₂ p_k` in bits, as scikit-learn (classification).
    Entropy,
    /// Variance `(1/n_t) Σ (y_i − ȳ_t)²` (regression).
    SquaredError,
}

impl Criterion {
    /// Parses `gini`, `entropy` or `squared_error` and checks it fits `task`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another name or a criterion of the other task.
    pub fn parse(text: &str, task: Task) -> Result<Self> {
        let c = Self::parse_name(text)?;
        c.check_task(task)?;
        Ok(c)
    }
    /// Parses `gini`, `entropy` or `squared_error` (`mse`), whatever the task.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for another name.
    pub fn parse_name(text: &str) -> Result<Self> {
        match text {
            "gini" => Ok(Criterion::Gini),
            "entropy" => Ok(Criterion::Entropy),
            "squared_error" | "mse" => Ok(Criterion::SquaredError),
            _ => Err(Error::invalid("criterion", "gini, entropy or squared_error", text)),
        }
    }
    /// The default of a task: Gini for classification, squared error for regression.
    pub fn default_for(task: Task) -> Self {
        match task {
            Task::Classification => Criterion::Gini,
            Task::Regression => Criterion::SquaredError,
        }
    }
    pub(crate) fn check_task(self, task: Task) -> Result<()> {
        let ok = match self {
            Criterion::Gini | Criterion::Entropy => task == Task::Classification,
            Criterion::SquaredError => task == Task::Regression,
        };
        if ok { Ok(()) } else { Err(Error::TaskMismatch(format!("criterion {self:?} does not apply to {task:?}"))) }
    }
}

/// Checks that nodes `0..n` form one tree rooted at node 0: `children(t)` gives a node's two
/// children (`None` for a leaf) or what is wrong with it; every child must be in range and every
/// node reached exactly once (no cycle, no shared or unreachable node).
pub(crate) fn check_preorder_tree(
    n: usize,
    mut children: impl FnMut(usize) -> std::result::Result<Option<[usize; 2]>, String>,
) -> std::result::Result<(), String> {
    let mut seen = vec![false; n];
    let mut stack = vec![0usize];
    while let Some(t) = stack.pop() {
        if std::mem::replace(&mut seen[t], true) {
            return Err(format!("node {t} is reached twice (a cycle or a shared subtree)"));
        }
        for child in children(t)?.into_iter().flatten() {
            if child >= n {
                return Err(format!("node {t} has child {child}, the tree has {n} nodes"));
            }
            stack.push(child);
        }
    }
    match seen.iter().position(|&s| !s) {
        Some(t) => Err(format!("node {t} is unreachable from the root")),
        None => Ok(()),
    }
}

/// How one tree is grown.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct GrowConfig {
    pub criterion: Criterion,
    /// Minimal number of rows of a leaf (≥ 1), counting bootstrap copies, not sample weights.
    pub min_samples_leaf: usize,
    /// Maximal depth (root = 0), `None` = unlimited.
    pub max_depth: Option<usize>,
    /// Number of classes K (0 for regression).
    pub n_classes: usize,
}

/// The split of an internal node: rows with `x[feature] ≤ threshold` go to `left`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct NodeSplit {
    pub feature: u32,
    pub threshold: f64,
    pub left: u32,
    pub right: u32,
}

/// A node: its split (none for a leaf), total weight `n_t` and impurity `i(t)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Node {
    pub split: Option<NodeSplit>,
    pub weight: f64,
    pub impurity: f64,
}

/// A binary tree in preorder (root = 0, left subtree before right, as scikit-learn numbers
/// nodes), with every node's prediction: K class fractions (classification) or the mean.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Tree {
    pub nodes: Vec<Node>,
    /// `width` values per node.
    pub values: Vec<f64>,
    pub width: usize,
}

impl Tree {
    /// The node's prediction values (class fractions or the mean).
    pub fn value(&self, node: usize) -> &[f64] {
        &self.values[node * self.width..(node + 1) * self.width]
    }
    /// The values of the leaf reached by `x`; `None` when the walk leaves the tree (a node, a
    /// feature or a value out of range) or visits more nodes than the tree has (a cycle), which
    /// only a corrupted model file can cause (see [`Tree::validate`]).
    pub fn leaf_values(&self, x: &[f64]) -> Option<&[f64]> {
        let mut t = 0;
        for _ in 0..self.nodes.len() {
            match &self.nodes.get(t)?.split {
                None => return self.values.get(t * self.width..(t + 1) * self.width),
                Some(s) => t = if *x.get(s.feature as usize)? <= s.threshold { s.left as usize } else { s.right as usize },
            }
        }
        None
    }
    /// Checks a deserialized tree: `width` values per node, every number finite (thresholds
    /// not NaN), split features below `n_features`, children in range, and every node reached
    /// exactly once from the root (a tree: no cycle, no shared or unreachable node).
    pub fn validate(&self, n_features: usize, width: usize) -> std::result::Result<(), String> {
        let n = self.nodes.len();
        if self.width != width {
            return Err(format!("{} values per node, expected {width}", self.width));
        }
        if n == 0 {
            return Err("a tree without nodes".into());
        }
        if n.checked_mul(width) != Some(self.values.len()) {
            return Err(format!("{} values for {n} nodes of width {width}", self.values.len()));
        }
        if self.values.iter().chain(self.nodes.iter().flat_map(|t| [&t.weight, &t.impurity])).any(|v| !v.is_finite()) {
            return Err("a non-finite node value".into());
        }
        check_preorder_tree(n, |t| {
            let Some(s) = &self.nodes[t].split else { return Ok(None) };
            if s.feature as usize >= n_features {
                return Err(format!("node {t} splits on feature {}, the model has {n_features}", s.feature));
            }
            if s.threshold.is_nan() {
                return Err(format!("node {t} has a NaN threshold"));
            }
            Ok(Some([s.left as usize, s.right as usize]))
        })
    }
    /// The id the next pushed node will get, recorded as the `(parent, is_left)` child link:
    /// both builders create nodes in preorder from a stack.
    fn push_child_link(&mut self, parent: Option<(usize, bool)>) -> usize {
        let id = self.nodes.len();
        if let Some(s) = parent.and_then(|(p, _)| self.nodes[p].split.as_mut()) {
            if parent.is_some_and(|(_, is_left)| is_left) {
                s.left = id as u32;
            } else {
                s.right = id as u32;
            }
        }
        id
    }
    /// Number of leaves.
    pub fn n_leaves(&self) -> usize {
        self.nodes.iter().filter(|n| n.split.is_none()).count()
    }
    /// The subtree kept when every node with `cut(node)` true becomes a leaf (renumbered in
    /// preorder).
    pub fn pruned(&self, cut: impl Fn(usize) -> bool) -> Tree {
        let mut out = Tree { nodes: Vec::new(), values: Vec::new(), width: self.width };
        let mut stack = vec![(0usize, None::<(usize, bool)>)];
        while let Some((t, parent)) = stack.pop() {
            let id = out.push_child_link(parent);
            let node = &self.nodes[t];
            let split = node.split.filter(|_| !cut(t));
            out.nodes.push(Node { split, weight: node.weight, impurity: node.impurity });
            out.values.extend_from_slice(self.value(t));
            if let Some(s) = split {
                stack.push((s.right as usize, Some((id, false))));
                stack.push((s.left as usize, Some((id, true))));
            }
        }
        out
    }
    /// Impurity decrease of every split, summed per feature (scikit-learn's unnormalised
    /// `feature_importances_`): `Σ_t n_t i(t) − n_L i(L) − n_R i(R)`.
    pub fn impurity_decrease(&self, n_features: usize) -> Vec<f64> {
        let mut out = vec![0.0; n_features];
        for node in &self.nodes {
            if let Some(s) = &node.split {
                let (l, r) = (&self.nodes[s.left as usize], &self.nodes[s.right as usize]);
                out[s.feature as usize] += node.weight * node.impurity - l.weight * l.impurity - r.weight * r.impurity;
            }
        }
        out
    }
}

/// The training rows of a view, stored by column and sorted once per feature.
pub(crate) struct Presorted {
    n: usize,
    d: usize,
    /// Column-major features, `x[f · n + i]`.
    x: Vec<f64>,
    /// Per feature, positions `0..n` sorted by (value, position).
    order: Vec<u32>,
    /// Class index (classification) or value (regression) per position.
    y: Vec<f64>,
    /// Sample weight per position (`None`: all 1).
    sample_weight: Option<Vec<f64>>,
}

impl Presorted {
    /// Sorts the rows of `train`, with their sample weights when the data are weighted.
    ///
    /// # Errors
    /// [`Error::TooFewRows`] for an empty view or one whose rows all weigh 0; [`Error::InvalidParameter`] without features; [`Error::NonFinite`] on a NaN feature (missing
    /// values must be imputed before trees see them).
    pub fn new(train: &View<'_>) -> Result<Self> {
        let (n, d) = (train.len(), train.n_features());
        let weights = train.weights();
        if weights.as_ref().is_some_and(|w| !w.iter().any(|&v| v > 0.0)) {
            return Err(Error::TooFewRows { what: "a tree (rows of positive weight)".into(), needed: 1, found: 0 });
        }
        if n == 0 {
            return Err(Error::TooFewRows { what: "a tree".into(), needed: 1, found: 0 });
        }
        if d == 0 {
            return Err(Error::invalid("features", "at least 1 for a tree", 0));
        }
        if n > u32::MAX as usize {
            return Err(Error::invalid("rows", "fewer than 2^32 training rows", n));
        }
        let mut x = vec![0.0; n * d];
        for i in 0..n {
            for (f, &v) in train.x(i).iter().enumerate() {
                if v.is_nan() {
                    return Err(Error::NonFinite { row: train.rows()[i], column: train.data().feature_names()[f].clone(), value: v });
                }
                x[f * n + i] = v;
            }
        }
        let mut order = Vec::with_capacity(n * d);
        let mut pairs: Vec<(f64, u32)> = Vec::with_capacity(n);
        for f in 0..d {
            pairs.clear();
            pairs.extend(x[f * n..(f + 1) * n].iter().zip(0..n as u32).map(|(&v, i)| (v, i)));
            pairs.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            order.extend(pairs.iter().map(|p| p.1));
        }
        let y = (0..n).map(|i| train.y(i)).collect();
        Ok(Self { n, d, x, order, y, sample_weight: weights })
    }
    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.n
    }
}

/// Random feature subsets for forests: `mtry` features per node, drawn from `rng`.
pub(crate) struct FeatureSampler<'r> {
    pub mtry: usize,
    pub rng: &'r mut ChaCha8Rng,
}

/// Running weighted statistics of one side of a candidate split.
#[derive(Clone)]
struct Stats {
    weight: f64,
    /// Number of rows (copies), whatever their sample weights.
    count: f64,
    /// Classification: weighted class counts; regression: [Σ w y, Σ w y²].
    sums: Vec<f64>,
    /// Classification, Gini: Σ_k c_k² (exact: integer-valued counts).
    square: f64,
    /// While scanning a split, Gini: `Σ_k (parent_k − c_k)²`, the right side's `square`.
    right_square: f64,
}

impl Stats {
    fn new(width: usize) -> Self {
        Self { weight: 0.0, count: 0.0, sums: vec![0.0; width], square: 0.0, right_square: 0.0 }
    }
    fn clear(&mut self) {
        self.weight = 0.0;
        self.count = 0.0;
        self.sums.iter_mut().for_each(|s| *s = 0.0);
        self.square = 0.0;
        self.right_square = 0.0;
    }
    /// Moves a row from the right side of a split to the left (`self`), keeping the right
    /// side's `square` exact for Gini: `(r − w)² − r² = w² − 2 w r` with `r = parent_k − c_k`.
    fn move_left(&mut self, parent: &Stats, regression: bool, y: f64, w: f64, copies: f64) {
        if !regression {
            let k = y as usize;
            let r = parent.sums[k] - self.sums[k];
            self.right_square += w * w - 2.0 * w * r;
        }
        self.add(regression, y, w, copies);
    }
    fn add(&mut self, regression: bool, y: f64, w: f64, copies: f64) {
        self.weight += w;
        self.count += copies;
        if regression {
            self.sums[0] += w * y;
            self.sums[1] += w * y * y;
        } else {
            let c = &mut self.sums[y as usize];
            self.square += 2.0 * *c * w + w * w;
            *c += w;
        }
    }
    /// Node impurity i(t) computed as scikit-learn does.
    fn impurity(&self, criterion: Criterion) -> f64 {
        let n = self.weight;
        match criterion {
            Criterion::Gini => 1.0 - self.square / (n * n),
            Criterion::Entropy => -self.sums.iter().filter(|&&c| c > 0.0).map(|&c| (c / n) * (c / n).log2()).sum::<f64>(),
            Criterion::SquaredError => self.sums[1] / n - (self.sums[0] / n) * (self.sums[0] / n),
        }
    }
    /// `score(left) + score(parent − left)`: the split's score without building the right side
    /// (Gini reads `right_square`, kept by [`Stats::move_left`]).
    fn split_score(&self, parent: &Stats, criterion: Criterion) -> f64 {
        let (n_left, n_right) = (self.weight, parent.weight - self.weight);
        match criterion {
            Criterion::Gini => self.square / n_left + self.right_square / n_right,
            Criterion::Entropy => {
                let side = |c: f64, n: f64| if c > 0.0 { c * (c / n).log2() } else { 0.0 };
                parent.sums.iter().zip(&self.sums).map(|(p, l)| side(*l, n_left) + side(p - l, n_right)).sum()
            }
            Criterion::SquaredError => {
                let right_sum = parent.sums[0] - self.sums[0];
                self.sums[0] * self.sums[0] / n_left + right_sum * right_sum / n_right
            }
        }
    }
}

/// A node still to create: its range `start..end` in the sorted lists, its depth and its
/// parent with the side it hangs on.
type PendingNode = (usize, usize, usize, Option<(usize, bool)>);

struct BestSplit {
    score: f64,
    feature: usize,
    /// Number of positions going left.
    n_left: usize,
    threshold: f64,
}

/// Grows one tree on the rows of `data` with multiplicities `copies` (`None` = all 1; a zero
/// leaves the row out) and `data`'s sample weights (a row weighs its multiplicity times its
/// sample weight; a zero weight leaves the row out), splitting each node on the best split among
/// all features or, with a sampler, among `mtry` random ones.
///
/// Exact rules (as scikit-learn's `BestSplitter`, without its 1e-7 feature tolerance):
/// - a node is a leaf when its depth reaches `max_depth`, it has fewer than
///   `max(2, 2 · min_samples_leaf)` rows (copies), its impurity is ≤ `f64::EPSILON`, or no split
///   leaves `min_samples_leaf` rows on both sides; a valid split is taken even when it does not
///   decrease the impurity (pruning removes it at α = 0);
/// - thresholds are midpoints `a/2 + b/2` of consecutive distinct values (`a` if that rounds
///   to `b`); a row goes left when `x ≤ threshold`;
/// - ties between equally good splits: the lowest feature index, then the lowest threshold
///   (strict improvement is needed to replace the current best while scanning features in
///   ascending order and thresholds ascending). Classification scores are functions of integer
///   counts, so equal splits score exactly equal.
pub(crate) fn grow(data: &Presorted, copies: Option<&[u32]>, config: &GrowConfig, sampler: Option<FeatureSampler<'_>>) -> Tree {
    grow_with(data, copies, config, sampler, &mut GrowBuffers::default())
}

/// The working memory of [`grow`] (about `n · d` positions and `n` weights, plus the growing
/// tree's nodes), kept by a thread that grows many trees (a forest's) so that each tree reuses
/// the last one's instead of allocating it afresh. Fresh memory is costly where the allocator
/// hands large blocks back to the system as soon as they are freed (glibc with
/// `MALLOC_TRIM_THRESHOLD_` set, as Dask's worker processes have it): every page of it faults
/// in again. What a tree reads from these buffers it wrote first, so the trees are the same.
#[derive(Default)]
pub(crate) struct GrowBuffers {
    row_copies: Vec<f64>,
    row_weight: Vec<f64>,
    work: Vec<u32>,
    goes_left: Vec<bool>,
    buffer: Vec<u32>,
    stack: Vec<PendingNode>,
    nodes: Vec<Node>,
    values: Vec<f64>,
}

impl GrowBuffers {
    /// Takes back a grown tree's memory for the next tree.
    pub(crate) fn recycle(&mut self, tree: Tree) {
        self.nodes = tree.nodes;
        self.values = tree.values;
    }
}

/// [`grow`] in the working memory of `buffers`.
pub(crate) fn grow_with(
    data: &Presorted,
    copies: Option<&[u32]>,
    config: &GrowConfig,
    mut sampler: Option<FeatureSampler<'_>>,
    buffers: &mut GrowBuffers,
) -> Tree {
    let (n, d) = (data.n, data.d);
    let regression = config.criterion == Criterion::SquaredError;
    let width = if regression { 2 } else { config.n_classes };
    let GrowBuffers { row_copies, row_weight, work, goes_left, buffer, stack, nodes, values } = buffers;
    row_copies.clear();
    match copies {
        None => row_copies.resize(n, 1.0),
        Some(c) => row_copies.extend(c.iter().map(|&c| f64::from(c))),
    }
    row_weight.clear();
    match &data.sample_weight {
        None => row_weight.extend_from_slice(row_copies),
        Some(w) => row_weight.extend(row_copies.iter().zip(w).map(|(c, w)| c * w)),
    }
    let (row_copies, row_weight): (&[f64], &[f64]) = (row_copies, row_weight);
    let weight_of = |i: usize| row_weight[i];
    let copies_of = |i: usize| row_copies[i];
    // Working copy of the sorted lists, restricted to rows of positive weight.
    work.clear();
    match (copies, &data.sample_weight) {
        (None, None) => work.extend_from_slice(&data.order),
        _ => work.extend(data.order.iter().copied().filter(|&i| row_weight[i as usize] > 0.0)),
    }
    let n_in = work.len() / d.max(1);
    nodes.clear();
    values.clear();
    let mut tree =
        Tree { nodes: std::mem::take(nodes), values: std::mem::take(values), width: if regression { 1 } else { config.n_classes } };
    goes_left.clear();
    goes_left.resize(n, false);
    buffer.clear();
    buffer.reserve(n_in);
    let mut left = Stats::new(width);
    let mut node_stats = Stats::new(width);
    let mut features: Vec<usize> = (0..d).collect();
    let min_leaf = config.min_samples_leaf as f64;
    stack.clear();
    stack.push((0, n_in, 0, None));
    while let Some((start, end, depth, parent)) = stack.pop() {
        let id = tree.push_child_link(parent);
        node_stats.clear();
        for &i in &work[start..end] {
            node_stats.add(regression, data.y[i as usize], weight_of(i as usize), copies_of(i as usize));
        }
        // Σ_k c_k² afresh: the same integer as the running sum for integer weights, and exactly
        // `weight²` for a pure node whatever the weights (so its Gini index is exactly 0).
        if !regression {
            node_stats.square = node_stats.sums.iter().map(|c| c * c).sum();
        }
        let impurity = node_stats.impurity(config.criterion);
        if regression {
            tree.values.push(node_stats.sums[0] / node_stats.weight);
        } else {
            tree.values.extend(node_stats.sums.iter().map(|c| c / node_stats.weight));
        }
        tree.nodes.push(Node { split: None, weight: node_stats.weight, impurity });
        let is_leaf =
            config.max_depth.is_some_and(|m| depth >= m) || node_stats.count < (2.0 * min_leaf).max(2.0) || impurity <= f64::EPSILON;
        if is_leaf {
            continue;
        }
        // Candidate features: all, or mtry drawn without replacement (more are drawn while only
        // constant ones were seen, as scikit-learn does), then scanned in ascending order.
        let candidates: &[usize] = match sampler.as_mut() {
            None => &features,
            Some(s) => {
                let mut drawn = 0;
                let mut non_constant = 0;
                while drawn < d && (drawn < s.mtry || non_constant == 0) {
                    let j = s.rng.random_range(drawn..d);
                    features.swap(drawn, j);
                    let f = features[drawn];
                    let seg = &work[f * n_in + start..f * n_in + end];
                    let col = &data.x[f * n..(f + 1) * n];
                    if col[seg[0] as usize] < col[seg[seg.len() - 1] as usize] {
                        non_constant += 1;
                    }
                    drawn += 1;
                }
                features[..drawn].sort_unstable();
                &features[..drawn]
            }
        };
        let mut best: Option<BestSplit> = None;
        for &f in candidates {
            let seg = &work[f * n_in + start..f * n_in + end];
            let col = &data.x[f * n..(f + 1) * n];
            if col[seg[0] as usize] >= col[seg[seg.len() - 1] as usize] {
                continue;
            }
            left.clear();
            left.right_square = node_stats.square;
            for (p, &i) in seg[..seg.len() - 1].iter().enumerate() {
                left.move_left(&node_stats, regression, data.y[i as usize], weight_of(i as usize), copies_of(i as usize));
                if left.count < min_leaf {
                    continue;
                }
                if node_stats.count - left.count < min_leaf {
                    break;
                }
                let (a, b) = (col[i as usize], col[seg[p + 1] as usize]);
                if a >= b {
                    continue;
                }
                let score = left.split_score(&node_stats, config.criterion);
                if best.as_ref().is_none_or(|s| score > s.score) {
                    let mut threshold = a / 2.0 + b / 2.0;
                    if threshold >= b || !threshold.is_finite() {
                        threshold = a;
                    }
                    best = Some(BestSplit { score, feature: f, n_left: p + 1, threshold });
                }
            }
        }
        let Some(best) = best else { continue };
        // Stable partition of every feature's range by the side of each row.
        let f = best.feature;
        for (p, &i) in work[f * n_in + start..f * n_in + end].iter().enumerate() {
            goes_left[i as usize] = p < best.n_left;
        }
        for g in 0..d {
            let seg = &mut work[g * n_in + start..g * n_in + end];
            buffer.clear();
            let mut w = 0;
            for k in 0..seg.len() {
                let i = seg[k];
                if goes_left[i as usize] {
                    seg[w] = i;
                    w += 1;
                } else {
                    buffer.push(i);
                }
            }
            seg[w..].copy_from_slice(buffer);
        }
        tree.nodes[id].split = Some(NodeSplit { feature: f as u32, threshold: best.threshold, left: 0, right: 0 });
        let mid = start + best.n_left;
        stack.push((mid, end, depth + 1, Some((id, false))));
        stack.push((start, mid, depth + 1, Some((id, true))));
    }
    tree
}
