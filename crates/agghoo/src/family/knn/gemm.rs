//! Exact k nearest neighbours of a block of queries through one matrix product per block of points.
//!
//! Squared distances are first *approximated* as `‖q‖² + ‖x‖² − 2 q·x` (faer's matrix product
//! gives every `q·x` of a block at once), then the few points whose approximation is within a
//! rigorous rounding bound of the k-th nearest are re-ranked with the exact distance every other
//! search uses ([`dist2`]: coordinates summed in order), by `(distance, position)`. The answer is
//! therefore the same list, ties and order included, as brute force or the k-d tree; the
//! approximation only decides which points can be skipped. The proof of the bound is at
//! [`error_bound`]; a test checks it on adversarial points.
//!
//! Points are centred on their mean before the product (not the exact distances): uncentred data
//! far from the origin (every coordinate near 1 000, say) would make `‖q‖² + ‖x‖²` dwarf the
//! distances, and the bound, proportional to `‖q‖² + ‖x‖²`, would then keep many candidates.

use super::neighbors::dist2;
use crate::family::numerics::linalg::product;

/// Queries per matrix product; also the block of rows `path_values` hands one thread.
pub(crate) const QUERY_BLOCK: usize = 32;
/// Points per matrix product: a 32 × 512 block of products is 128 KiB, within the L2 cache.
const POINT_BLOCK: usize = 512;

/// Points prepared for the product: centred copies, their squared norms, and the originals for
/// the exact distances.
pub(crate) struct GemmPoints {
    /// The points in search order (`ids[p]` is the caller's id of point p; `None`: p itself).
    x: Vec<f64>,
    ids: Option<Vec<u32>>,
    centered: Vec<f64>,
    norms: Vec<f64>,
    mean: Vec<f64>,
    d: usize,
    n: usize,
}

/// One candidate: bounds on its exact squared distance, and its position.
#[derive(Clone, Copy)]
struct Candidate {
    lower: f64,
    upper: f64,
    id: u32,
}

/// Reusable buffers of one searching thread; `lists` holds the last block's answers.
#[derive(Default)]
pub(crate) struct GemmScratch {
    /// First query of the block whose lists are in `lists` and that query's address (`None`
    /// before the first block, or after a single query).
    pub(crate) block: Option<(usize, usize)>,
    /// `lists[b * width..(b + 1) * width]`: the `width` nearest of the block's query b.
    pub(crate) lists: Vec<u32>,
    pub(crate) width: usize,
    queries: Vec<f64>,
    query_norms: Vec<f64>,
    products: Vec<f64>,
    candidates: Vec<Vec<Candidate>>,
    exact: Vec<(u64, u32)>,
    /// Sort keys of the candidates' upper bounds, for [`compact`].
    keys: Vec<i64>,
    /// Runs the filter in the baseline instruction set even where a wider one is available
    /// (tests of the fallback path; the answer is the same).
    pub(crate) baseline_only: bool,
}

/// The bound `e(s) = (8d + 32) · u · s + (d + 4) · 2⁻¹⁰²²` on `|a − dist2(q, x)|`, where `a` is the
/// approximation computed here and `s = fl(‖q'‖² + ‖x'‖²)` the sum of the centred squared norms
/// (`u = 2⁻⁵³`, the unit roundoff; `γ_m = m·u / (1 − m·u)`; `d · u ≤ 0.01`, i.e. d < 10¹³).
///
/// Proof. Let `q' = fl(q − μ)`, `x' = fl(x − μ)` be the centred points, `S = ‖q'‖² + ‖x'‖²`,
/// `D = ‖q − x‖²` and `D' = ‖q' − x'‖²` in exact arithmetic (`D' ≤ (‖q'‖ + ‖x'‖)² ≤ 2S`).
/// 1. Centring: `q' − x' = (q − x) + ε` with `|ε_c| ≤ u (|q_c − μ_c| + |x_c − μ_c|)`, so
///    `‖ε‖ ≤ u/(1−u) · (‖q'‖ + ‖x'‖)` and `|D − D'| ≤ 2‖q' − x'‖‖ε‖ + ‖ε‖² ≤ 2.01 u (‖q'‖ + ‖x'‖)²
///    ≤ 4.02 u S`.
/// 2. The approximation: every dot product of length d, in any summation order, with or without
///    fused multiply-adds (faer's blocked kernels), errs by at most `γ_d Σ|p_c|`. So the norms
///    err by `γ_d ‖q'‖²` and `γ_d ‖x'‖²`, their sum `s` by `γ_{d+1} S`, and `q'·x'` by
///    `γ_d ‖q'‖‖x'‖ ≤ γ_d S / 2`; `2 q'·x'` is exact scaling. Hence `s − 2 fl(q'·x')` is within
///    `2 γ_{d+1} S` of `D'`, and the final subtraction adds `u (D' + 2 γ_{d+1} S)`:
///    `|a − D'| ≤ 2uS + 2.01 γ_{d+1} S ≤ (2d + 5) u S`.
/// 3. The reference: `dist2` rounds each difference, each square and each of the d − 1 partial
///    sums of non-negative terms, so `|dist2 − D| ≤ γ_{d+2} D ≤ γ_{d+2} (2S + 4.02uS) ≤ (2d + 4.1) u S`.
///
/// Summing, `|a − dist2| ≤ (4d + 13.2) u S`. The bounds `a ± e` are themselves rounded, which
/// costs at most `u |a| + u e ≤ 2.1 u S + u e`; and `s ≥ (1 − γ_{d+1}) S`. The factor 2 in
/// `e` covers both: `fl(a − e) ≤ dist2 ≤ fl(a + e)`. Underflow (gradual, so every rounding
/// errs by at most 2⁻¹⁰⁷⁵ in absolute terms, at most 4d + 8 roundings, doubled by `2 q'·x'`)
/// is covered by the absolute term. Overflow cannot occur: the family refuses features whose
/// squared distances could overflow, and `S` is then at most a quarter of `f64::MAX`.
fn error_bound(d: usize) -> (f64, f64) {
    let relative = (8 * d + 32) as f64 * (f64::EPSILON / 2.0);
    let absolute = (d + 4) as f64 * f64::MIN_POSITIVE;
    (relative, absolute)
}

impl GemmPoints {
    /// Prepares `n = x.len() / d` points (row-major) for [`nearest_block`](Self::nearest_block).
    pub(crate) fn new(x: Vec<f64>, d: usize) -> Self {
        let n = x.len().checked_div(d).unwrap_or(0);
        // Any centre is exact (the bound accounts for the rounding of `x − μ`): the mean keeps
        // the norms, hence the bound and the candidate count, small.
        let mut mean = vec![0.0; d];
        for row in x.chunks_exact(d.max(1)) {
            mean.iter_mut().zip(row).for_each(|(m, &v)| *m += v);
        }
        mean.iter_mut().for_each(|m| *m /= n.max(1) as f64);
        let centered: Vec<f64> = x.chunks_exact(d.max(1)).flat_map(|row| row.iter().zip(&mean).map(|(v, m)| v - m)).collect();
        let norms = centered.chunks_exact(d.max(1)).map(|row| row.iter().map(|v| v * v).sum()).collect();
        Self { x, ids: None, centered, norms, mean, d, n }
    }

    /// As [`new`](Self::new), with the rows of `x` stored in `order` (a permutation of the row
    /// ids, e.g. a spatial order: points close in `order` are close in space). Answers are the
    /// same row ids in the same order; the order only decides which blocks of points are scanned
    /// first by [`nearest_block`](Self::nearest_block) with a starting point (near blocks first
    /// give a tight threshold early, hence fewer candidates).
    pub(crate) fn in_order(x: &[f64], d: usize, order: Vec<u32>) -> Self {
        let mut permuted = Vec::with_capacity(order.len() * d);
        order.iter().for_each(|&i| permuted.extend_from_slice(&x[i as usize * d..(i as usize + 1) * d]));
        Self { ids: Some(order), ..Self::new(permuted, d) }
    }

    /// The `min(k, n)` nearest points of each query `query(i)`, `i ∈ range` (at most
    /// [`QUERY_BLOCK`] of them), by `(dist2, id)`, into `scratch.lists` (`scratch.width` ids
    /// per query, in `range` order). Blocks of points are scanned from the one holding point
    /// `near` (in search order) outwards, or from the first when `near` is `None`; the answer
    /// does not depend on it.
    pub(crate) fn nearest_block<'q>(
        &self,
        query: &dyn Fn(usize) -> &'q [f64],
        range: std::ops::Range<usize>,
        k: usize,
        near: Option<usize>,
        scratch: &mut GemmScratch,
    ) {
        let (d, n) = (self.d, self.n);
        let k = k.min(n);
        let n_queries = range.len();
        scratch.width = k;
        scratch.lists.clear();
        if k == 0 || n_queries == 0 {
            return;
        }
        let GemmScratch { queries, query_norms, products, candidates, exact, lists, keys, baseline_only, .. } = scratch;
        queries.clear();
        for i in range.clone() {
            queries.extend(query(i).iter().zip(&self.mean).map(|(v, m)| v - m));
        }
        query_norms.clear();
        query_norms.extend(queries.chunks_exact(d.max(1)).map(|row| row.iter().map(|v| v * v).sum::<f64>()));
        if d == 0 {
            query_norms.resize(n_queries, 0.0);
        }
        candidates.resize_with(n_queries.max(candidates.len()), Vec::new);
        let candidates = &mut candidates[..n_queries];
        candidates.iter_mut().for_each(Vec::clear);
        let mut thresholds = vec![f64::INFINITY; n_queries];
        // Enough room to rarely compact, little enough to stay in cache.
        let capacity = (2 * k).max(64);
        let (relative, absolute) = error_bound(d);
        let arch = pulp::Arch::new();
        let lhs = faer::MatRef::from_row_major_slice(queries, n_queries, d);
        // One buffer for every block of points (faer overwrites it: `Accum::Replace`).
        products.resize(n_queries * POINT_BLOCK.min(n), 0.0);
        let n_blocks = n.div_ceil(POINT_BLOCK);
        let first = near.map_or(0, |p| (p / POINT_BLOCK).min(n_blocks - 1));
        // first, first + 1, first − 1, first + 2, …: every block once.
        let outwards =
            (0..n_blocks).flat_map(|t| [first.checked_add(t), first.checked_sub(t + 1)]).flatten().filter(|&b| b < n_blocks).take(n_blocks);
        for start in outwards.map(|b| b * POINT_BLOCK) {
            let end = (start + POINT_BLOCK).min(n);
            let width = end - start;
            let products = &mut products[..n_queries * width];
            let rhs = faer::MatRef::from_row_major_slice(&self.centered[start * d..end * d], width, d);
            product(faer::MatMut::from_row_major_slice_mut(products, n_queries, width), faer::Accum::Replace, lhs, rhs.transpose(), 1.0);
            let norms = &self.norms[start..end];
            let filter = FilterBlock {
                products,
                width,
                norms,
                query_norms,
                candidates: &mut *candidates,
                thresholds: &mut thresholds,
                bound: (relative, absolute),
                start,
                capacity,
                k,
                keys: &mut *keys,
            };
            // The widest instruction set the processor has (the same operations in the same
            // order on every path, hence the same candidates), or the baseline one.
            if *baseline_only { filter.run() } else { arch.dispatch(filter) }
        }
        lists.reserve(n_queries * k);
        for (b, list) in candidates.iter_mut().enumerate() {
            compact(list, k, keys);
            let q = query(range.start + b);
            exact.clear();
            let id = |p: u32| self.ids.as_ref().map_or(p, |ids| ids[p as usize]);
            exact.extend(list.iter().map(|c| (dist2(q, &self.x[c.id as usize * d..(c.id as usize + 1) * d]).to_bits(), id(c.id))));
            // Few candidates (k and the near-ties at the boundary): a full sort is cheap.
            exact.sort_unstable();
            lists.extend(exact[..k].iter().map(|&(_, id)| id));
        }
    }
}

/// The filter of one block of points for every query of a block ([`filter_row`], then
/// [`compact`] when a list is full), as a [`pulp::WithSimd`] operation so that
/// [`pulp::Arch::dispatch`] compiles it for the widest instruction set available (the inlined
/// body takes the caller's target features).
struct FilterBlock<'a> {
    /// `products[b * width + j]`: query b's product with point `start + j`.
    products: &'a [f64],
    width: usize,
    norms: &'a [f64],
    query_norms: &'a [f64],
    candidates: &'a mut [Vec<Candidate>],
    thresholds: &'a mut [f64],
    bound: (f64, f64),
    start: usize,
    capacity: usize,
    k: usize,
    keys: &'a mut Vec<i64>,
}

impl FilterBlock<'_> {
    #[inline(always)]
    fn run(self) {
        let Self { products, width, norms, query_norms, candidates, thresholds, bound, start, capacity, k, keys } = self;
        // Norms are sums of squares: never negative, never NaN (finite features).
        let max_norm = norms.iter().fold(0.0f64, |m, &v| m.max(v));
        for (b, row) in products.chunks_exact(width).enumerate() {
            let (list, threshold) = (&mut candidates[b], &mut thresholds[b]);
            filter_row(row, (norms, max_norm), query_norms[b], bound, *threshold, start, list);
            if list.len() >= capacity {
                *threshold = compact(list, k, keys);
            }
        }
    }
}

impl pulp::WithSimd for FilterBlock<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        self.run();
    }
}

/// Appends to `list` every point `start + j` of a block whose lower bound `a − e` (see
/// [`error_bound`]) is at most `threshold`, `row[j]` being its product with the query. Points are
/// tested by chunks of [`FILTER_CHUNK`] without a branch (the compiler vectorises the test),
/// against a bound that holds for the whole block (`max_norm`: the largest of `norms`) and is
/// never tighter than each point's own; only the points that pass it are visited again and kept
/// if their own lower bound passes, so the candidates are exactly those of the plain test.
#[inline(always)]
fn filter_row(
    row: &[f64],
    (norms, max_norm): (&[f64], f64),
    query_norm: f64,
    (relative, absolute): (f64, f64),
    threshold: f64,
    start: usize,
    list: &mut Vec<Candidate>,
) {
    let bounds = |product: f64, norm: f64| {
        let s = query_norm + norm;
        let approx = s - 2.0 * product;
        let e = relative * s + absolute;
        (approx - e, approx + e)
    };
    // The chunked test subtracts one bound for the whole block, `e_max = e(s_max)` with
    // `s_max = fl(query_norm + max norm)`: rounding is monotone, so `s ≤ s_max`, `e(s) ≤ e_max`
    // and `fl(approx − e_max) ≤ fl(approx − e(s))`. A point whose lower bound passes therefore
    // passes the cheaper test too; a point that passes it is kept only if its own lower bound
    // passes, so the candidates are exactly those of the plain test.
    let e_max = relative * (query_norm + max_norm) + absolute;
    let loose_lower = |product: f64, norm: f64| (query_norm + norm - 2.0 * product) - e_max;
    let (rows, norm_chunks) = (row.chunks_exact(FILTER_CHUNK), norms.chunks_exact(FILTER_CHUNK));
    let offset = row.len() - rows.remainder().len();
    let tail = rows.remainder().iter().zip(norm_chunks.remainder()).enumerate().map(move |(j, pair)| (offset + j, pair));
    let mut lower = [0.0f64; FILTER_CHUNK];
    for (c, (chunk, norm)) in rows.zip(norm_chunks).enumerate() {
        // The lower bounds and whether any passes, without a branch (vectorised); most chunks
        // hold no candidate once the threshold is tight.
        let mut hit = false;
        for ((l, &product), &norm) in lower.iter_mut().zip(chunk).zip(norm) {
            *l = loose_lower(product, norm);
            // `≤`: a point tied with the threshold may still win on position.
            hit |= *l <= threshold;
        }
        if !hit {
            continue;
        }
        // One bit per point whose lower bound passes.
        let mut mask = 0u32;
        for (j, &l) in lower.iter().enumerate() {
            mask |= u32::from(l <= threshold) << j;
        }
        while mask != 0 {
            let j = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let (lower, upper) = bounds(chunk[j], norm[j]);
            if lower <= threshold {
                list.push(Candidate { lower, upper, id: (start + c * FILTER_CHUNK + j) as u32 });
            }
        }
    }
    for (j, (&product, &norm)) in tail {
        let (lower, upper) = bounds(product, norm);
        if lower <= threshold {
            list.push(Candidate { lower, upper, id: (start + j) as u32 });
        }
    }
}

/// Points tested at once by [`filter_row`].
const FILTER_CHUNK: usize = 16;

/// Keeps the candidates that can still be among the k nearest and returns the new threshold:
/// the k-th smallest upper bound. At least k points lie at or below it, so a point whose lower
/// bound exceeds it is farther than k others and cannot be among the k nearest, whatever its
/// position. With fewer than k candidates nothing is dropped.
fn compact(list: &mut Vec<Candidate>, k: usize, keys: &mut Vec<i64>) -> f64 {
    if list.len() < k {
        return f64::INFINITY;
    }
    // The k-th smallest upper bound in `f64::total_cmp` order, selected among integer keys that
    // sort in that order (cheaper to move and compare than the candidates).
    keys.clear();
    keys.extend(list.iter().map(|c| total_order_key(c.upper)));
    let threshold = total_order_value(*keys.select_nth_unstable(k - 1).1);
    // `retain`, without a branch: every candidate is written, the kept ones advance.
    let mut kept = 0;
    for read in 0..list.len() {
        let c = list[read];
        list[kept] = c;
        kept += usize::from(c.lower <= threshold);
    }
    list.truncate(kept);
    threshold
}

/// An integer that sorts as `x` does under [`f64::total_cmp`] (the same transformation).
#[inline(always)]
fn total_order_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

/// The inverse of [`total_order_key`] (the transformation is an involution).
#[inline(always)]
fn total_order_value(key: i64) -> f64 {
    f64::from_bits((key ^ (((key >> 63) as u64) >> 1) as i64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// Reference: every point's exact distance, fully sorted by (distance, position).
    fn reference(x: &[f64], d: usize, q: &[f64], k: usize) -> Vec<u32> {
        let n = x.len() / d;
        let mut all: Vec<(u64, u32)> = (0..n).map(|j| (dist2(q, &x[j * d..(j + 1) * d]).to_bits(), j as u32)).collect();
        all.sort_unstable();
        all.iter().take(k).map(|p| p.1).collect()
    }

    /// Points built to stress the bound: far from the origin with tiny differences (catastrophic
    /// cancellation in `‖q‖² + ‖x‖² − 2 q·x`), exact duplicates, and distances equal or one ulp
    /// apart.
    fn adversarial(rng: &mut rand_chacha::ChaCha8Rng, n: usize, d: usize, kind: usize) -> Vec<f64> {
        let offset = [0.0, 1e3, -7.5e5][kind % 3];
        let base: Vec<f64> = (0..d).map(|_| rng.random::<f64>()).collect();
        let mut x = Vec::with_capacity(n * d);
        for j in 0..n {
            match (kind + j) % 4 {
                // a grid: many exact ties
                0 => x.extend((0..d).map(|_| offset + rng.random_range(0..4) as f64 * 0.5)),
                // one-ulp perturbations of one point
                1 => x.extend(base.iter().map(|&b| {
                    let v: f64 = offset + b;
                    f64::from_bits(v.to_bits().wrapping_add(rng.random_range(0..3)))
                })),
                // duplicates of an earlier point
                2 if j > 0 => {
                    let src = rng.random_range(0..j);
                    x.extend_from_within(src * d..(src + 1) * d);
                }
                _ => x.extend((0..d).map(|_| offset + rng.random::<f64>() * 1e-6)),
            }
        }
        x
    }

    #[test]
    fn gemm_lists_equal_the_exact_order_on_adversarial_points() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(41);
        let mut scratch = GemmScratch::default();
        for seed in 0..24usize {
            let d = [1, 2, 3, 10, 17, 50][seed % 6];
            let n = [1, 5, 700, 1500][seed % 4];
            let x = adversarial(&mut rng, n, d, seed);
            let queries = adversarial(&mut rng, 40, d, seed + 1);
            let points = GemmPoints::new(x.clone(), d);
            let query = |i: usize| &queries[i * d..(i + 1) * d];
            for k in [1, 3, 64, 700] {
                // The filter dispatched to the widest instruction set, and the baseline one.
                for (range, baseline_only) in
                    [(0..QUERY_BLOCK, false), (0..QUERY_BLOCK, true), (QUERY_BLOCK..40, false), (QUERY_BLOCK..40, true)]
                {
                    scratch.baseline_only = baseline_only;
                    points.nearest_block(&query, range.clone(), k, None, &mut scratch);
                    let w = scratch.width;
                    for (b, i) in range.enumerate() {
                        let want = reference(&x, d, query(i), k);
                        assert_eq!(scratch.lists[b * w..(b + 1) * w], want, "seed={seed} d={d} n={n} k={k} i={i} baseline={baseline_only}");
                    }
                }
            }
        }
    }

    #[test]
    fn lists_in_a_spatial_order_from_any_starting_block_equal_the_exact_order() {
        // Points stored in a permuted order, scanned from the first, a middle and the last
        // (partial) block: the same ids in the same order as the reference.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(47);
        let mut scratch = GemmScratch::default();
        for seed in 0..6usize {
            let d = [2, 10, 24][seed % 3];
            let n = [1300, 1537][seed % 2];
            let x = adversarial(&mut rng, n, d, seed);
            let order = super::super::neighbors::spatial_order(&x, d, n);
            let points = GemmPoints::in_order(&x, d, order);
            let query = |i: usize| &x[i * d..(i + 1) * d];
            for near in [Some(0), Some(n / 2), Some(n - 1), Some(10 * n), None] {
                for k in [1, 5, 343, n] {
                    points.nearest_block(&query, 100..100 + QUERY_BLOCK, k, near, &mut scratch);
                    let w = scratch.width;
                    for (b, i) in (100..100 + QUERY_BLOCK).enumerate() {
                        assert_eq!(scratch.lists[b * w..(b + 1) * w], reference(&x, d, query(i), k), "seed={seed} k={k} near={near:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_chunked_filter_keeps_exactly_the_points_of_the_plain_test() {
        // Products and norms from adversarial points, thresholds equal to some point's own lower
        // bound (the `≤` edge), row lengths with and without a partial chunk.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(53);
        for seed in 0..30usize {
            let d = [1, 3, 10, 50][seed % 4];
            let n = [7, 16, 200, 512][seed % 4];
            let x = adversarial(&mut rng, n + 1, d, seed);
            let points = GemmPoints::new(x, d);
            let (norms, query_norm) = (&points.norms[1..], points.norms[0]);
            let q = &points.centered[..d];
            let row: Vec<f64> = (1..=n).map(|j| q.iter().zip(&points.centered[j * d..(j + 1) * d]).map(|(a, b)| a * b).sum()).collect();
            let bound = error_bound(d);
            let plain = |threshold: f64| -> Vec<u32> {
                (0..n)
                    .filter(|&j| {
                        let s = query_norm + norms[j];
                        (s - 2.0 * row[j]) - (bound.0 * s + bound.1) <= threshold
                    })
                    .map(|j| (100 + j) as u32)
                    .collect()
            };
            let max_norm = norms.iter().fold(0.0f64, |m, &v| m.max(v));
            let mut thresholds = vec![f64::INFINITY, -1.0, 0.0];
            for j in [0, n / 3, n / 2, n - 1] {
                let s = query_norm + norms[j];
                thresholds.push((s - 2.0 * row[j]) - (bound.0 * s + bound.1));
            }
            for threshold in thresholds {
                let mut list = Vec::new();
                filter_row(&row, (norms, max_norm), query_norm, bound, threshold, 100, &mut list);
                assert_eq!(list.iter().map(|c| c.id).collect::<Vec<_>>(), plain(threshold), "seed={seed} threshold={threshold}");
            }
        }
    }

    #[test]
    fn the_rounding_bound_holds_on_near_cancelling_points() {
        // The approximation, computed exactly as `nearest_block` does, against the exact sum.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(43);
        let mut worst = 0.0f64;
        for seed in 0..60usize {
            let d = [1, 2, 5, 10, 50][seed % 5];
            let x = adversarial(&mut rng, 64, d, seed);
            let points = GemmPoints::new(x.clone(), d);
            let (relative, absolute) = error_bound(d);
            let q: Vec<f64> = x[..d].iter().map(|&v| f64::from_bits(v.to_bits() ^ 1)).collect();
            let qc: Vec<f64> = q.iter().zip(&points.mean).map(|(v, m)| v - m).collect();
            let qn: f64 = qc.iter().map(|v| v * v).sum();
            for j in 0..64 {
                let xc = &points.centered[j * d..(j + 1) * d];
                // Two summation orders of the product, as a blocked kernel might use.
                for product in [qc.iter().zip(xc).map(|(a, b)| a * b).sum::<f64>(), qc.iter().zip(xc).rev().map(|(a, b)| a * b).sum()] {
                    let s = qn + points.norms[j];
                    let approx = s - 2.0 * product;
                    let e = relative * s + absolute;
                    let exact = dist2(&q, &x[j * d..(j + 1) * d]);
                    assert!(approx - e <= exact && exact <= approx + e, "seed={seed} j={j}: {approx} ± {e} vs {exact}");
                    if e > 0.0 {
                        worst = worst.max((approx - exact).abs() / e);
                    }
                }
            }
        }
        // The test is meaningful only if the error is not negligible against the bound.
        assert!(worst > 1e-4, "worst observed error / bound = {worst}");
    }
}
