//! Exact k-nearest-neighbour search: brute force or a k-d tree, chosen automatically.
//!
//! Both return the same list: the `k` training points smallest in `(squared Euclidean distance,
//! training position)` order. Distances are summed over coordinates in the same order in both
//! searches, so ties are resolved identically (by the lower training position) and the tree
//! answers exactly what brute force answers — a test checks this on tied, duplicated data.
//!
//! Choice (measured on the papers' k-NN problem, see docs/BENCHMARKS.md): the tree for d ≤ 16
//! and at least 1 024 training points, brute force otherwise. Brute force sorts packed `u64`
//! keys (see [`sort_by_distance`]) — several times faster than sorting `(f64, u32)` pairs — and
//! restores the exact order where the packing lost it.

/// A neighbour: squared distance (as ordered bits of a non-negative f64) and training position.
pub(crate) type Neighbor = (u64, u32);

const LEAF_SIZE: usize = 24;
const TREE_MIN_POINTS: usize = 1024;
const TREE_MAX_DIM: usize = 16;

/// Squared Euclidean distance, summed in coordinate order.
#[inline]
fn dist2(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        let t = x - y;
        s += t * t;
    }
    s
}

/// Training points with an optional k-d tree over them.
pub(crate) struct NeighborIndex {
    x: Vec<f64>,
    d: usize,
    n: usize,
    tree: Option<KdTree>,
}

struct KdTree {
    /// Training positions, permuted so that each node owns a contiguous range.
    perm: Vec<u32>,
    /// Points in `perm` order (contiguous scans in leaves).
    points: Vec<f64>,
    nodes: Vec<Node>,
}

enum Node {
    Leaf { start: u32, end: u32 },
    Split { dim: u32, value: f64, left: u32, right: u32 },
}

impl NeighborIndex {
    /// Indexes `n = x.len() / d` points; builds a tree when it pays (see module docs).
    pub(crate) fn new(x: Vec<f64>, d: usize) -> Self {
        let n = x.len().checked_div(d).unwrap_or(0);
        let use_tree = d > 0 && d <= TREE_MAX_DIM && n >= TREE_MIN_POINTS;
        Self::with_strategy(x, d, n, use_tree)
    }

    fn with_strategy(x: Vec<f64>, d: usize, n: usize, use_tree: bool) -> Self {
        let tree = use_tree.then(|| KdTree::build(&x, d, n));
        Self { x, d, n, tree }
    }

    /// Number of indexed points.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    /// Positions of the `k` nearest points to `q`, sorted by (distance, position), into `out`.
    /// `k` is capped at the number of points.
    pub(crate) fn query(&self, q: &[f64], k: usize, scratch: &mut Scratch, out: &mut Vec<u32>) {
        out.clear();
        let k = k.min(self.n);
        if k == 0 {
            return;
        }
        match &self.tree {
            Some(tree) => {
                scratch.heap.clear();
                tree.query(q, k, self.d, &mut scratch.heap);
                out.extend(scratch.heap.iter().map(|n| n.1));
            }
            None => {
                distances(q, &self.x, self.d, self.n, &mut scratch.dist);
                sort_by_distance(&scratch.dist, k, &mut scratch.keys, out);
            }
        }
    }
}

/// Reusable buffers of one searching thread.
#[derive(Default)]
pub(crate) struct Scratch {
    dist: Vec<f64>,
    keys: Vec<u64>,
    heap: Vec<Neighbor>,
}

/// Squared distances from `q` to each of the `n` rows of `x` (row-major, `d` columns), into `out`.
pub(crate) fn distances(q: &[f64], x: &[f64], d: usize, n: usize, out: &mut Vec<f64>) {
    out.clear();
    if d == 0 {
        out.resize(n, 0.0);
        return;
    }
    out.extend(x.chunks_exact(d).map(|p| dist2(q, p)));
}

/// Positions of the `k` smallest of `dist` (non-negative), in `(distance, position)` order.
///
/// Sorting `u64` keys is much faster than sorting `(f64, u32)` pairs, so each key packs the
/// distance's bit pattern (order-preserving for non-negative floats) with its low `b` bits
/// replaced by the position (`b` = bits needed for `dist.len()`). Two distances that agree in all
/// but their low `b` bits then compare by position instead of by value, so every run of keys
/// with an equal distance prefix is re-sorted by the exact `(distance, position)` afterwards —
/// runs are rare and short. The result is exactly the order of sorting the pairs.
pub(crate) fn sort_by_distance(dist: &[f64], k: usize, keys: &mut Vec<u64>, out: &mut Vec<u32>) {
    out.clear();
    let n = dist.len();
    let k = k.min(n);
    if k == 0 {
        return;
    }
    let bits = usize::BITS - (n - 1).max(1).leading_zeros();
    let low = (1u64 << bits) - 1;
    keys.clear();
    keys.extend(dist.iter().enumerate().map(|(i, d)| (d.to_bits() & !low) | i as u64));
    if k < n {
        keys.select_nth_unstable(k - 1);
        // Keep every key sharing the boundary's distance prefix: its exact order is decided below.
        let prefix = keys[k - 1] & !low;
        let mut end = k;
        for i in k..n {
            if keys[i] & !low == prefix {
                keys.swap(end, i);
                end += 1;
            }
        }
        keys.truncate(end);
    }
    keys.sort_unstable();
    let mut start = 0;
    while start < keys.len() {
        let prefix = keys[start] & !low;
        let mut end = start + 1;
        while end < keys.len() && keys[end] & !low == prefix {
            end += 1;
        }
        if end - start > 1 {
            keys[start..end].sort_unstable_by(|a, b| {
                let (ia, ib) = ((a & low) as usize, (b & low) as usize);
                dist[ia].total_cmp(&dist[ib]).then(ia.cmp(&ib))
            });
        }
        start = end;
    }
    out.extend(keys.iter().take(k).map(|key| (key & low) as u32));
}

impl KdTree {
    fn build(x: &[f64], d: usize, n: usize) -> Self {
        let mut perm: Vec<u32> = (0..n as u32).collect();
        let mut nodes = Vec::with_capacity(2 * n / LEAF_SIZE + 1);
        Self::build_node(x, d, &mut perm, 0, n, &mut nodes);
        let mut points = Vec::with_capacity(n * d);
        for &i in &perm {
            points.extend_from_slice(&x[i as usize * d..(i as usize + 1) * d]);
        }
        Self { perm, points, nodes }
    }

    fn build_node(x: &[f64], d: usize, perm: &mut [u32], start: usize, end: usize, nodes: &mut Vec<Node>) -> u32 {
        let id = nodes.len() as u32;
        if end - start <= LEAF_SIZE {
            nodes.push(Node::Leaf { start: start as u32, end: end as u32 });
            return id;
        }
        // Split on the dimension of largest spread, at the median.
        let slice = &mut perm[start..end];
        let mut best_dim = 0;
        let mut best_spread = -1.0;
        for j in 0..d {
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for &i in slice.iter() {
                let v = x[i as usize * d + j];
                lo = lo.min(v);
                hi = hi.max(v);
            }
            if hi - lo > best_spread {
                best_spread = hi - lo;
                best_dim = j;
            }
        }
        if best_spread <= 0.0 {
            nodes.push(Node::Leaf { start: start as u32, end: end as u32 });
            return id;
        }
        let mid = slice.len() / 2;
        slice.select_nth_unstable_by(mid, |&a, &b| x[a as usize * d + best_dim].total_cmp(&x[b as usize * d + best_dim]));
        let value = x[slice[mid] as usize * d + best_dim];
        nodes.push(Node::Leaf { start: 0, end: 0 }); // placeholder, replaced below
        let left = Self::build_node(x, d, perm, start, start + mid, nodes);
        let right = Self::build_node(x, d, perm, start + mid, end, nodes);
        nodes[id as usize] = Node::Split { dim: best_dim as u32, value, left, right };
        id
    }

    fn query(&self, q: &[f64], k: usize, d: usize, out: &mut Vec<Neighbor>) {
        let mut heap = std::collections::BinaryHeap::from(std::mem::take(out));
        heap.clear();
        let mut offsets = vec![0.0; d];
        self.search(0, q, k, d, 0.0, &mut offsets, &mut heap);
        *out = heap.into_sorted_vec();
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        node: u32,
        q: &[f64],
        k: usize,
        d: usize,
        rd: f64,
        offsets: &mut [f64],
        heap: &mut std::collections::BinaryHeap<Neighbor>,
    ) {
        match self.nodes[node as usize] {
            Node::Leaf { start, end } => {
                for pos in start as usize..end as usize {
                    let dist = dist2(q, &self.points[pos * d..(pos + 1) * d]).to_bits();
                    let item = (dist, self.perm[pos]);
                    if heap.len() < k {
                        heap.push(item);
                    } else if heap.peek().is_some_and(|top| item < *top) {
                        heap.pop();
                        heap.push(item);
                    }
                }
            }
            Node::Split { dim, value, left, right } => {
                let dim = dim as usize;
                let diff = q[dim] - value;
                let (near, far) = if diff <= 0.0 { (left, right) } else { (right, left) };
                self.search(near, q, k, d, rd, offsets, heap);
                let old = offsets[dim];
                let far_rd = rd - old * old + diff * diff;
                // `<=` with a relative slack: points at exactly the worst distance but with a
                // lower position must still be found, and the bound is computed with rounding.
                let worst = heap.peek().map_or(f64::INFINITY, |t| f64::from_bits(t.0));
                if heap.len() < k || far_rd <= worst * (1.0 + 1e-12) {
                    offsets[dim] = diff;
                    self.search(far, q, k, d, far_rd, offsets, heap);
                    offsets[dim] = old;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn tree_equals_brute_force_with_ties() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for d in [1usize, 2, 3, 7] {
            // Coarse grid values: many exact distance ties and duplicate points.
            let n = 3000;
            let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(0..6) as f64 * 0.5).collect();
            let brute = NeighborIndex::with_strategy(x.clone(), d, n, false);
            let tree = NeighborIndex::with_strategy(x, d, n, true);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut scratch = Scratch::default();
            for _ in 0..50 {
                let q: Vec<f64> = (0..d).map(|_| rng.random_range(0..12) as f64 * 0.25).collect();
                for k in [1, 7, 64, 200] {
                    brute.query(&q, k, &mut scratch, &mut a);
                    tree.query(&q, k, &mut scratch, &mut b);
                    assert_eq!(a, b, "d={d} k={k}");
                }
            }
        }
    }

    #[test]
    fn brute_force_order_by_hand() {
        // points on a line: 0, 2, 1, 1 → from q = 1: positions 2 and 3 (dist 0), then 0 and 1 (dist 1)
        let idx = NeighborIndex::new(vec![0.0, 2.0, 1.0, 1.0], 1);
        let mut out = Vec::new();
        idx.query(&[1.0], 4, &mut Scratch::default(), &mut out);
        assert_eq!(out, [2, 3, 0, 1]);
    }

    #[test]
    fn packed_sort_equals_pair_sort() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let (mut keys, mut out) = (Vec::new(), Vec::new());
        for n in [1usize, 2, 3, 17, 500, 5000] {
            // Distances differing only in their lowest bits, exact ties and spread values.
            let base = 0.37f64;
            let dist: Vec<f64> = (0..n)
                .map(|_| match rng.random_range(0..3) {
                    0 => f64::from_bits(base.to_bits() + rng.random_range(0..64)),
                    1 => (rng.random_range(0..5) as f64) * 0.25,
                    _ => rng.random::<f64>(),
                })
                .collect();
            let mut pairs: Vec<(f64, u32)> = dist.iter().enumerate().map(|(i, &d)| (d, i as u32)).collect();
            pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for k in [1, n / 3, n / 2, n] {
                sort_by_distance(&dist, k, &mut keys, &mut out);
                let want: Vec<u32> = pairs.iter().take(k.min(n)).map(|p| p.1).collect();
                assert_eq!(out, want, "n={n} k={k}");
            }
        }
    }
}
