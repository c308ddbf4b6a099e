//! Breiman's minimal cost-complexity pruning (weakest-link cutting), as scikit-learn's
//! `_cost_complexity_prune`.
//!
//! With `R(t) = (n_t / n) i(t)` and `R(T_t) = Σ_{leaves l of T_t} R(l)`, the weakest link is the
//! internal node minimising `g(t) = (R(t) − R(T_t)) / (|leaves(T_t)| − 1)`; cutting it gives the
//! next tree of the sequence at `α = g(t)`. Repeating until the root is a leaf gives
//! `0 = α_0 ≤ α_1 ≤ … ≤ α_K` and the nested trees `T_0 ⊃ T_1 ⊃ … ⊃ {root}`; the tree of
//! `T(α)` is the last `T_k` with `α_k ≤ α`.

use super::tree::Tree;

/// The pruning sequence of one tree and the α at which each node becomes a leaf.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pruning {
    /// `α_k`, one per pruning step after `α_0 = 0` (so `alphas[0] = 0`), non-decreasing: a
    /// step's α is the running maximum of the weakest-link values (equal in exact arithmetic;
    /// rounding can make a later `g(t)` a few ulps smaller).
    pub alphas: Vec<f64>,
    /// `R(T_k)`, the total leaf impurity after step k (`impurities[0]` = full tree).
    pub impurities: Vec<f64>,
    /// Per node, the α from which it is a leaf: `−∞` for leaves of the full tree; for a node
    /// cut at step k or inside a branch cut at step k, `α_k`. Non-increasing from the root down.
    pub node_alpha: Vec<f64>,
}

impl Pruning {
    /// The weakest-link sequence of `tree`.
    pub fn of(tree: &Tree) -> Pruning {
        let n_nodes = tree.nodes.len();
        let total = tree.nodes[0].weight.max(f64::MIN_POSITIVE);
        let mut parent = vec![usize::MAX; n_nodes];
        for (t, node) in tree.nodes.iter().enumerate() {
            if let Some(s) = &node.split {
                parent[s.left as usize] = t;
                parent[s.right as usize] = t;
            }
        }
        let r_node: Vec<f64> = tree.nodes.iter().map(|n| n.weight * n.impurity / total).collect();
        let mut r_branch = vec![0.0; n_nodes];
        let mut n_leaves = vec![0usize; n_nodes];
        for (t, node) in tree.nodes.iter().enumerate() {
            if node.split.is_none() {
                r_branch[t] = r_node[t];
                n_leaves[t] = 1;
                let mut a = parent[t];
                while a != usize::MAX {
                    r_branch[a] += r_node[t];
                    n_leaves[a] += 1;
                    a = parent[a];
                }
            }
        }
        let mut candidate: Vec<bool> = tree.nodes.iter().map(|n| n.split.is_some()).collect();
        let mut node_alpha = vec![f64::NEG_INFINITY; n_nodes];
        let mut alphas = vec![0.0];
        let mut impurities = vec![r_branch[0]];
        let mut current = 0.0f64;
        let mut stack = Vec::new();
        while candidate[0] {
            let mut weakest = 0;
            let mut effective = f64::INFINITY;
            for t in 0..n_nodes {
                if candidate[t] {
                    let g = (r_node[t] - r_branch[t]) / (n_leaves[t] - 1) as f64;
                    if g < effective {
                        effective = g;
                        weakest = t;
                    }
                }
            }
            current = current.max(effective);
            // Every still-internal node of the cut branch becomes a leaf at this α.
            stack.push(weakest);
            while let Some(t) = stack.pop() {
                if candidate[t] {
                    candidate[t] = false;
                    node_alpha[t] = current;
                    if let Some(s) = &tree.nodes[t].split {
                        stack.push(s.left as usize);
                        stack.push(s.right as usize);
                    }
                }
            }
            let removed = n_leaves[weakest] - 1;
            let r_diff = r_node[weakest] - r_branch[weakest];
            n_leaves[weakest] = 1;
            r_branch[weakest] = r_node[weakest];
            let mut a = parent[weakest];
            while a != usize::MAX {
                n_leaves[a] -= removed;
                r_branch[a] += r_diff;
                a = parent[a];
            }
            alphas.push(current);
            impurities.push(r_branch[0]);
        }
        Pruning { alphas, impurities, node_alpha }
    }

    /// The distinct α's of the sequence, ascending (the default grid).
    pub fn distinct_alphas(&self) -> Vec<f64> {
        let mut a = self.alphas.clone();
        a.dedup();
        a
    }
}
