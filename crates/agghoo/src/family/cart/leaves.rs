//! A grown tree reduced to what prediction needs: the splits, and values at the leaves only,
//! stored sparsely (the nonzero class fractions of each leaf). A random forest keeps its trees
//! in this form: a fully grown classification tree has mostly pure leaves, so its storage no
//! longer grows with the number of classes, and internal nodes carry no values at all.

use serde::{Deserialize, Serialize};

use super::tree::Tree;

/// The `feature` of a leaf.
const LEAF: u32 = u32::MAX;

/// A tree in preorder as parallel arrays (compact in memory and in a JSON model file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct LeafTree {
    /// Per node: the split feature, or `u32::MAX` for a leaf.
    feature: Vec<u32>,
    /// Per node: rows with `x[feature] ≤ threshold` go left (0 for a leaf).
    threshold: Vec<f64>,
    /// Per node: the left child, or for a leaf its index among the leaves.
    left: Vec<u32>,
    /// Per node: the right child (0 for a leaf).
    right: Vec<u32>,
    /// Leaf `l`'s values are entries `offsets[l]..offsets[l + 1]` of `output` and `value`.
    offsets: Vec<u32>,
    /// The output index of each entry (the class; 0 for a regression mean).
    output: Vec<u32>,
    /// The value of each entry (a nonzero class fraction, or a nonzero mean).
    value: Vec<f64>,
}

impl LeafTree {
    /// Keeps `tree`'s splits and its leaves' nonzero values (a zero adds nothing to a sum, so
    /// predictions are bit-identical). Returns `None` when `tree` is inconsistent (a value out
    /// of range), which only a corrupted model file can hold.
    pub fn from_tree(tree: &Tree) -> Option<Self> {
        let n = tree.nodes.len();
        let mut out = LeafTree {
            feature: Vec::with_capacity(n),
            threshold: Vec::with_capacity(n),
            left: Vec::with_capacity(n),
            right: Vec::with_capacity(n),
            offsets: vec![0],
            output: Vec::new(),
            value: Vec::new(),
        };
        for t in 0..n {
            match &tree.nodes[t].split {
                Some(s) => {
                    out.feature.push(s.feature);
                    out.threshold.push(s.threshold);
                    out.left.push(s.left);
                    out.right.push(s.right);
                }
                None => {
                    out.feature.push(LEAF);
                    out.threshold.push(0.0);
                    out.left.push(u32::try_from(out.offsets.len() - 1).ok()?);
                    out.right.push(0);
                    let values = tree.values.get(t.checked_mul(tree.width)?..(t + 1).checked_mul(tree.width)?)?;
                    for (k, &v) in values.iter().enumerate() {
                        if v != 0.0 {
                            out.output.push(u32::try_from(k).ok()?);
                            out.value.push(v);
                        }
                    }
                    out.offsets.push(u32::try_from(out.value.len()).ok()?);
                }
            }
        }
        Some(out)
    }

    /// Adds the values of the leaf `x` falls in to `sum` (indexed by output). `None` when the
    /// walk leaves the tree or visits more nodes than it has; [`LeafTree::validate`] rules both
    /// out.
    pub fn add_leaf_values(&self, sum: &mut [f64], x: &[f64]) -> Option<()> {
        let mut t = 0usize;
        for _ in 0..self.feature.len() {
            let feature = *self.feature.get(t)?;
            if feature == LEAF {
                let leaf = *self.left.get(t)? as usize;
                let (start, end) = (*self.offsets.get(leaf)? as usize, *self.offsets.get(leaf + 1)? as usize);
                for e in start..end {
                    *sum.get_mut(*self.output.get(e)? as usize)? += *self.value.get(e)?;
                }
                return Some(());
            }
            t = if *x.get(feature as usize)? <= *self.threshold.get(t)? { *self.left.get(t)? } else { *self.right.get(t)? } as usize;
        }
        None
    }

    /// Checks a deserialized tree: equal array lengths, split features below `n_features`,
    /// thresholds not NaN, leaf entries in order and in range with outputs below `width` and
    /// finite values, and every node reached exactly once from the root.
    pub fn validate(&self, n_features: usize, width: usize) -> std::result::Result<(), String> {
        let n = self.feature.len();
        if n == 0 {
            return Err("a tree without nodes".into());
        }
        if [self.threshold.len(), self.left.len(), self.right.len()].iter().any(|&l| l != n) || self.output.len() != self.value.len() {
            return Err("node or leaf arrays of different lengths".into());
        }
        if self.offsets.first() != Some(&0)
            || self.offsets.windows(2).any(|w| w[0] > w[1])
            || self.offsets.last().map(|&o| o as usize) != Some(self.value.len())
        {
            return Err("leaf offsets out of order or range".into());
        }
        if let Some(e) = (0..self.value.len()).find(|&e| self.output[e] as usize >= width || !self.value[e].is_finite()) {
            return Err(format!("leaf entry {e}: output {} of {width} with value {}", self.output[e], self.value[e]));
        }
        let n_leaves = self.offsets.len() - 1;
        super::tree::check_preorder_tree(n, |t| {
            if self.feature[t] == LEAF {
                return if (self.left[t] as usize) < n_leaves { Ok(None) } else { Err(format!("leaf {t} has no values")) };
            }
            if self.feature[t] as usize >= n_features {
                return Err(format!("node {t} splits on feature {}, the model has {n_features}", self.feature[t]));
            }
            if self.threshold[t].is_nan() {
                return Err(format!("node {t} has a NaN threshold"));
            }
            Ok(Some([self.left[t] as usize, self.right[t] as usize]))
        })
    }
}
