//! Exact k-nearest-neighbour search: brute force, a k-d tree or matrix products, chosen automatically.
//!
//! All return the same list: the `k` training points smallest in `(squared Euclidean distance,
//! training position)` order. Distances are summed over coordinates in the same order in both
//! searches, so ties are resolved identically (by the lower training position) and the tree
//! answers exactly what brute force answers — a test checks this on tied, duplicated data.
//! Both store the points by column (the tree in leaf order), so one coordinate's squared
//! differences to all points of a leaf, or of the whole set, are one vectorised sweep; each
//! point's sum is still accumulated in coordinate order. Measured at d = 10 (Majhoo, k ≤ 199):
//! the column layout made brute force 1.5× faster than row by row (n = 30 000: 6.3 s → 4.3 s)
//! and the tree's leaf scans 4 % faster; at d = 10 the two then tie near n = 30 000 and the tree
//! wins above, brute force below (n = 6 000: 0.42 s vs 0.65 s on one thread).
//!
//! A third search, for moderate and large d, computes the distances of a block of queries to
//! every point through matrix products and re-ranks the near-ties exactly ([`super::gemm`]): it
//! too returns the same list. [`Strategy::choose`] picks one of the three from n and d (measured,
//! see the family's README). Brute force selects and sorts the k nearest by buckets of distance
//! (see [`sort_by_distance`]), in about linear time.

use super::gemm::{GemmPoints, GemmScratch, QUERY_BLOCK};

/// A neighbour: squared distance (as ordered bits of a non-negative f64) and training position.
pub(crate) type Neighbor = (u64, u32);

const LEAF_SIZE: usize = 24;
/// Below this many points, brute force by column.
const TREE_MIN_POINTS: usize = 1024;
/// Below this many points, brute force by column wins for 2 < d < [`GEMM_MIN_DIM_SMALL`].
const SMALL_POINTS: usize = 4096;
const GEMM_MIN_DIM_SMALL: usize = 16;
/// From this dimension on, an all-rows table is computed by the products rather than the tree.
const TABLE_GEMM_MIN_DIM: usize = 6;

/// Squared Euclidean distance, summed in coordinate order: the reference every search's sums
/// equal bit for bit (see the module docs; a test checks [`distances_by_column`] against it).
pub(crate) fn dist2(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        let t = x - y;
        s += t * t;
    }
    s
}

/// [`dist2`] of `query` to each of `rows` (each of `query`'s length), appended to `out`, bit for
/// bit: four rows at a time, each in its own chain of the same operations in the same order, so
/// that the four chains' latencies and their rows' cache misses overlap (at d = 50 one `dist2`
/// is 50 dependent additions after a cache miss).
pub(crate) fn dist2_each<'x>(query: &[f64], mut rows: impl Iterator<Item = &'x [f64]>, out: &mut Vec<f64>) {
    let d = query.len();
    loop {
        let group: [Option<&[f64]>; 4] = std::array::from_fn(|_| rows.next());
        let [Some(a), Some(b), Some(c), Some(e)] = group else {
            out.extend(group.iter().flatten().map(|row| dist2(query, row)));
            return;
        };
        let points = [&a[..d], &b[..d], &c[..d], &e[..d]];
        let mut sums = [0.0f64; 4];
        for (j, &q) in query.iter().enumerate() {
            for (sum, point) in sums.iter_mut().zip(&points) {
                let t = q - point[j];
                *sum += t * t;
            }
        }
        out.extend(sums);
    }
}

/// Training points, organised for one of the three searches.
pub(crate) struct NeighborIndex {
    d: usize,
    n: usize,
    search: Search,
}

/// The search strategy and its copy of the points.
enum Search {
    /// Brute force over the points by column (`x[c * n + j]`).
    Columns(Vec<f64>),
    Tree(KdTree),
    /// Brute force by blocks of queries, through matrix products (see [`super::gemm`]).
    Gemm(GemmPoints),
}

/// Which search answers queries over `n` points in `d` dimensions (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Strategy {
    Columns,
    Tree,
    Gemm,
}

impl Strategy {
    /// The measured rule (numbers in the family's README). From [`SMALL_POINTS`] points on,
    /// the tree below a crossover dimension that grows with n (the tree's cost grows about as
    /// log n, the products' as n): d = 7 at n = 8 000, 10 at n = 32 000, extrapolated as
    /// `7 + 1.5 log₂(n / 8 000)`; the product search above it. Fewer points: brute force by
    /// column, except the tree for d ≤ 2 and the products for d ≥ 16.
    pub(crate) fn choose(n: usize, d: usize) -> Self {
        if d == 0 || n < TREE_MIN_POINTS {
            return Strategy::Columns;
        }
        if n < SMALL_POINTS {
            return match d {
                ..=2 => Strategy::Tree,
                GEMM_MIN_DIM_SMALL.. => Strategy::Gemm,
                _ => Strategy::Columns,
            };
        }
        let crossover = 7.0 + 1.5 * (n as f64 / 8000.0).log2().max(0.0);
        if (d as f64) < crossover { Strategy::Tree } else { Strategy::Gemm }
    }

    /// The search for a table of every row's list among `n` candidates (the rows themselves, in
    /// a spatial order): the products from [`TABLE_GEMM_MIN_DIM`] dimensions on, where the
    /// spatial order and the exact filter beat the tree at large n (measured, see the family's
    /// README), and otherwise as [`choose`](Self::choose).
    pub(crate) fn for_table(n: usize, d: usize) -> Self {
        match Self::choose(n, d) {
            Strategy::Tree if d >= TABLE_GEMM_MIN_DIM => Strategy::Gemm,
            other => other,
        }
    }
}

/// The `n` rows of `x` (row-major, `d` columns) in the leaf order of a k-d tree: rows close in
/// this order are close in space.
pub(crate) fn spatial_order(x: &[f64], d: usize, n: usize) -> Vec<u32> {
    let mut perm: Vec<u32> = (0..n as u32).collect();
    if d > 0 {
        KdTree::build_node(x, d, &mut perm, 0, n, &mut Vec::new());
    }
    perm
}

struct KdTree {
    /// Training positions, permuted so that each node owns a contiguous range.
    perm: Vec<u32>,
    /// Points in `perm` order, by column (`columns[c * n + pos]`): a leaf's coordinate c is one
    /// contiguous run, so its distances are computed for all its points at once (vectorised,
    /// each point's sum still in coordinate order, as [`dist2`]).
    columns: Vec<f64>,
    nodes: Vec<Node>,
}

enum Node {
    Leaf { start: u32, end: u32 },
    Split { dim: u32, value: f64, left: u32, right: u32 },
}

impl NeighborIndex {
    /// Indexes `n = x.len() / d` points with the search [`Strategy::choose`] picks.
    pub(crate) fn new(x: Vec<f64>, d: usize) -> Self {
        let n = x.len().checked_div(d).unwrap_or(0);
        Self::with_strategy(x, d, Strategy::choose(n, d))
    }

    pub(crate) fn with_strategy(x: Vec<f64>, d: usize, strategy: Strategy) -> Self {
        let n = x.len().checked_div(d).unwrap_or(0);
        let search = match strategy {
            Strategy::Tree if d > 0 => Search::Tree(KdTree::build(&x, d, n)),
            Strategy::Gemm if d > 0 => Search::Gemm(GemmPoints::new(x, d)),
            // Brute force sweeps coordinates over all points: keep the points by column.
            _ => Search::Columns(by_column(&x, d, n)),
        };
        Self { d, n, search }
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
        match &self.search {
            Search::Tree(tree) => {
                scratch.heap.clear();
                tree.query(q, k, self.d, &mut scratch.heap);
                out.extend(scratch.heap.iter().map(|n| n.1));
            }
            Search::Columns(x) => {
                distances_by_column(q, x, self.n, 0..self.n, &mut scratch.dist);
                sort_by_distance(&scratch.dist, k, &mut scratch.sort, out);
            }
            Search::Gemm(points) => {
                points.nearest_block(&|_| q, 0..1, k, None, &mut scratch.gemm);
                scratch.gemm.block = None;
                out.extend_from_slice(&scratch.gemm.lists);
            }
        }
    }

    /// As [`query`](Self::query) for query `i` of `n_queries` (`rows(i)` its features), when
    /// every query will be asked for in turn: the product search answers [`QUERY_BLOCK`]
    /// consecutive queries at once and keeps the others' answers in `scratch` (keyed by the
    /// block, `k` and the address of the block's first row, so another query set is not
    /// mistaken for this one).
    pub(crate) fn query_row<'q>(
        &self,
        rows: &dyn Fn(usize) -> &'q [f64],
        n_queries: usize,
        i: usize,
        k: usize,
        scratch: &mut Scratch,
        out: &mut Vec<u32>,
    ) {
        let Search::Gemm(points) = &self.search else { return self.query(rows(i), k, scratch, out) };
        let start = i / QUERY_BLOCK * QUERY_BLOCK;
        let key = (start, rows(start).as_ptr() as usize);
        let gemm = &mut scratch.gemm;
        if gemm.block != Some(key) || gemm.width != k.min(self.n) {
            points.nearest_block(rows, start..(start + QUERY_BLOCK).min(n_queries), k, None, gemm);
            gemm.block = Some(key);
        }
        let (b, w) = (i % QUERY_BLOCK, gemm.width);
        out.clear();
        out.extend_from_slice(&gemm.lists[b * w..(b + 1) * w]);
    }
}

/// Reusable buffers of one searching thread.
#[derive(Default)]
pub(crate) struct Scratch {
    pub(crate) dist: Vec<f64>,
    pub(crate) sort: SortScratch,
    heap: Vec<Neighbor>,
    pub(crate) gemm: GemmScratch,
    /// The table lists of one block of a split's validation rows computed for that split alone
    /// (rows beyond the shared table's budget, `family/knn/mod.rs`).
    pub(crate) streamed: Streamed,
}

/// One block of streamed table lists: `lists[b * width..(b + 1) * width]` for the block's row b,
/// keyed by the block's index and the address of the split's row order (so another split's
/// block is not mistaken for this one).
#[derive(Default)]
pub(crate) struct Streamed {
    pub(crate) key: Option<(usize, usize)>,
    pub(crate) width: usize,
    pub(crate) lists: Vec<u32>,
}

/// The `n` rows of `x` (row-major, `d` columns) stored by column: `out[c * n + j] = x[j * d + c]`.
pub(crate) fn by_column(x: &[f64], d: usize, n: usize) -> Vec<f64> {
    (0..d).flat_map(|c| (0..n).map(move |j| x[j * d + c])).collect()
}

/// Squared distances from `q` to the points `range` of `n` points stored by column (`columns[c * n + j]`
/// is coordinate c of point j): each coordinate adds its square to every point in one
/// vectorisable sweep, in the same order as [`dist2`], so the sums are identical.
pub(crate) fn distances_by_column(q: &[f64], columns: &[f64], n: usize, range: std::ops::Range<usize>, out: &mut Vec<f64>) {
    out.clear();
    let mut sweeps = q.iter().zip(columns.chunks_exact(n.max(1)).map(|column| &column[range.clone()]));
    let Some((&q0, first)) = sweeps.next() else {
        out.resize(range.len(), 0.0);
        return;
    };
    // `0.0 + t²` is `t²` exactly, so starting from the first coordinate's squares sums as `dist2`.
    out.extend(first.iter().map(|&v| {
        let t = q0 - v;
        t * t
    }));
    for (&qc, column) in sweeps {
        for (o, &v) in out.iter_mut().zip(column) {
            let t = qc - v;
            *o += t * t;
        }
    }
}

/// Positions of the `k` smallest of `dist` (non-negative), in `(distance, position)` order.
///
/// A bucket selection: one pass maps each distance to one of ~`n` buckets over `[min, max]`
/// (a monotone map, so bucket order is distance order), a prefix sum finds the bucket holding
/// the k-th smallest, only the entries of the buckets up to it are scattered, and each bucket —
/// one or two entries for spread distances — is sorted by the exact `(distance bits, position)`.
/// Cost O(n + k) for spread distances instead of a full comparison sort; many ties or a
/// concentrated distribution fall back to sorting the crowded buckets, which stays exact.
pub(crate) fn sort_by_distance(dist: &[f64], k: usize, scratch: &mut SortScratch, out: &mut Vec<u32>) {
    out.clear();
    let n = dist.len();
    let k = k.min(n);
    if k == 0 {
        return;
    }
    // The buckets span [lo, hi]: lo the smallest of a sample of 32 distances and hi a little past
    // the k-th smallest as estimated from that sample (the largest distance when k = n). Smaller
    // distances share the first bucket and larger ones the last, which is sorted whole only if
    // the estimate fell short.
    let SortScratch { start, keys, bucket_of, sample } = scratch;
    sample.clear();
    sample.extend(dist.iter().step_by((n / 32).max(1)));
    let lo = sample.iter().copied().fold(f64::INFINITY, f64::min);
    let max = || dist.iter().fold(0.0f64, |hi, &d| hi.max(d));
    let rank = (k * sample.len() * 5).div_ceil(4 * n) + 1;
    let hi = if k == n || rank >= sample.len() { max() } else { *sample.select_nth_unstable_by(rank, f64::total_cmp).1 };
    let buckets = k.next_power_of_two().clamp(16, 1 << 16);
    // d ↦ round((d − lo) · scale), clamped to [0, last], is non-decreasing in d, which is all the
    // buckets need. NaN (∞ − ∞ or 0 · ∞) maps to 0 and large values to the last bucket, so
    // infinite distances keep the map monotone. Rounding by adding 2⁵² (then reading the low
    // bits) is much cheaper than Rust's saturating float-to-integer cast.
    let scale = (buckets as f64) / (hi - lo);
    let last = (buckets - 1) as f64;
    let bucket = move |d: f64| ((((d - lo) * scale).max(0.0).min(last) + 4_503_599_627_370_496.0).to_bits() & 0xffff_ffff) as u32;
    start.clear();
    start.resize(buckets + 1, 0);
    bucket_of.clear();
    bucket_of.resize(n, 0);
    // Local slices, so that the loop keeps everything in registers.
    let counts = &mut start[1..];
    for (slot, &d) in bucket_of.iter_mut().zip(dist) {
        let b = bucket(d);
        *slot = b;
        counts[b as usize] += 1;
    }
    // Prefix sums up to the bucket that completes the k smallest.
    let mut cut = 0;
    while start[cut + 1] < k as u32 {
        start[cut + 2] += start[cut + 1];
        cut += 1;
    }
    let taken = start[cut + 1] as usize;
    keys.clear();
    keys.resize(taken, 0);
    let (slots, placed) = (&mut start[..=cut], &mut keys[..]);
    for (i, &b) in bucket_of.iter().enumerate() {
        // Buckets past the cut are not needed.
        if let Some(slot) = slots.get_mut(b as usize) {
            placed[*slot as usize] = i as u32;
            *slot += 1;
        }
    }
    // `start[b]` now holds the end of bucket b (= the start of bucket b + 1). Buckets are
    // sorted by the exact (distance, position): most hold one or two entries, so an inline
    // insertion sort does them; a crowded bucket (ties, a concentrated distribution) gets a
    // comparison sort.
    let key = |i: u32| (dist[i as usize].to_bits(), i);
    let mut begin = 0;
    for &end in &start[..=cut] {
        let end = end as usize;
        let bucket = &mut keys[begin..end];
        if bucket.len() > 16 {
            bucket.sort_unstable_by_key(|&i| key(i));
        } else {
            for j in 1..bucket.len() {
                let item = bucket[j];
                let item_key = key(item);
                let mut at = j;
                while at > 0 && item_key < key(bucket[at - 1]) {
                    bucket[at] = bucket[at - 1];
                    at -= 1;
                }
                bucket[at] = item;
            }
        }
        if end >= k {
            break;
        }
        begin = end;
    }
    out.extend_from_slice(&keys[..k]);
}

/// Reusable buffers of [`sort_by_distance`].
#[derive(Default)]
pub(crate) struct SortScratch {
    start: Vec<u32>,
    keys: Vec<u32>,
    bucket_of: Vec<u32>,
    sample: Vec<f64>,
}

impl KdTree {
    fn build(x: &[f64], d: usize, n: usize) -> Self {
        let mut perm: Vec<u32> = (0..n as u32).collect();
        let mut nodes = Vec::with_capacity(2 * n / LEAF_SIZE + 1);
        Self::build_node(x, d, &mut perm, 0, n, &mut nodes);
        let mut points = Vec::with_capacity(n * d);
        perm.iter().for_each(|&i| points.extend_from_slice(&x[i as usize * d..(i as usize + 1) * d]));
        Self { columns: by_column(&points, d, n), perm, nodes }
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
        let mut leaf = Vec::with_capacity(LEAF_SIZE);
        self.search(0, q, k, 0.0, &mut offsets, &mut leaf, &mut heap);
        *out = heap.into_sorted_vec();
    }

    #[allow(clippy::too_many_arguments)]
    fn search(
        &self,
        node: u32,
        q: &[f64],
        k: usize,
        rd: f64,
        offsets: &mut [f64],
        leaf: &mut Vec<f64>,
        heap: &mut std::collections::BinaryHeap<Neighbor>,
    ) {
        match self.nodes[node as usize] {
            Node::Leaf { start, end } => {
                let (start, end) = (start as usize, end as usize);
                distances_by_column(q, &self.columns, self.perm.len(), start..end, leaf);
                for (&dist, &id) in leaf.iter().zip(&self.perm[start..end]) {
                    let item = (dist.to_bits(), id);
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
                self.search(near, q, k, rd, offsets, leaf, heap);
                let old = offsets[dim];
                let far_rd = rd - old * old + diff * diff;
                // `<=` with a relative slack: points at exactly the worst distance but with a
                // lower position must still be found, and the bound is computed with rounding.
                let worst = heap.peek().map_or(f64::INFINITY, |t| f64::from_bits(t.0));
                if heap.len() < k || far_rd <= worst * (1.0 + 1e-12) {
                    offsets[dim] = diff;
                    self.search(far, q, k, far_rd, offsets, leaf, heap);
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
    fn tree_and_products_equal_brute_force_with_ties() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for d in [1usize, 2, 3, 7] {
            // Coarse grid values: many exact distance ties and duplicate points.
            let n = 3000;
            let x: Vec<f64> = (0..n * d).map(|_| rng.random_range(0..6) as f64 * 0.5).collect();
            let brute = NeighborIndex::with_strategy(x.clone(), d, Strategy::Columns);
            let tree = NeighborIndex::with_strategy(x.clone(), d, Strategy::Tree);
            let gemm = NeighborIndex::with_strategy(x, d, Strategy::Gemm);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let mut scratch = Scratch::default();
            let queries: Vec<f64> = (0..50 * d).map(|_| rng.random_range(0..12) as f64 * 0.25).collect();
            let rows = |i: usize| &queries[i * d..(i + 1) * d];
            for k in [1, 7, 64, 200] {
                for i in 0..50 {
                    brute.query(rows(i), k, &mut scratch, &mut a);
                    tree.query(rows(i), k, &mut scratch, &mut b);
                    assert_eq!(a, b, "d={d} k={k}");
                    gemm.query_row(&rows, 50, i, k, &mut scratch, &mut b);
                    assert_eq!(a, b, "d={d} k={k}");
                }
            }
        }
    }

    /// Relative cost of the three searches, one thread, uniform points (intrinsic dimension d),
    /// 1 024 queries of k = 199 — the data behind [`Strategy::choose`]. Not a check; run with
    /// `cargo test --release -p agghoo --lib strategy_timings -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn strategy_timings() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let (n_queries, k) = (1024, 199);
        for n in [2_000usize, 8_000, 32_000] {
            for d in [2usize, 3, 4, 6, 8, 10, 16, 32, 50] {
                let x: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>()).collect();
                let queries: Vec<f64> = (0..n_queries * d).map(|_| rng.random::<f64>()).collect();
                let rows = |i: usize| &queries[i * d..(i + 1) * d];
                let mut seconds = Vec::new();
                let mut answers = Vec::new();
                for strategy in [Strategy::Columns, Strategy::Tree, Strategy::Gemm] {
                    let start = std::time::Instant::now();
                    let index = NeighborIndex::with_strategy(x.clone(), d, strategy);
                    let (mut scratch, mut out, mut all) = (Scratch::default(), Vec::new(), Vec::new());
                    for i in 0..n_queries {
                        index.query_row(&rows, n_queries, i, k, &mut scratch, &mut out);
                        all.extend_from_slice(&out);
                    }
                    seconds.push(start.elapsed().as_secs_f64());
                    answers.push(all);
                }
                assert!(answers.iter().all(|a| *a == answers[0]));
                let best = seconds.iter().copied().fold(f64::INFINITY, f64::min);
                let relative: Vec<String> = seconds.iter().map(|s| format!("{:.2}", s / best)).collect();
                println!("n={n} d={d} columns/tree/gemm relative to the fastest: {}", relative.join(" / "));
            }
        }
    }

    /// Four chains at a time give `dist2`'s values bit for bit (a fused multiply-add or another
    /// order of the sums would not), whatever the number of rows (full groups and a tail).
    #[test]
    fn distances_four_at_a_time_equal_the_reference_distance() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for d in [1usize, 3, 10, 50] {
            for rows in 0..10 {
                let x: Vec<f64> = (0..rows * d).map(|_| rng.random::<f64>() * 2e3 - 1e3).collect();
                let q: Vec<f64> = (0..d).map(|_| rng.random::<f64>() * 2e3 - 1e3).collect();
                let mut out = vec![f64::NAN];
                dist2_each(&q, x.chunks_exact(d), &mut out);
                let want: Vec<u64> = std::iter::once(f64::NAN.to_bits()).chain(x.chunks_exact(d).map(|r| dist2(&q, r).to_bits())).collect();
                assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want, "d = {d}, {rows} rows");
            }
        }
    }

    #[test]
    fn column_sweep_sums_as_the_reference_distance() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for d in [1usize, 2, 3, 10, 17] {
            let n = 101;
            let x: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>() * 10.0 - 5.0).collect();
            let columns = by_column(&x, d, n);
            let q: Vec<f64> = (0..d).map(|_| rng.random::<f64>()).collect();
            let mut out = Vec::new();
            distances_by_column(&q, &columns, n, 7..90, &mut out);
            let want: Vec<u64> = (7..90).map(|j| dist2(&q, &x[j * d..(j + 1) * d]).to_bits()).collect();
            assert_eq!(out.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want, "d = {d}");
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
    fn bucket_sort_equals_pair_sort() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let (mut keys, mut out) = (SortScratch::default(), Vec::new());
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
            for k in [1, n / 3, n / 2, n * 2 / 3, n] {
                sort_by_distance(&dist, k, &mut keys, &mut out);
                let want: Vec<u32> = pairs.iter().take(k.min(n)).map(|p| p.1).collect();
                assert_eq!(out, want, "n={n} k={k}");
            }
        }
    }

    #[test]
    fn bucket_sort_with_extreme_distances() {
        let mut keys = SortScratch::default();
        let mut out = Vec::new();
        let cases: [Vec<f64>; 5] = [
            vec![0.0; 40],
            vec![f64::INFINITY; 40],
            (0..40).map(|i| if i % 3 == 0 { f64::INFINITY } else { f64::from(i) }).collect(),
            (0..40).map(|i| if i % 2 == 0 { 5e-324 } else { 1e300 * f64::from(i) }).collect(),
            (0..40).map(|i| f64::from(i % 4) * f64::MAX / 4.0).collect(),
        ];
        for dist in cases {
            let mut want: Vec<u32> = (0..dist.len() as u32).collect();
            want.sort_by(|&a, &b| dist[a as usize].total_cmp(&dist[b as usize]).then(a.cmp(&b)));
            for k in [1, 7, 20, 39, 40] {
                sort_by_distance(&dist, k, &mut keys, &mut out);
                assert_eq!(out, want[..k], "k={k} dist={dist:?}");
            }
        }
    }
}
