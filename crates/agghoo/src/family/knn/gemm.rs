//! Exact k nearest neighbours of a block of queries through blocked products.
//!
//! Squared distances are first *approximated* as `‖q‖² + ‖x‖² − 2 q·x` (every `q·x` of a tile
//! of queries and points computed at once in vector registers), then the few points whose
//! approximation is within a rigorous rounding bound of the k-th nearest are re-ranked with the
//! exact distance every other search uses ([`dist2`](super::neighbors::dist2): coordinates summed in order), by
//! `(distance, position)`. The answer is therefore the same list, ties and order included, as
//! brute force or the k-d tree; the approximation only decides which points can be skipped. The
//! proof of the bound is at [`error_bound`]; a test checks it on adversarial points.
//!
//! Points are centred on their mean before the product (not the exact distances): uncentred data
//! far from the origin (every coordinate near 1 000, say) would make `‖q‖² + ‖x‖²` dwarf the
//! distances, and the bound, proportional to `‖q‖² + ‖x‖²`, would then keep many candidates.

use std::cmp::Ordering;

use pulp::bytemuck;

use super::lanes::{Dispatch, Isa, Kernel, Lanes};
#[cfg(test)]
use super::neighbors::dist2;
use super::neighbors::dist2_each;

/// Queries per search block; also the block of rows `path_values` hands one thread.
pub(crate) const QUERY_BLOCK: usize = 32;
/// Points per block: the threshold of each query is updated between blocks, and a block's
/// coordinates (40 KiB at d = 10) stay in the L1 or L2 cache while every query tile reads them.
const POINT_BLOCK: usize = 512;
/// Queries of one register tile of [`FilterBlock`].
const TILE_QUERIES: usize = 4;
/// Vectors of points of one register tile (`TILE_VECTORS ×` the vector's lanes points): with
/// [`TILE_QUERIES`], 8 accumulators, which leaves registers for the loads on AVX2's 16.
const TILE_VECTORS: usize = 2;
/// Register tiles that [`SingleBlock`] runs over the same points before moving to the next
/// points (a search block's queries: [`QUERY_BLOCK`] / [`TILE_QUERIES`]).
const GROUP_TILES: usize = QUERY_BLOCK / TILE_QUERIES;
/// Block widths in [`GemmPoints`]' panels are padded to a multiple of this (a tile holds at most
/// 32 points: two vectors of 16 lanes); [`POINT_BLOCK`] is a multiple of it.
const PANEL_PAD: usize = 32;
/// One point in this many, in search order, makes up the sample that seeds the thresholds of
/// [`GemmPoints::nearest_block`].
const SAMPLE_STRIDE: usize = 16;
/// [`GemmPoints::in_order`] builds a sample from this many points on (256 sample points): its
/// search costs about `1 / SAMPLE_STRIDE` of the main scan's products plus its own candidates,
/// and it paid at every size measured, 5 000 points included (the design note); the seed itself
/// is skipped while `k_s` is above a quarter of the sample ([`seed_count`]).
const SAMPLE_MIN_POINTS: usize = 8 * POINT_BLOCK;
/// Seeded searches only from this k on: below, a list is compacted at 64 candidates anyway
/// (`max(3k/2, 64)`), which tightens the threshold early without a seed.
const SEED_MIN_K: usize = 32;

/// Points prepared for the search: centred copies by block and coordinate, their squared
/// norms, and the originals for the exact distances.
pub(crate) struct GemmPoints {
    /// The points in search order; `ids[p]` is the caller's id of point p (p itself without an
    /// order), then `u32::MAX` up to the last block's padded width.
    x: Vec<f64>,
    ids: Vec<u32>,
    /// The centred points, block by block of [`POINT_BLOCK`], each block by coordinate: point
    /// `b · POINT_BLOCK + j`'s coordinate c is at `panels[b · POINT_BLOCK · d + c · w + j]`, `w`
    /// the block's width rounded up to [`PANEL_PAD`] (padding points are zeros).
    panels: Vec<f64>,
    /// The centred squared norms, then NaN up to the last block's padded width: a NaN bound
    /// never passes the filter, so padding points are never candidates.
    norms: Vec<f64>,
    /// The largest norm of each block.
    block_max: Vec<f64>,
    /// `panels` rounded to `f32`, by run of [`PANEL_PAD`] points rather than by block: point
    /// `r · PANEL_PAD + o`'s coordinate c at `panels32[(r · d + c) · PANEL_PAD + o]`, so that the
    /// coordinates a register tile reads are one contiguous stream (at d = 50 a block's columns
    /// were 50 streams 2 KiB apart, and the kernel waited on their loads); and half of each norm
    /// rounded to `f32` (NaN as padding), for the single-precision kernel; both empty when some
    /// coordinate is too large for it.
    panels32: Vec<f32>,
    halves: Vec<f32>,
    mean: Vec<f64>,
    d: usize,
    n: usize,
    /// The points at positions `p · SAMPLE_STRIDE` (in search order, so itself a spatial order
    /// when the points are in one), whose search seeds the thresholds; `None` for fewer than
    /// [`SAMPLE_MIN_POINTS`] points or without an order.
    sample: Option<Box<GemmPoints>>,
}

/// One candidate: bounds on its exact squared distance, its position, and the caller's id of it
/// (read while the block's ids are in cache, rather than by [`rank`] in the order of the bounds;
/// it fills what would be the struct's padding).
#[derive(Clone, Copy)]
struct Candidate {
    lower: f64,
    upper: f64,
    id: u32,
    row: u32,
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
    /// The centred queries by tile of [`TILE_QUERIES`] and coordinate: `tiles[t · d + c][r]` is
    /// coordinate c of query `t · TILE_QUERIES + r` (zeros past the last query).
    tiles: Vec<[f64; TILE_QUERIES]>,
    /// `tiles` rounded to `f32`.
    tiles32: Vec<[f32; TILE_QUERIES]>,
    query_norms: Vec<f64>,
    thresholds: Vec<f64>,
    candidates: Vec<Vec<Candidate>>,
    ranking: RankScratch,
    /// Sort keys of the candidates' upper bounds, for [`compact`].
    keys: Vec<i64>,
    /// The k-th smallest exact distance of each query of the last scan (`+∞` where the list has
    /// fewer than k candidates).
    kth: Vec<f64>,
    /// The seeded thresholds of the block's queries (see [`GemmPoints::nearest_block`]).
    seeds: Vec<f64>,
    /// The block's queries whose seeded search could not be verified.
    failed: Vec<usize>,
    /// Queries searched with a seeded threshold, and those of them searched again without one
    /// (the seed was below their k-th distance), since this scratch was made.
    pub(crate) seeded_queries: usize,
    pub(crate) reruns: usize,
    /// The instruction set the kernels run on (tests pick a narrower one; the answer is the
    /// same).
    pub(crate) isa: Isa,
    /// Tests only: the seed's sample neighbours `k_s` in place of [`seed_count`]'s.
    #[cfg(test)]
    seed_count: Option<usize>,
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
///    fused multiply-adds (the kernels here chain them in coordinate order), errs by at most
///    `γ_d Σ|p_c|`. So the norms err by `γ_d ‖q'‖²` and `γ_d ‖x'‖²`, their sum `s` by
///    `γ_{d+1} S`, and `q'·x'` by `γ_d ‖q'‖‖x'‖ ≤ γ_d S / 2`; `2 q'·x'` is exact scaling. Hence `s − 2 fl(q'·x')` is within
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
        let centered = |p: usize| x[p * d..(p + 1) * d].iter().zip(&mean).map(|(v, m)| v - m);
        let mut norms: Vec<f64> = (0..n).map(|p| centered(p).map(|v| v * v).sum()).collect();
        let block_max = norms.chunks(POINT_BLOCK).map(|b| b.iter().fold(0.0f64, |m, &v| m.max(v))).collect();
        let mut panels = vec![0.0; n.div_ceil(POINT_BLOCK) * POINT_BLOCK * d];
        for (b, panel) in panels.chunks_exact_mut((POINT_BLOCK * d).max(1)).enumerate() {
            let start = b * POINT_BLOCK;
            let padded = (n - start).min(POINT_BLOCK).next_multiple_of(PANEL_PAD);
            for p in start..(start + POINT_BLOCK).min(n) {
                centered(p).enumerate().for_each(|(c, v)| panel[c * padded + p - start] = v);
            }
        }
        norms.resize(n.next_multiple_of(PANEL_PAD), f64::NAN);
        let (panels32, halves) = if single_fits(&panels, d) {
            (runs(&panels, d, n), norms.iter().map(|&v| (v / 2.0) as f32).collect())
        } else {
            (Vec::new(), Vec::new())
        };
        let ids = (0..n as u32).chain(std::iter::repeat(u32::MAX)).take(n.next_multiple_of(PANEL_PAD)).collect();
        Self { x, ids, panels, norms, block_max, panels32, halves, mean, d, n, sample: None }
    }

    /// As [`new`](Self::new), with the rows of `x` stored in `order` (a permutation of the row
    /// ids, e.g. a spatial order: points close in `order` are close in space). Answers are the
    /// same row ids in the same order; the order only decides which blocks of points are scanned
    /// first by [`nearest_block`](Self::nearest_block) with a starting point (near blocks first
    /// give a tight threshold early, hence fewer candidates).
    ///
    /// From [`SAMPLE_MIN_POINTS`] points on, also a sample (every [`SAMPLE_STRIDE`]-th point in
    /// that order) whose search seeds each query's threshold.
    pub(crate) fn in_order(x: &[f64], d: usize, order: Vec<u32>) -> Self {
        Self::in_order_sampled(x, d, order, SAMPLE_MIN_POINTS)
    }

    /// As [`in_order`](Self::in_order), with a sample from `sample_min` points on.
    fn in_order_sampled(x: &[f64], d: usize, order: Vec<u32>, sample_min: usize) -> Self {
        let mut permuted = Vec::with_capacity(order.len() * d);
        order.iter().for_each(|&i| permuted.extend_from_slice(&x[i as usize * d..(i as usize + 1) * d]));
        let sample = (d > 0 && order.len() >= sample_min.max(1)).then(|| {
            let rows = permuted.chunks_exact(d).step_by(SAMPLE_STRIDE);
            Box::new(Self::new(rows.flatten().copied().collect(), d))
        });
        let mut ids = order;
        ids.resize(ids.len().next_multiple_of(PANEL_PAD), u32::MAX);
        Self { ids, sample, ..Self::new(permuted, d) }
    }

    /// The `min(k, n)` nearest points of each query `query(i)`, `i ∈ range` (at most
    /// [`QUERY_BLOCK`] of them), by `(dist2, id)`, into `scratch.lists` (`scratch.width` ids
    /// per query, in `range` order). Blocks of points are scanned from the one holding point
    /// `near` (in search order) outwards, or from the first when `near` is `None`; the answer
    /// does not depend on it.
    ///
    /// **Seeded thresholds.** With a sample (see [`in_order`](Self::in_order)) and k large
    /// enough ([`seed_count`]), each query's threshold starts at a seed `T` instead of `+∞`: the
    /// exact distance of its `k_s`-th nearest sample point, found first by the same search among
    /// the sample (scanned from the sample's block around `near`). `T` is an estimate of the
    /// query's k-th distance, usually a little above it, so the main scan keeps few points
    /// from its start. It is verified after the scan: if the query's list holds at least k
    /// candidates and the k-th smallest of their exact distances is at most `T`, the list is the
    /// exact answer; otherwise the query is searched again from `+∞` (counted in
    /// `scratch.reruns`). The answer never depends on the estimate.
    ///
    /// Proof. A point is left out of the candidates for one of two reasons. (1) Its lower bound
    /// exceeded a threshold set by a compaction: then k candidates had upper bounds at or below
    /// that threshold, so k points are strictly nearer than it and it is not among the k
    /// nearest, as without a seed (those k may be dropped later, but only for the same reason,
    /// by nearer points still). (2) Its lower bound exceeded `T` (the threshold until a
    /// compaction replaces it — possibly by a larger one, which only keeps more points): its
    /// exact distance is then above `T`, hence above the k-th smallest exact distance of k
    /// candidates when the check passes, so k points are strictly nearer than it. Every point
    /// among the true k nearest is therefore a candidate, and the k smallest candidates by
    /// `(dist2, id)` are the answer.
    pub(crate) fn nearest_block<'q>(
        &self,
        query: &dyn Fn(usize) -> &'q [f64],
        range: std::ops::Range<usize>,
        k: usize,
        near: Option<usize>,
        scratch: &mut GemmScratch,
    ) {
        let k = k.min(self.n);
        let seed = self.sample.as_deref().and_then(|sample| Some((sample, seed_count(k, sample.n)?)));
        #[cfg(test)]
        let seed = seed.map(|(sample, k_s)| (sample, scratch.seed_count.unwrap_or(k_s)));
        let Some((sample, k_s)) = seed.filter(|_| !range.is_empty()) else {
            return self.scan(query, range, k, near, false, scratch);
        };
        sample.scan(query, range.clone(), k_s, near.map(|p| p / SAMPLE_STRIDE), false, scratch);
        std::mem::swap(&mut scratch.seeds, &mut scratch.kth);
        self.scan(query, range.clone(), k, near, true, scratch);
        // Verified when the k-th distance is at most the seed (never when either is NaN).
        let mut failed = std::mem::take(&mut scratch.failed);
        failed.clear();
        let verified = |b: usize| matches!(scratch.kth[b].partial_cmp(&scratch.seeds[b]), Some(Ordering::Less | Ordering::Equal));
        failed.extend((0..range.len()).filter(|&b| !verified(b)));
        scratch.seeded_queries += range.len();
        scratch.reruns += failed.len();
        if !failed.is_empty() {
            let mut lists = std::mem::take(&mut scratch.lists);
            let again = |j: usize| query(range.start + failed[j]);
            self.scan(&again, 0..failed.len(), k, near, false, scratch);
            for (j, &b) in failed.iter().enumerate() {
                lists[b * k..(b + 1) * k].copy_from_slice(&scratch.lists[j * k..(j + 1) * k]);
            }
            scratch.lists = lists;
        }
        scratch.failed = failed;
    }

    /// The search of [`nearest_block`](Self::nearest_block) (with `k ≤ n`), each query's
    /// threshold starting at `scratch.seeds` (`seeded`) or `+∞`; also leaves each query's k-th
    /// smallest exact distance in `scratch.kth` (`+∞` when fewer than k candidates are left,
    /// which only a seed can cause: that query's ids in `scratch.lists` are then incomplete).
    fn scan<'q>(
        &self,
        query: &dyn Fn(usize) -> &'q [f64],
        range: std::ops::Range<usize>,
        k: usize,
        near: Option<usize>,
        seeded: bool,
        scratch: &mut GemmScratch,
    ) {
        let (d, n) = (self.d, self.n);
        let n_queries = range.len();
        scratch.width = k;
        scratch.lists.clear();
        scratch.kth.clear();
        if k == 0 || n_queries == 0 {
            return;
        }
        let GemmScratch { tiles, tiles32, query_norms, thresholds, candidates, ranking, lists, keys, isa, kth, seeds, .. } = scratch;
        // Queries past the last fill the last tile: zeros, a threshold no bound passes.
        let padded = n_queries.next_multiple_of(TILE_QUERIES);
        tiles.clear();
        tiles.resize(padded / TILE_QUERIES * d, [0.0; TILE_QUERIES]);
        query_norms.clear();
        for (b, i) in range.clone().enumerate() {
            let centred = query(i).iter().zip(&self.mean).map(|(v, m)| v - m);
            centred.clone().enumerate().for_each(|(c, v)| tiles[b / TILE_QUERIES * d + c][b % TILE_QUERIES] = v);
            query_norms.push(centred.map(|v| v * v).sum::<f64>());
        }
        query_norms.resize(padded, 0.0);
        // Single precision when the points and these queries allow it.
        let single = !self.panels32.is_empty() && tiles.iter().flatten().all(|&v| v.abs() <= SINGLE_MAX);
        tiles32.clear();
        if single {
            tiles32.extend(tiles.iter().map(|t| t.map(|v| v as f32)));
        }
        thresholds.clear();
        match seeded {
            true => thresholds.extend_from_slice(&seeds[..n_queries]),
            false => thresholds.resize(n_queries, f64::INFINITY),
        }
        thresholds.resize(padded, f64::NEG_INFINITY);
        candidates.resize_with(padded.max(candidates.len()), Vec::new);
        let candidates = &mut candidates[..padded];
        candidates.iter_mut().for_each(Vec::clear);
        // Half as many again as k: the first compaction comes early enough to tighten a
        // seeded threshold (which lets about 1.5 k points through) for the rest of the scan.
        let capacity = (3 * k / 2).max(64);
        let n_blocks = n.div_ceil(POINT_BLOCK);
        let first = near.map_or(0, |p| (p / POINT_BLOCK).min(n_blocks - 1));
        // first, first + 1, first − 1, first + 2, …: every block once.
        let outwards =
            (0..n_blocks).flat_map(|t| [first.checked_add(t), first.checked_sub(t + 1)]).flatten().filter(|&b| b < n_blocks).take(n_blocks);
        for b in outwards {
            let start = b * POINT_BLOCK;
            let width = (n - start).min(POINT_BLOCK).next_multiple_of(PANEL_PAD);
            let block = BlockState {
                width,
                norms: &self.norms[start..start + width],
                ids: &self.ids[start..start + width],
                max_norm: self.block_max[b],
                query_norms,
                candidates: &mut *candidates,
                thresholds: &mut *thresholds,
                start,
                capacity,
                k,
                keys: &mut *keys,
            };
            let points = start * d..(start + width) * d;
            let panels = match single {
                true => Panels::Single { panel: &self.panels32[points], halves: &self.halves[start..start + width], tiles: tiles32 },
                false => Panels::Double { panel: &self.panels[points], tiles },
            };
            block.run(panels, *isa);
        }
        lists.reserve(n_queries * k);
        for (b, list) in candidates[..n_queries].iter_mut().enumerate() {
            compact(list, k, keys);
            let q = query(range.start + b);
            kth.push(rank(list, k, &self.x, q, ranking));
            let exact = &ranking.exact;
            let kept = exact.len().min(k);
            lists.extend(exact[..kept].iter().map(|&(_, id)| id));
            lists.resize(lists.len() + k - kept, u32::MAX);
        }
    }
}

/// The first `min(k, len)` of `list`'s candidates by `(dist2, id)`, into `scratch.exact` (their
/// caller's ids, `row`; the distance is filled only where it was needed), and the k-th
/// smallest exact distance (`+∞` when fewer than k candidates are left). `points` holds the
/// points in search order, `query.len()` coordinates each.
///
/// The exact distances are computed only where the bounds do not already decide the order.
/// Sorted by lower bound, the candidates fall into runs: a run ends where the next lower bound
/// exceeds every upper bound of the run so far. Every distance of a run is then strictly below
/// every distance of the later runs (`dist2 ≤ upper ≤ reach < lower ≤ dist2`), so the order by
/// `(dist2, id)` is the runs in turn, each sorted by `(dist2, id)` — which needs the exact
/// distances of runs of two or more only. Once k candidates are placed the rest is not looked at.
///
/// The sort is of 8-byte keys (`order`: each lower bound rounded down to `f32` in the high half,
/// the candidate's place in `list` in the low half) rather than of the 24-byte candidates. The
/// rounded bound `ℓ'` is still a lower bound (`ℓ' ≤ lower ≤ dist2`), and a run ends where the next
/// `ℓ'` exceeds the run's reach: every later candidate's `ℓ'` is at least that one, so the argument
/// above holds with `ℓ'` for `lower` (runs may only be longer).
fn rank(list: &[Candidate], k: usize, points: &[f64], query: &[f64], scratch: &mut RankScratch) -> f64 {
    let RankScratch { exact, order, needed, distances } = scratch;
    exact.clear();
    order.clear();
    order.extend(list.iter().enumerate().map(|(i, c)| (u64::from(lower_key(c.lower)) << 32) | i as u64));
    order.sort_unstable();
    let candidate = |key: u64| &list[(key & u64::from(u32::MAX)) as usize];
    let lower = |key: u64| key_value((key >> 32) as u32);
    let run_end = |start: usize| {
        let mut end = start + 1;
        let mut reach = candidate(order[start]).upper;
        while end < order.len() && lower(order[end]) <= reach {
            reach = reach.max(candidate(order[end]).upper);
            end += 1;
        }
        end
    };
    // First the runs alone, to list the candidates whose exact distance is needed; then those
    // distances, several at a time (`dist2_each`: independent chains); then the runs again, in
    // order.
    needed.clear();
    let (mut start, mut placed) = (0, 0);
    while start < order.len() && placed < k {
        let end = run_end(start);
        if end - start > 1 || placed + 1 == k {
            needed.extend(order[start..end].iter().map(|&key| candidate(key)));
        }
        placed += end - start;
        start = end;
    }
    distances.clear();
    let d = query.len();
    dist2_each(query, needed.iter().map(|c| &points[c.id as usize * d..(c.id as usize + 1) * d]), distances);
    let mut next = distances.iter();
    let mut kth = f64::INFINITY;
    let mut start = 0;
    while start < order.len() && exact.len() < k {
        let end = run_end(start);
        let run = &order[start..end];
        let placed = exact.len();
        if let [single] = run {
            exact.push((0, candidate(*single).row));
            if placed + 1 == k {
                kth = next.next().copied().unwrap_or(f64::NAN);
            }
        } else {
            exact.extend(run.iter().zip(next.by_ref()).map(|(&key, &distance)| (distance.to_bits(), candidate(key).row)));
            exact[placed..].sort_unstable();
            if exact.len() >= k {
                kth = f64::from_bits(exact[k - 1].0);
            }
        }
        start = end;
    }
    kth
}

/// Reusable buffers of [`rank`].
#[derive(Default)]
struct RankScratch {
    exact: Vec<(u64, u32)>,
    /// Sort keys of the candidates' lower bounds.
    order: Vec<u64>,
    /// The candidates whose exact distance is needed, in the order they are used.
    needed: Vec<Candidate>,
    distances: Vec<f64>,
}

/// `x` rounded down to `f32` (towards −∞: at most `x`), as an integer that sorts as that value:
/// the sign bit set for positive values, every bit flipped for negative ones.
#[inline(always)]
fn lower_key(x: f64) -> u32 {
    // The key of `x` rounded to nearest, less one where that rounded up: the key below a float's
    // is the next float down's (below +0 is −0, the same value, but +0 never rounds up; −0 does,
    // from a negative x, and below it is the negative float nearest zero).
    let rounded = x as f32;
    let bits = rounded.to_bits();
    (bits ^ (((bits as i32 >> 31) as u32) | 0x8000_0000)) - u32::from(f64::from(rounded) > x)
}

/// The value of a [`lower_key`].
#[inline(always)]
fn key_value(key: u32) -> f64 {
    let bits = if key & 0x8000_0000 != 0 { key ^ 0x8000_0000 } else { !key };
    f64::from(f32::from_bits(bits))
}

/// Margin of [`seed_count`], in standard deviations of the number of sample points within a
/// query's k-th distance.
const SEED_MARGIN: f64 = 2.5;

/// The sample neighbours `k_s` whose distance seeds a search for k neighbours among a sample of
/// `sample_points`, or `None` when a seed would not pay (k below [`SEED_MIN_K`]) or the sample
/// is too small for it (`k_s` above a quarter of it).
///
/// About `m = k / SAMPLE_STRIDE` sample points lie within a query's k-th distance (a stratified
/// sample: fewer in some places, more in others, with a spread of at most about `√m`). With
/// `k_s = ⌈m + SEED_MARGIN · √m⌉ + 2`, the `k_s`-th sample point is beyond the k-th distance
/// for all but a small share of queries (on uniform points, see the design note), and not far
/// beyond it.
fn seed_count(k: usize, sample_points: usize) -> Option<usize> {
    let m = k as f64 / SAMPLE_STRIDE as f64;
    let k_s = (m + SEED_MARGIN * m.sqrt()).ceil() as usize + 2;
    (k >= SEED_MIN_K && 4 * k_s <= sample_points).then_some(k_s)
}

/// One block of points against every query of a block: the products tile by tile in vector
/// registers ([`TILE_QUERIES`] queries × [`TILE_VECTORS`] vectors of points), each query's
/// candidates filtered straight from the registers, then [`compact`]ed when a list is full. A
/// [`pulp::WithSimd`] operation, so that [`pulp::Arch::dispatch`] compiles it for the widest
/// instruction set available.
///
/// The filter tests a whole vector at once against a bound that holds for the whole block,
/// `e_max = e(‖q'‖² + max ‖x'‖²)`: rounding is monotone, so `s = fl(‖q'‖² + ‖x'‖²) ≤
/// fl(‖q'‖² + max ‖x'‖²)`, `e(s) ≤ e_max` and `fl(a − e_max) ≤ fl(a − e(s))`. A point whose own
/// lower bound passes therefore passes the vector test; a point that passes the vector test is
/// kept only if its own lower bound passes, so the candidates are exactly those of the plain
/// test `fl(a − e(s)) ≤ threshold`.
struct FilterBlock<'a> {
    block: BlockState<'a>,
    /// The block's centred points by coordinate, `block.width` (padded) per coordinate.
    panel: &'a [f64],
    tiles: &'a [[f64; TILE_QUERIES]],
}

/// What both kernels read and update for one block of points against a block of queries.
struct BlockState<'a> {
    /// The block's width, padded to a multiple of [`PANEL_PAD`].
    width: usize,
    norms: &'a [f64],
    /// The caller's ids of the block's points (padded as `norms`).
    ids: &'a [u32],
    max_norm: f64,
    query_norms: &'a [f64],
    candidates: &'a mut [Vec<Candidate>],
    thresholds: &'a mut [f64],
    /// The block's first point.
    start: usize,
    capacity: usize,
    k: usize,
    keys: &'a mut Vec<i64>,
}

/// The block's coordinates and the queries', in double or single precision.
enum Panels<'a> {
    Double { panel: &'a [f64], tiles: &'a [[f64; TILE_QUERIES]] },
    Single { panel: &'a [f32], halves: &'a [f32], tiles: &'a [[f32; TILE_QUERIES]] },
}

impl BlockState<'_> {
    /// Runs the kernel of `panels`' precision on `isa`: the candidates may differ between fused
    /// and separate multiply-adds, the bound holds for both.
    fn run(self, panels: Panels<'_>, isa: Isa) {
        match panels {
            Panels::Double { panel, tiles } => f64::dispatch(FilterBlock { block: self, panel, tiles }, isa),
            Panels::Single { panel, halves, tiles } => f32::dispatch(SingleBlock { block: self, panel, halves, tiles }, isa),
        }
    }
}

impl Kernel<f64> for FilterBlock<'_> {
    #[inline(always)]
    fn run<L: Lanes<f64>>(self, simd: L) {
        let Self {
            block: BlockState { width, norms, ids, max_norm, query_norms, candidates, thresholds, start, capacity, k, keys },
            panel,
            tiles,
        } = self;
        let d = panel.len() / width;
        let bound = error_bound(d);
        let lanes = L::LANES;
        let step = TILE_VECTORS * lanes;
        for (t, tile) in tiles.chunks_exact(d.max(1)).enumerate() {
            let rows = t * TILE_QUERIES..(t + 1) * TILE_QUERIES;
            let (query_norm, e_max, mut threshold) = tile_bounds(&query_norms[rows.clone()], &thresholds[rows.clone()], bound, max_norm);
            let (query_norm_v, e_max_v) = (query_norm.map(|v| simd.splat(v)), e_max.map(|v| simd.splat(v)));
            let mut threshold_v = threshold.map(|v| simd.splat(v));
            for j in (0..width).step_by(step) {
                let acc = tile_products(simd, panel, width, tile, j);
                // The vector test: `fl(fl(s − 2p) − e_max) ≤ threshold`, lane by lane.
                let norm: [L::V; TILE_VECTORS] = std::array::from_fn(|v| simd.load(&norms[j..j + step], v * lanes));
                let pass: [[L::M; TILE_VECTORS]; TILE_QUERIES] = std::array::from_fn(|r| {
                    std::array::from_fn(|v| {
                        let s = simd.add(query_norm_v[r], norm[v]);
                        let approx = simd.sub(s, simd.add(acc[r][v], acc[r][v]));
                        simd.less_or_equal(simd.sub(approx, e_max_v[r]), threshold_v[r])
                    })
                });
                // Most tiles hold no candidate once the thresholds are tight.
                if !any_pass(simd, &pass) {
                    continue;
                }
                for r in 0..TILE_QUERIES {
                    let list = &mut candidates[rows.start + r];
                    // `≤` above: a point tied with the threshold may still win on position.
                    visit(simd, &pass[r], &acc[r], |o, product| {
                        let p = j + o;
                        keep(list, product, query_norm[r] + norms[p], bound, threshold[r], start + p, ids[p]);
                    });
                    // A full list tightens the threshold at once.
                    if list.len() >= capacity {
                        threshold[r] = compact(list, k, keys);
                        threshold_v[r] = simd.splat(threshold[r]);
                    }
                }
            }
            thresholds[rows].copy_from_slice(&threshold);
        }
    }
}

/// The products of one register tile: the [`TILE_QUERIES`] queries of `tile` (`tile[c][r]`:
/// query r's coordinate c) with the points `j..j + TILE_VECTORS · L::LANES` of `panel` (`width`
/// per coordinate), as [`TILE_VECTORS`] vectors per query. One multiply-add per coordinate, in
/// coordinate order.
#[inline(always)]
fn tile_products<T: bytemuck::Pod, L: Lanes<T>>(
    simd: L,
    panel: &[T],
    width: usize,
    tile: &[[T; TILE_QUERIES]],
    j: usize,
) -> [[L::V; TILE_VECTORS]; TILE_QUERIES] {
    let [acc] = tiles_products(simd, panel, width, [tile], j);
    acc
}

/// [`tile_products`] of `N` tiles over the same points at once: each coordinate's point vectors
/// are loaded once for all of them, and the `N · TILE_QUERIES · TILE_VECTORS` accumulators are
/// independent chains (with AVX-512's 32 registers, two tiles keep 16 in flight, where one
/// tile's 8 leave the multiply-add units waiting on their latency). Every lane's product is the
/// same chain of multiply-adds, in coordinate order, whatever `N`.
#[inline(always)]
fn tiles_products<T: bytemuck::Pod, L: Lanes<T>, const N: usize>(
    simd: L,
    panel: &[T],
    width: usize,
    tiles: [&[[T; TILE_QUERIES]]; N],
    j: usize,
) -> [[[L::V; TILE_VECTORS]; TILE_QUERIES]; N] {
    let mut acc = [[[simd.splat(T::zeroed()); TILE_VECTORS]; TILE_QUERIES]; N];
    for (c, column) in panel.chunks_exact(width).enumerate() {
        let column = &column[j..j + TILE_VECTORS * L::LANES];
        let x: [L::V; TILE_VECTORS] = std::array::from_fn(|v| simd.load(column, v * L::LANES));
        for (acc, tile) in acc.iter_mut().zip(&tiles) {
            for (acc, &q) in acc.iter_mut().zip(&tile[c]) {
                let q = simd.splat(q);
                for (acc, &x) in acc.iter_mut().zip(&x) {
                    *acc = simd.mul_add(q, x, *acc);
                }
            }
        }
    }
    acc
}

/// Whether some lane of a tile's test passed.
#[inline(always)]
fn any_pass<T, L: Lanes<T>>(simd: L, pass: &[[L::M; TILE_VECTORS]; TILE_QUERIES]) -> bool {
    let mut any = pass[0][0];
    pass.iter().flatten().for_each(|&m| any = simd.or(any, m));
    simd.any(any)
}

/// The most lanes of a vector (AVX-512's sixteen `f32`).
const MAX_LANES: usize = 16;

/// Calls `f(o, product)` for every passing point of one query's test, in order: `o` its offset in
/// the tile's points, `product` its lane of `acc`. The products are written out once per query
/// whose test has a passing lane (one store per vector, not one per passing lane).
#[inline(always)]
fn visit<T: bytemuck::Pod, L: Lanes<T>>(simd: L, pass: &[L::M; TILE_VECTORS], acc: &[L::V; TILE_VECTORS], mut f: impl FnMut(usize, T)) {
    let bits: [u32; TILE_VECTORS] = std::array::from_fn(|v| simd.bits(pass[v]));
    if bits.iter().all(|&b| b == 0) {
        return;
    }
    let mut products = [T::zeroed(); TILE_VECTORS * MAX_LANES];
    for (v, &acc) in acc.iter().enumerate() {
        simd.store(acc, &mut products[v * L::LANES..]);
    }
    for (v, mut bits) in bits.into_iter().enumerate() {
        while bits != 0 {
            let o = v * L::LANES + bits.trailing_zeros() as usize;
            f(o, products[o]);
            bits &= bits - 1;
        }
    }
}

/// A tile's query norms, block bounds `e_max = e(‖q'‖² + max ‖x'‖²)` under `(relative,
/// absolute)`, and thresholds.
#[inline(always)]
fn tile_bounds(
    query_norms: &[f64],
    thresholds: &[f64],
    (relative, absolute): (f64, f64),
    max_norm: f64,
) -> ([f64; TILE_QUERIES], [f64; TILE_QUERIES], [f64; TILE_QUERIES]) {
    let query_norm: [f64; TILE_QUERIES] = std::array::from_fn(|r| query_norms[r]);
    let e_max = query_norm.map(|n| relative * (n + max_norm) + absolute);
    (query_norm, e_max, std::array::from_fn(|r| thresholds[r]))
}

/// Appends point `id` (the caller's `row`) to `list` if its own lower bound `fl(fl(s − 2p) − e(s))` is at most
/// `threshold` (`≤`: a point tied with the threshold may still win on position), `p` being its
/// product with the query and `s = fl(‖q'‖² + ‖x'‖²)`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn keep(list: &mut Vec<Candidate>, product: f64, s: f64, (relative, absolute): (f64, f64), threshold: f64, id: usize, row: u32) {
    let approx = s - 2.0 * product;
    let e = relative * s + absolute;
    let lower = approx - e;
    if lower <= threshold {
        list.push(Candidate { lower, upper: approx + e, id: id as u32, row });
    }
}

/// Centred coordinates up to this magnitude (2⁴⁰) use the single-precision kernel: their
/// products and sums stay far from `f32`'s overflow for any d the kernel takes.
const SINGLE_MAX: f64 = 1_099_511_627_776.0;

/// Whether centred coordinates `panels` (d of them per point) fit the single-precision kernel:
/// every one at most [`SINGLE_MAX`] in magnitude, and `d · 2⁻²⁴ ≤ 0.001` (see
/// [`single_error_bound`]).
fn single_fits(panels: &[f64], d: usize) -> bool {
    d <= 16_000 && panels.iter().all(|&v| v.abs() <= SINGLE_MAX)
}

/// `panels` (block by block, each by coordinate, as [`GemmPoints::panels`]) rounded to `f32` and
/// laid out by run of [`PANEL_PAD`] points, each run by coordinate (as [`GemmPoints::panels32`]).
fn runs(panels: &[f64], d: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; panels.len()];
    for (b, panel) in panels.chunks_exact((POINT_BLOCK * d).max(1)).enumerate() {
        let width = (n - b * POINT_BLOCK).min(POINT_BLOCK).next_multiple_of(PANEL_PAD);
        let block = &mut out[b * POINT_BLOCK * d..];
        for (c, column) in panel.chunks_exact(width).take(d).enumerate() {
            for (j, &v) in column.iter().enumerate() {
                block[(j / PANEL_PAD * d + c) * PANEL_PAD + j % PANEL_PAD] = v as f32;
            }
        }
    }
    out
}

/// The bound `e(s) = (2.1 (d + 3) · u₃₂ + (8d + 32) · u) · s + (d + 4) · 2⁻¹⁰²² + (4d + 8) · 2⁻¹⁴⁰`
/// on `|a − dist2(q, x)|` when the product `p` is computed in single precision (`u₃₂ = 2⁻²⁴`;
/// `a = fl(s − 2p)` in double precision, `s` as in [`error_bound`]).
///
/// Proof. As for [`error_bound`], with step 2 changed. The kernel rounds the centred coordinates
/// to `f32` (`q''_c = q'_c (1 + δ)`, `|δ| ≤ u₃₂`, plus at most 2⁻¹⁵⁰ below `f32`'s normal
/// range), and computes `p = fl₃₂(q''·x'')` by d multiply-adds in `f32`, fused or not. So
/// `|p − q''·x''| ≤ γ³²_d Σ|q''_c x''_c|`, `|q''·x'' − q'·x'| ≤ (2u₃₂ + u₃₂²) Σ|q'_c x'_c|`, and
/// with `d · u₃₂ ≤ 0.001`, `|2p − 2 q'·x'| ≤ 1.01 (d + 3) u₃₂ S`. The norms are the double-precision
/// ones, so `|a − D'| ≤ 1.01 (d + 3) u₃₂ S + (d + 4) u S` and, with steps 1 and 3 unchanged,
/// `|a − dist2| ≤ 1.01 (d + 3) u₃₂ S + (3d + 13) u S`. The factor 2.1 instead of 2.02 and 8d + 32
/// instead of 6d + 26 cover, as in [`error_bound`], the rounding of `a ± e` and `s ≥ (1 − γ_{d+1}) S`,
/// and leave `0.08 (d + 3) u₃₂ S` for the underflow of `f32` products relative to S; the last term
/// covers the rest of the underflow (at most 3d roundings of 2⁻¹⁵⁰ each, doubled). Overflow:
/// centred coordinates are at most [`SINGLE_MAX`] = 2⁴⁰, products and their sums at most
/// `d · 2⁸⁰ < 2¹²⁷`.
fn single_error_bound(d: usize) -> (f64, f64) {
    let relative = 2.1 * (d + 3) as f64 * f64::from(f32::EPSILON / 2.0) + (8 * d + 32) as f64 * (f64::EPSILON / 2.0);
    let absolute = (d + 4) as f64 * f64::MIN_POSITIVE + (4 * d + 8) as f64 * 2f64.powi(-140);
    (relative, absolute)
}

/// The single-precision kernel's bar for one query and block: a point `j` passes the vector
/// test when `fl₃₂(p − h_j) ≥ bar`, `h_j = fl₃₂(‖x'_j‖² / 2)`. Every point whose own lower bound
/// passes ([`keep`], with [`single_error_bound`]) passes it too.
///
/// Proof. Let `A = fl(s − 2p)`, `e = e(s)`. If `fl(A − e) ≤ t` then `A − e ≤ t + u |A − e|` and
/// `s − 2p ≤ A + u |s − 2p|`; with `e(s) ≤ e_max` (rounding is monotone and `s ≤ fl(‖q'‖² +
/// max ‖x'‖²)`), `s ≥ (1 − u)(‖q'‖² + ‖x'_j‖²)`, `|p| ≤ 0.52 (‖q'‖² + ‖x'_j‖²)` and
/// `|h_j − ‖x'_j‖²/2| ≤ u₃₂ ‖x'_j‖²/2 + 2⁻¹⁵⁰`:
/// `p − h_j ≥ (‖q'‖² − t − e_max)/2 − (u₃₂ max ‖x'‖²/2 + 4u (‖q'‖² + max ‖x'‖²) + u e_max + 2⁻¹⁵⁰)`.
/// The margin below covers that bracket and the rounding of its own double-precision
/// evaluation, and the bar is rounded down to `f32`: the exact `p − h_j` is at least the bar,
/// hence so is `fl₃₂(p − h_j)` (rounding is monotone and the bar is an `f32`). An infinite
/// threshold lets every point through (−∞), a threshold of −∞ none (+∞).
fn single_bar(query_norm: f64, threshold: f64, e_max: f64, max_norm: f64) -> f32 {
    if threshold == f64::INFINITY {
        return f32::NEG_INFINITY;
    }
    if threshold == f64::NEG_INFINITY {
        return f32::INFINITY;
    }
    let centre = ((query_norm - threshold) - e_max) / 2.0;
    let margin = (query_norm + max_norm) * 2f64.powi(-24) + (query_norm + threshold.abs() + e_max) * 2f64.powi(-48) + 2f64.powi(-140);
    let bar = centre - margin;
    let rounded = bar as f32;
    if f64::from(rounded) > bar { next_down(rounded) } else { rounded }
}

/// The largest `f32` below `x` (`x` itself for −∞ and NaN).
fn next_down(x: f32) -> f32 {
    if x.is_nan() || x == f32::NEG_INFINITY {
        x
    } else if x == 0.0 {
        -f32::from_bits(1)
    } else if x > 0.0 {
        f32::from_bits(x.to_bits() - 1)
    } else {
        f32::from_bits(x.to_bits() + 1)
    }
}

/// [`FilterBlock`] in single precision: the products of `f32` coordinates, eight lanes per AVX2
/// vector, tested against [`single_bar`] (one subtraction and one comparison per point); the
/// points that pass are checked against their own double-precision bounds ([`keep`], with
/// [`single_error_bound`]), so the candidates are exactly those of that plain test.
struct SingleBlock<'a> {
    block: BlockState<'a>,
    panel: &'a [f32],
    halves: &'a [f32],
    tiles: &'a [[f32; TILE_QUERIES]],
}

impl Kernel<f32> for SingleBlock<'_> {
    #[inline(always)]
    fn run<L: Lanes<f32>>(self, simd: L) {
        let Self {
            block: BlockState { width, norms, ids, max_norm, query_norms, candidates, thresholds, start, capacity, k, keys },
            panel,
            halves,
            tiles,
        } = self;
        let d = panel.len() / width;
        let bound = single_error_bound(d);
        let lanes = L::LANES;
        let step = TILE_VECTORS * lanes;
        // Every tile of a group against one run of `step` points, then the next run: the run's
        // coordinates are read by all the group's tiles while they are in cache (at d = 50 the
        // block's panel, 100 KiB, does not fit the L1 cache). Each query still meets the points
        // in order, so its candidates and compactions are those of a tile-by-tile sweep.
        for (g, group) in tiles.chunks((d * GROUP_TILES).max(1)).enumerate() {
            let first = g * GROUP_TILES * TILE_QUERIES;
            let mut state = [([0.0; TILE_QUERIES], [0.0; TILE_QUERIES], [0.0; TILE_QUERIES], [0.0f32; TILE_QUERIES]); GROUP_TILES];
            for (t, state) in state.iter_mut().enumerate().take(group.len() / d.max(1)) {
                let rows = first + t * TILE_QUERIES..first + (t + 1) * TILE_QUERIES;
                let (query_norm, e_max, threshold) = tile_bounds(&query_norms[rows.clone()], &thresholds[rows], bound, max_norm);
                let bar = std::array::from_fn(|r| single_bar(query_norm[r], threshold[r], e_max[r], max_norm));
                *state = (query_norm, e_max, threshold, bar);
            }
            // Two tiles at a time where the registers allow (16 lanes: AVX-512's 32 registers).
            let together = if lanes >= 16 { 2 } else { 1 };
            for j in (0..width).step_by(step) {
                let half: [L::V; TILE_VECTORS] = std::array::from_fn(|v| simd.load(&halves[j..j + step], v * lanes));
                // The run of `PANEL_PAD` points holding j..j + step (see `GemmPoints::panels32`).
                let (run, offset) = (&panel[j / PANEL_PAD * PANEL_PAD * d..][..PANEL_PAD * d], j % PANEL_PAD);
                for (p, tiles) in group.chunks((together * d).max(1)).enumerate() {
                    // The products of one or two tiles (the last of an odd group alone).
                    let (accs, count) = match tiles.split_at_checked(d) {
                        Some((a, b)) if together == 2 && b.len() == d => (tiles_products(simd, run, PANEL_PAD, [a, b], offset), 2),
                        _ => {
                            let none = [[simd.splat(0.0); TILE_VECTORS]; TILE_QUERIES];
                            ([tile_products(simd, run, PANEL_PAD, &tiles[..d], offset), none], 1)
                        }
                    };
                    for (i, acc) in accs.iter().take(count).enumerate() {
                        let t = p * together + i;
                        let (query_norm, e_max, threshold, bar) = &mut state[t];
                        let bar_v = bar.map(|v| simd.splat(v));
                        let pass: [[L::M; TILE_VECTORS]; TILE_QUERIES] =
                            std::array::from_fn(|r| std::array::from_fn(|v| simd.greater_or_equal(simd.sub(acc[r][v], half[v]), bar_v[r])));
                        // Most tiles hold no candidate once the thresholds are tight.
                        if !any_pass(simd, &pass) {
                            continue;
                        }
                        for r in 0..TILE_QUERIES {
                            let list = &mut candidates[first + t * TILE_QUERIES + r];
                            visit(simd, &pass[r], &acc[r], |o, product| {
                                let p = j + o;
                                keep(list, f64::from(product), query_norm[r] + norms[p], bound, threshold[r], start + p, ids[p]);
                            });
                            // A full list tightens the threshold at once.
                            if list.len() >= capacity {
                                threshold[r] = compact(list, k, keys);
                                bar[r] = single_bar(query_norm[r], threshold[r], e_max[r], max_norm);
                            }
                        }
                    }
                }
            }
            for (t, (_, _, threshold, _)) in state.iter().enumerate().take(group.len() / d.max(1)) {
                let rows = first + t * TILE_QUERIES..first + (t + 1) * TILE_QUERIES;
                thresholds[rows].copy_from_slice(threshold);
            }
        }
    }
}

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

    /// The keys `rank` sorts by: each value rounded down to the largest `f32` at or below it, and
    /// keys in the order of the values (signs, zeros, subnormals, infinities, beyond `f32`'s range).
    #[test]
    fn rank_keys_round_down_and_sort_as_the_values() {
        let tiny = f64::from(f32::from_bits(1));
        let mut values = vec![
            f64::NEG_INFINITY,
            -1e300,
            -3.5e38,
            -1.5,
            -1.0 - 1e-12,
            -tiny,
            -tiny / 3.0,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            tiny / 3.0,
            tiny,
            1.0 - 1e-12,
            1.0,
            1.0 + 1e-12,
            3.4e38,
            3.5e38,
            1e300,
            f64::INFINITY,
        ];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        values.extend((0..200).map(|_| (rng.random::<f64>() - 0.5) * 10f64.powi(rng.random_range(-50..50))));
        values.sort_by(f64::total_cmp);
        for pair in values.windows(2) {
            assert!(lower_key(pair[0]) <= lower_key(pair[1]), "{} {}", pair[0], pair[1]);
        }
        for &x in &values {
            let below = key_value(lower_key(x));
            assert!(below <= x, "{x}: {below}");
            // The largest `f32` at or below x: the next one up is above it.
            let up = f64::from(if below == f64::from(f32::MAX) { f32::INFINITY } else { f32::from_bits(next_up_bits(below as f32)) });
            assert!(x == f64::INFINITY || up > x, "{x}: {below}, next {up}");
        }
    }

    /// The bits of the smallest `f32` above a finite `x`.
    fn next_up_bits(x: f32) -> u32 {
        if x == 0.0 {
            1
        } else if x > 0.0 {
            x.to_bits() + 1
        } else {
            x.to_bits() - 1
        }
    }

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
                // The filter on the widest instruction set, on pulp's (AVX2 where the widest is
                // AVX-512), and one lane at a time; a full block of queries and a partial one.
                for (range, isa) in [0..QUERY_BLOCK, QUERY_BLOCK..40]
                    .into_iter()
                    .flat_map(|range| [Isa::Widest, Isa::Pulp, Isa::Baseline].map(|isa| (range.clone(), isa)))
                {
                    scratch.isa = isa;
                    points.nearest_block(&query, range.clone(), k, None, &mut scratch);
                    let w = scratch.width;
                    for (b, i) in range.enumerate() {
                        let want = reference(&x, d, query(i), k);
                        assert_eq!(scratch.lists[b * w..(b + 1) * w], want, "seed={seed} d={d} n={n} k={k} i={i} isa={isa:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_double_precision_kernel_lists_equal_the_exact_order() {
        // Points spread beyond `SINGLE_MAX` around their mean use the double-precision kernel;
        // queries beyond it, with points within, too (for their block only).
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(59);
        let mut scratch = GemmScratch::default();
        for seed in 0..8usize {
            let d = [1, 3, 10, 17][seed % 4];
            let n = [600, 1100][seed % 2];
            let scale = if seed < 4 { 1e13 } else { 1.0 };
            let x: Vec<f64> = adversarial(&mut rng, n, d, seed).iter().map(|v| v * scale).collect();
            let queries: Vec<f64> = adversarial(&mut rng, 40, d, seed + 1).iter().map(|v| v * 1e13).collect();
            let points = GemmPoints::new(x.clone(), d);
            assert_eq!(points.panels32.is_empty(), seed < 4, "seed={seed}");
            let query = |i: usize| &queries[i * d..(i + 1) * d];
            for k in [1, 7, 300] {
                for isa in [Isa::Widest, Isa::Pulp, Isa::Baseline] {
                    scratch.isa = isa;
                    points.nearest_block(&query, 0..QUERY_BLOCK, k, None, &mut scratch);
                    let w = scratch.width;
                    for i in 0..QUERY_BLOCK {
                        assert_eq!(scratch.lists[i * w..(i + 1) * w], reference(&x, d, query(i), k), "seed={seed} k={k} i={i}");
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

    /// The lists of `points` for queries `range` (ids of `x`, `query(i)` the coordinates), from
    /// the first, a middle and the last block and with no start, checked against the reference.
    fn check_against_reference(
        points: &GemmPoints,
        x: &[f64],
        d: usize,
        queries: &[f64],
        k: usize,
        scratch: &mut GemmScratch,
        context: &str,
    ) {
        let n = x.len() / d;
        let n_queries = queries.len() / d;
        let query = |i: usize| &queries[i * d..(i + 1) * d];
        for near in [Some(0), Some(n / 2), Some(n - 1), None] {
            for range in [0..QUERY_BLOCK.min(n_queries), QUERY_BLOCK.min(n_queries)..n_queries] {
                points.nearest_block(&query, range.clone(), k, near, scratch);
                let w = scratch.width;
                assert_eq!(w, k.min(n));
                for (b, i) in range.enumerate() {
                    assert_eq!(scratch.lists[b * w..(b + 1) * w], reference(x, d, query(i), k), "{context} k={k} near={near:?} i={i}");
                }
            }
        }
    }

    #[test]
    fn lists_at_fifty_dimensions_with_concentrated_distances_and_ties_equal_the_exact_order() {
        // d = 50: uniform points (distances concentrate: many candidates pass the filter, and
        // their bounds overlap), exact duplicates, copies with coordinates permuted (distances
        // to the centre equal up to rounding) and points on a grid around the centre (distances
        // exactly equal); queries among the points and at the centre. Seeded and unseeded, every
        // instruction set: the lists, ties and order included, are the reference's.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(71);
        let mut scratch = GemmScratch::default();
        let d = 50;
        for (seed, n) in [3000usize, 1700].into_iter().enumerate() {
            let mut x: Vec<f64> = Vec::with_capacity(n * d);
            for j in 0..n {
                match (j + seed) % 5 {
                    1 if j > 0 => {
                        let src = rng.random_range(0..j);
                        x.extend_from_within(src * d..(src + 1) * d);
                    }
                    2 if j > 0 => {
                        let src = rng.random_range(0..j);
                        let mut row = x[src * d..(src + 1) * d].to_vec();
                        row.rotate_left(rng.random_range(1..d));
                        x.extend(row);
                    }
                    3 => x.extend((0..d).map(|_| if rng.random::<bool>() { 0.25 } else { 0.75 })),
                    _ => x.extend((0..d).map(|_| rng.random::<f64>())),
                }
            }
            let mut queries: Vec<f64> = x[..40 * d].to_vec();
            queries.extend(std::iter::repeat_n(0.5, 3 * d));
            let order = super::super::neighbors::spatial_order(&x, d, n);
            let sampled = GemmPoints::in_order_sampled(&x, d, order, 0);
            let plain = GemmPoints::new(x.clone(), d);
            for isa in [Isa::Widest, Isa::Pulp, Isa::Baseline] {
                scratch.isa = isa;
                for k in [1, 7, 64, 199, 305] {
                    let context = format!("n={n} isa={isa:?}");
                    check_against_reference(&sampled, &x, d, &queries, k, &mut scratch, &context);
                    check_against_reference(&plain, &x, d, &queries, k, &mut scratch, &context);
                }
            }
        }
    }

    #[test]
    fn seeded_lists_equal_the_exact_order() {
        // Points with a sample (its size threshold bypassed), adversarial and uniform, queries
        // among the points (as the shared table's) and elsewhere: the same lists as the
        // reference, and seeds used for every k from `SEED_MIN_K` on.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(61);
        let mut scratch = GemmScratch::default();
        for seed in 0..8usize {
            let d = [2, 10, 24, 3][seed % 4];
            let n = [3000, 4100][seed % 2];
            let x = match seed < 4 {
                true => adversarial(&mut rng, n, d, seed),
                false => (0..n * d).map(|_| rng.random::<f64>()).collect(),
            };
            let order = super::super::neighbors::spatial_order(&x, d, n);
            let points = GemmPoints::in_order_sampled(&x, d, order.clone(), 0);
            assert_eq!(points.sample.as_ref().map(|s| s.n), Some(n.div_ceil(SAMPLE_STRIDE)));
            // Spatial neighbours (a table block's rows), and arbitrary points.
            let mut queries: Vec<f64> =
                order[700..700 + QUERY_BLOCK].iter().flat_map(|&i| x[i as usize * d..(i as usize + 1) * d].to_vec()).collect();
            queries.extend((0..9 * d).map(|_| rng.random::<f64>()));
            for k in [1, 32, 64, 150] {
                let before = scratch.seeded_queries;
                check_against_reference(&points, &x, d, &queries, k, &mut scratch, &format!("seed={seed} d={d} n={n}"));
                assert_eq!(scratch.seeded_queries > before, k >= SEED_MIN_K, "seed={seed} k={k}");
            }
        }
        assert!(scratch.reruns < scratch.seeded_queries / 4, "reruns {} of {}", scratch.reruns, scratch.seeded_queries);
    }

    #[test]
    fn a_seed_below_the_kth_distance_is_searched_again() {
        // Seeds from the nearest sample point only: mostly below the k-th distance, so most
        // queries must be searched again; the lists are still exact.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(67);
        let mut scratch = GemmScratch { seed_count: Some(1), ..GemmScratch::default() };
        for seed in 0..4usize {
            let d = [2, 10][seed % 2];
            let n = 3000;
            let x = match seed < 2 {
                true => adversarial(&mut rng, n, d, seed),
                false => (0..n * d).map(|_| rng.random::<f64>()).collect(),
            };
            let order = super::super::neighbors::spatial_order(&x, d, n);
            let points = GemmPoints::in_order_sampled(&x, d, order, 0);
            let queries: Vec<f64> = (0..40 * d).map(|_| rng.random::<f64>()).collect();
            let reruns = scratch.reruns;
            check_against_reference(&points, &x, d, &queries, 100, &mut scratch, &format!("seed={seed} d={d}"));
            assert!(scratch.reruns > reruns, "seed={seed}: no query was searched again");
        }
    }

    /// The share of queries whose seed falls below their k-th distance (searched again), on
    /// uniform points, every point a query, in the shared table's order. Not a check; run with
    /// `cargo test --release -p agghoo --lib seed_failure_rate -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn seed_failure_rate() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(71);
        for (n, d) in [(100_000usize, 10usize), (40_000, 10), (40_000, 6), (40_000, 20)] {
            let x: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>()).collect();
            let order = super::super::neighbors::spatial_order(&x, d, n);
            let points = GemmPoints::in_order(&x, d, order.clone());
            let rows = |p: usize| &x[order[p] as usize * d..(order[p] as usize + 1) * d];
            for k in [32, 100, 343, 1000] {
                let mut scratch = GemmScratch::default();
                for start in (0..n).step_by(QUERY_BLOCK) {
                    points.nearest_block(&rows, start..(start + QUERY_BLOCK).min(n), k, Some(start), &mut scratch);
                }
                let rate = scratch.reruns as f64 / scratch.seeded_queries as f64;
                println!("n={n} d={d} k={k}: {} of {} seeded queries searched again ({rate:.2e})", scratch.reruns, scratch.seeded_queries);
            }
        }
    }

    #[test]
    fn the_single_precision_runs_hold_every_point_s_centred_coordinates() {
        // Blocks full and partial (the last one padded), d from 1 to 50: coordinate c of point p,
        // read from its run of `PANEL_PAD` points, is the double-precision panel's rounded to
        // `f32`; padding points are zeros.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(79);
        for (n, d) in [(1usize, 1usize), (31, 3), (33, 10), (512, 7), (1100, 50)] {
            let x: Vec<f64> = (0..n * d).map(|_| rng.random::<f64>()).collect();
            let points = GemmPoints::new(x, d);
            for p in 0..n.next_multiple_of(PANEL_PAD) {
                let (b, j) = (p / POINT_BLOCK, p % POINT_BLOCK);
                let block = &points.panels32[b * POINT_BLOCK * d..];
                let stored: Vec<f32> = (0..d).map(|c| block[(j / PANEL_PAD * d + c) * PANEL_PAD + j % PANEL_PAD]).collect();
                let expected: Vec<f32> = match p < n {
                    true => centered(&points, p).iter().map(|&v| v as f32).collect(),
                    false => vec![0.0; d],
                };
                assert_eq!(stored, expected, "n={n} d={d} p={p}");
            }
        }
    }

    /// Point p's centred coordinates, read back from the panels.
    fn centered(points: &GemmPoints, p: usize) -> Vec<f64> {
        let (b, j, d) = (p / POINT_BLOCK, p % POINT_BLOCK, points.d);
        let width = (points.n - b * POINT_BLOCK).min(POINT_BLOCK).next_multiple_of(PANEL_PAD);
        (0..d).map(|c| points.panels[b * POINT_BLOCK * d + c * width + j]).collect()
    }

    /// The candidates [`FilterBlock`] (or [`SingleBlock`]) keeps for query `q` among the first
    /// block of `points` (no compaction), on instruction set `isa`.
    fn filter_candidates(points: &GemmPoints, q: &[f64], threshold: f64, isa: Isa, single: bool) -> Vec<Candidate> {
        let d = points.d;
        let width = points.n.min(POINT_BLOCK).next_multiple_of(PANEL_PAD);
        let mut tiles = vec![[0.0; TILE_QUERIES]; d];
        q.iter().zip(&points.mean).enumerate().for_each(|(c, (v, m))| tiles[c][0] = v - m);
        let mut query_norms = vec![0.0; TILE_QUERIES];
        query_norms[0] = tiles.iter().map(|t| t[0] * t[0]).sum();
        let mut thresholds = vec![f64::NEG_INFINITY; TILE_QUERIES];
        thresholds[0] = threshold;
        let mut candidates = vec![Vec::new(); TILE_QUERIES];
        let tiles32: Vec<[f32; TILE_QUERIES]> = tiles.iter().map(|t| t.map(|v| v as f32)).collect();
        let block = BlockState {
            width,
            norms: &points.norms[..width],
            ids: &points.ids[..width],
            max_norm: points.block_max[0],
            query_norms: &query_norms,
            candidates: &mut candidates,
            thresholds: &mut thresholds,
            start: 100,
            capacity: usize::MAX,
            k: 1,
            keys: &mut Vec::new(),
        };
        let panels = match single {
            true => Panels::Single { panel: &points.panels32[..width * d], halves: &points.halves[..width], tiles: &tiles32 },
            false => Panels::Double { panel: &points.panels[..width * d], tiles: &tiles },
        };
        block.run(panels, isa);
        assert!(candidates[1..].iter().all(Vec::is_empty), "padding queries never keep a point");
        candidates.swap_remove(0)
    }

    #[test]
    fn the_vector_filter_keeps_exactly_the_points_of_the_plain_test() {
        // Products and norms from adversarial points, thresholds equal to some point's own lower
        // bound (the `≤` edge), blocks with and without padding. One lane at a time the products
        // are multiplications and additions in coordinate order; on the widest instruction set
        // they may be fused multiply-adds: the candidates are those of the plain test with one
        // or the other, and include every point whose exact distance is at most the threshold.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(53);
        for seed in 0..30usize {
            let d = [1, 3, 10, 50][seed % 4];
            let n = [7, 16, 200, 512][seed % 4];
            let x = adversarial(&mut rng, n + 1, d, seed);
            let (q, x) = x.split_at(d);
            let points = GemmPoints::new(x.to_vec(), d);
            let qc: Vec<f64> = q.iter().zip(&points.mean).map(|(v, m)| v - m).collect();
            let query_norm: f64 = qc.iter().map(|v| v * v).sum();
            // The double- and the single-precision kernel, each with its products and bound.
            for single in [false, true] {
                let bound = if single { single_error_bound(d) } else { error_bound(d) };
                let lower = |j: usize, fused: bool| {
                    let xc = centered(&points, j);
                    let product = if single {
                        let pairs = qc.iter().zip(&xc).map(|(&a, &b)| (a as f32, b as f32));
                        f64::from(pairs.fold(0.0f32, |acc, (a, b)| if fused { a.mul_add(b, acc) } else { a * b + acc }))
                    } else {
                        qc.iter().zip(&xc).fold(0.0f64, |acc, (a, b)| if fused { a.mul_add(*b, acc) } else { a * b + acc })
                    };
                    let s = query_norm + points.norms[j];
                    (s - 2.0 * product) - (bound.0 * s + bound.1)
                };
                let plain = |threshold: f64, fused: bool| -> Vec<u32> {
                    (0..n).filter(|&j| lower(j, fused) <= threshold).map(|j| (100 + j) as u32).collect()
                };
                let mut thresholds = vec![f64::INFINITY, f64::NEG_INFINITY, -1.0, 0.0, 1e300];
                for j in [0, n / 3, n / 2, n - 1] {
                    thresholds.extend([lower(j, false), lower(j, true)]);
                }
                for threshold in thresholds {
                    let ids = |c: Vec<Candidate>| c.iter().map(|c| c.id).collect::<Vec<_>>();
                    let context = format!("seed={seed} single={single} threshold={threshold}");
                    assert_eq!(ids(filter_candidates(&points, q, threshold, Isa::Baseline, single)), plain(threshold, false), "{context}");
                    let widest = ids(filter_candidates(&points, q, threshold, Isa::Widest, single));
                    assert!(widest == plain(threshold, false) || widest == plain(threshold, true), "{context}");
                    // AVX-512 and AVX2 compute the same fused products: the same candidates.
                    assert_eq!(widest, ids(filter_candidates(&points, q, threshold, Isa::Pulp, single)), "{context}");
                    for j in (0..n).filter(|&j| dist2(q, &x[j * d..(j + 1) * d]) <= threshold) {
                        assert!(widest.contains(&((100 + j) as u32)), "{context} j={j}");
                    }
                }
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
                let xc = &centered(&points, j);
                // The kernel's two products (multiply-adds in coordinate order, fused or not), and
                // the reverse order.
                let fused = qc.iter().zip(xc).fold(0.0f64, |acc, (a, b)| a.mul_add(*b, acc));
                let reverse = qc.iter().zip(xc).rev().map(|(a, b)| a * b).sum();
                let pairs = || qc.iter().zip(xc).map(|(&a, &b)| (a as f32, b as f32));
                let single = [
                    f64::from(pairs().fold(0.0f32, |acc, (a, b)| a.mul_add(b, acc))),
                    f64::from(pairs().fold(0.0f32, |acc, (a, b)| a * b + acc)),
                ];
                let products = [qc.iter().zip(xc).map(|(a, b)| a * b).sum::<f64>(), fused, reverse].map(|p| (p, false));
                for (product, is_single) in products.into_iter().chain(single.map(|p| (p, true))) {
                    let s = qn + points.norms[j];
                    let approx = s - 2.0 * product;
                    let (relative, absolute) = if is_single { single_error_bound(d) } else { (relative, absolute) };
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
