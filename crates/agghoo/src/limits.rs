//! Limits on every size a user types: counts (grid points, splits, trees, threads, ...) and a
//! memory budget for the main allocations, checked **before** allocating.
//!
//! A typo in a count (`--splits 1000000000`, a log grid of 10⁸ points, `trees=1e8`) must fail at
//! once with [`Error::ResourceLimit`] stating the estimate and how to raise the limit, instead of
//! allocating until the machine dies. Two kinds of checks exist:
//!
//! - **counts** ([`Count`]): a documented cap per kind of count, far above any sensible use
//!   (the papers' experiments use at most a few hundred grid points and a few thousand splits);
//! - **memory** ([`Limits::check_memory`]): the bytes of the main allocation a request implies
//!   (data matrix, split index sets, path predictions `splits × grid × validation rows`, forest
//!   nodes, kernel matrices, neighbour lists), compared with [`Limits::max_memory`].
//!
//! Estimates count the dominant buffers only (not allocator overhead, not small per-row
//! vectors): they are meant to catch orders of magnitude, not to predict the peak to the byte.
//!
//! The limits in force are process-wide ([`Limits::global`]), set once by the program
//! ([`Limits::set_global`], the CLI's `--max-memory` and `--limit`): the library functions that
//! allocate by a user-given size consult them, so every entry point is covered without threading
//! a value through every signature (the rejected alternative: a `&Limits` argument on dozens of
//! public functions, most of which only forward it). Functions that take their own budget
//! (the feature searches) document it.

use std::fmt;
use std::sync::RwLock;

use crate::error::{Error, Result};

/// A kind of count with its own cap (see [`Limits`] for the defaults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// Points of a hyperparameter grid (`--grid`, `log:LOW:HIGH:N`, TreeCV's λ grid).
    GridPoints,
    /// Splits of a resampling plan (folds × repeats, Monte-Carlo V, bootstrap B, leave-p-out
    /// subsets, leave-one-out n), inner or outer.
    Splits,
    /// Worker threads (`--threads`).
    Threads,
    /// Trees of a random forest (`--param trees=B`).
    Trees,
    /// Centres of online k-means (`--centres`).
    Centres,
    /// Repetitions of an experiment (`reproduce --reps`).
    Repetitions,
    /// Subset evaluations of a feature search (SFS, SBS, SFFS, SBFS, exhaustive).
    SubsetEvaluations,
    /// Levels (distinct values) of one categorical column.
    Levels,
}

impl Count {
    /// Every kind, in documentation order.
    pub const ALL: [Count; 8] = [
        Count::GridPoints,
        Count::Splits,
        Count::Threads,
        Count::Trees,
        Count::Centres,
        Count::Repetitions,
        Count::SubsetEvaluations,
        Count::Levels,
    ];

    /// The key of `--limit KEY=N`.
    pub fn key(self) -> &'static str {
        match self {
            Count::GridPoints => "grid-points",
            Count::Splits => "splits",
            Count::Threads => "threads",
            Count::Trees => "trees",
            Count::Centres => "centres",
            Count::Repetitions => "repetitions",
            Count::SubsetEvaluations => "subset-evaluations",
            Count::Levels => "levels",
        }
    }
    /// What is counted, in words.
    fn noun(self) -> &'static str {
        match self {
            Count::GridPoints => "grid points",
            Count::Splits => "splits",
            Count::Threads => "threads",
            Count::Trees => "trees",
            Count::Centres => "centres",
            Count::Repetitions => "repetitions",
            Count::SubsetEvaluations => "subset evaluations",
            Count::Levels => "levels",
        }
    }
}

/// The limits in force: a cap per [`Count`] and a memory budget in bytes.
///
/// The defaults ([`Limits::DEFAULT`]) refuse only requests far beyond the papers' experiments
/// and the documented examples:
///
/// | limit | default | CLI |
/// |---|---|---|
/// | memory of the main allocations | 8 GiB | `--max-memory SIZE` |
/// | grid points | 100 000 | `--limit grid-points=N` |
/// | splits (each plan) | 100 000 | `--limit splits=N` |
/// | threads | 1024 | `--limit threads=N` |
/// | forest trees | 100 000 | `--limit trees=N` |
/// | k-means centres | 100 000 | `--limit centres=N` |
/// | experiment repetitions | 100 000 | `--limit repetitions=N` |
/// | feature-search subset evaluations | 2²⁰ = 1 048 576 | `--limit subset-evaluations=N` |
/// | levels of one categorical column | 10 000 | `--limit levels=N` |
/// | LibSVM dense bytes per file byte | 100 | `--limit libsvm-expansion=N` |
///
/// ```
/// use agghoo::limits::{Count, Limits};
/// let limits = Limits::default();
/// assert!(limits.check_count(Count::Splits, 1_000, "Monte-Carlo splits").is_ok());
/// let err = limits.check_count(Count::Splits, 1_000_000_000, "Monte-Carlo splits").unwrap_err();
/// assert!(err.to_string().contains("--limit splits=N"));
/// assert!(limits.check_memory("a 10⁵ × 10⁵ kernel matrix", Limits::f64_bytes([100_000, 100_000])).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Memory budget of one allocation estimate, in bytes.
    pub max_memory: u64,
    /// Cap on grid points.
    pub grid_points: u64,
    /// Cap on the splits of one plan.
    pub splits: u64,
    /// Cap on worker threads.
    pub threads: u64,
    /// Cap on forest trees.
    pub trees: u64,
    /// Cap on k-means centres.
    pub centres: u64,
    /// Cap on experiment repetitions.
    pub repetitions: u64,
    /// Cap on the subset evaluations of a feature search.
    pub subset_evaluations: u64,
    /// Cap on the levels of one categorical column.
    pub levels: u64,
    /// A LibSVM file may expand to at most this many bytes of dense storage per byte of file
    /// (files up to 8 MiB dense are always accepted).
    pub libsvm_expansion: u64,
}

static GLOBAL: RwLock<Limits> = RwLock::new(Limits::DEFAULT);

/// Dense LibSVM sizes up to this many bytes are accepted whatever the file's size.
pub const LIBSVM_MIN_DENSE_BYTES: u64 = 8 << 20;

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl Limits {
    /// The documented defaults (see the table on [`Limits`]).
    pub const DEFAULT: Limits = Limits {
        max_memory: 8 << 30,
        grid_points: 100_000,
        splits: 100_000,
        threads: 1024,
        trees: 100_000,
        centres: 100_000,
        repetitions: 100_000,
        subset_evaluations: 1 << 20,
        levels: 10_000,
        libsvm_expansion: 100,
    };

    /// The limits in force in this process ([`Limits::DEFAULT`] unless [`Limits::set_global`]
    /// was called).
    pub fn global() -> Limits {
        match GLOBAL.read() {
            Ok(l) => *l,
            Err(poisoned) => *poisoned.into_inner(),
        }
    }

    /// Makes `self` the limits every library function consults from now on.
    pub fn set_global(self) {
        match GLOBAL.write() {
            Ok(mut l) => *l = self,
            Err(poisoned) => *poisoned.into_inner() = self,
        }
    }

    /// The cap on `count`.
    pub fn cap(&self, count: Count) -> u64 {
        match count {
            Count::GridPoints => self.grid_points,
            Count::Splits => self.splits,
            Count::Threads => self.threads,
            Count::Trees => self.trees,
            Count::Centres => self.centres,
            Count::Repetitions => self.repetitions,
            Count::SubsetEvaluations => self.subset_evaluations,
            Count::Levels => self.levels,
        }
    }

    /// Sets a limit by its `--limit` key (`grid-points`, `splits`, `threads`, `trees`, `centres`,
    /// `repetitions`, `subset-evaluations`, `levels`, `libsvm-expansion`) from `N` (an integer, or `1e6`).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for an unknown key or a value that is not a positive integer.
    pub fn set(&mut self, key: &str, value: &str) -> Result<()> {
        let n = parse_count(value)
            .filter(|&n| n > 0)
            .ok_or_else(|| Error::invalid("limit", "KEY=N with N a positive integer", format!("{key}={value}")))?;
        if key == "libsvm-expansion" {
            self.libsvm_expansion = n;
            return Ok(());
        }
        let count = Count::ALL.into_iter().find(|c| c.key() == key).ok_or_else(|| {
            Error::invalid(
                "limit",
                "one of grid-points, splits, threads, trees, centres, repetitions, subset-evaluations, levels, libsvm-expansion",
                key,
            )
        })?;
        match count {
            Count::GridPoints => self.grid_points = n,
            Count::Splits => self.splits = n,
            Count::Threads => self.threads = n,
            Count::Trees => self.trees = n,
            Count::Centres => self.centres = n,
            Count::Repetitions => self.repetitions = n,
            Count::SubsetEvaluations => self.subset_evaluations = n,
            Count::Levels => self.levels = n,
        }
        Ok(())
    }

    /// Checks `requested` against the cap on `count`; `what` says what asked for it.
    ///
    /// # Errors
    /// [`Error::ResourceLimit`] naming the request, the cap and the `--limit` key that raises it.
    pub fn check_count(&self, count: Count, requested: u128, what: impl fmt::Display) -> Result<()> {
        let cap = self.cap(count);
        if requested <= u128::from(cap) {
            return Ok(());
        }
        Err(Error::limit(
            format!("{what}"),
            format!("{requested} {}", count.noun()),
            format!("{cap} {}", count.noun()),
            format!("raise it with `--limit {}=N` (library: `Limits::{}`)", count.key(), count.key().replace('-', "_")),
        ))
    }

    /// Checks an estimate of `bytes` against the memory budget; `what` names the allocation.
    ///
    /// # Errors
    /// [`Error::ResourceLimit`] stating the estimate, the budget and `--max-memory`.
    pub fn check_memory(&self, what: impl fmt::Display, bytes: u128) -> Result<()> {
        if bytes <= u128::from(self.max_memory) {
            return Ok(());
        }
        Err(Error::limit(
            format!("{what}"),
            format_bytes(bytes),
            format!("{} of memory", format_bytes(u128::from(self.max_memory))),
            "raise it with `--max-memory SIZE`, e.g. `--max-memory 32G` (library: `Limits::max_memory`)",
        ))
    }

    /// The text of the file at `path`, read whole (a spec, a report), within the memory budget:
    /// a larger file — or an endless one, such as a device or a pipe — is refused after reading
    /// at most one byte beyond the budget.
    ///
    /// # Errors
    /// [`Error::Io`] naming `path` (missing, unreadable, not UTF-8); [`Error::ResourceLimit`]
    /// naming `path` and its size when it is beyond the budget.
    pub fn read_text(&self, path: &std::path::Path) -> Result<String> {
        use std::io::Read;
        let io = |source| Error::Io { path: path.into(), source };
        let file = std::fs::File::open(path).map_err(io)?;
        if let Ok(meta) = file.metadata() {
            self.check_memory(format!("reading the file {} ({} bytes)", path.display(), meta.len()), u128::from(meta.len()))?;
        }
        let mut text = String::new();
        file.take(self.max_memory.saturating_add(1)).read_to_string(&mut text).map_err(io)?;
        let read = text.len() as u128;
        self.check_memory(format!("reading the file {} (at least {read} bytes: read no further)", path.display()), read)?;
        Ok(text)
    }

    /// Bytes of an array of `f64` with the given dimensions (saturating, never overflowing).
    pub fn f64_bytes<const N: usize>(dims: [usize; N]) -> u128 {
        product(dims.map(|d| d as u128)).saturating_mul(8)
    }
}

/// The product of `factors`, saturating at `u128::MAX`.
pub fn product<const N: usize>(factors: [u128; N]) -> u128 {
    factors.into_iter().fold(1u128, u128::saturating_mul)
}

/// Checks a count against the global limits ([`Limits::global`]).
///
/// # Errors
/// As [`Limits::check_count`].
pub fn check_count(count: Count, requested: u128, what: impl fmt::Display) -> Result<()> {
    Limits::global().check_count(count, requested, what)
}

/// Checks a memory estimate against the global limits ([`Limits::global`]).
///
/// # Errors
/// As [`Limits::check_memory`].
pub fn check_memory(what: impl fmt::Display, bytes: u128) -> Result<()> {
    Limits::global().check_memory(what, bytes)
}

/// The text of the file at `path`, read whole (a spec, a report), within the memory budget of
/// the global limits ([`Limits::read_text`]).
///
/// # Errors
/// As [`Limits::read_text`].
pub fn read_text(path: &std::path::Path) -> Result<String> {
    Limits::global().read_text(path)
}

/// Parses a memory size: bytes, or a number with a binary suffix `K`, `M`, `G`, `T` (optionally
/// followed by `B` or `iB`, any case): `8G`, `512MiB`, `1.5g`, `1000000`.
///
/// ```
/// assert_eq!(agghoo::limits::parse_size("8G")?, 8 << 30);
/// assert_eq!(agghoo::limits::parse_size("1.5k")?, 1536);
/// assert!(agghoo::limits::parse_size("lots").is_err());
/// # Ok::<(), agghoo::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidParameter`] for anything else, zero, or a size beyond 2⁶⁴ bytes.
pub fn parse_size(text: &str) -> Result<u64> {
    let bad = || Error::invalid("max-memory", "a size such as 8G, 512M or 1000000 (bytes)", text);
    let lower = text.trim().to_ascii_lowercase();
    let unit_start = lower.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(lower.len());
    let (number, unit) = lower.split_at(unit_start);
    let shift = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(bad()),
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    let bytes = value * (1u64 << shift) as f64;
    if !(bytes >= 1.0 && bytes < u64::MAX as f64) {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// Parses a count written as an integer or in scientific notation (`1e6`); `None` for anything
/// else, a fraction or a negative value.
pub fn parse_count(text: &str) -> Option<u64> {
    let text = text.trim();
    if let Ok(n) = text.parse::<u64>() {
        return Some(n);
    }
    let v: f64 = text.parse().ok()?;
    (v >= 0.0 && v.fract() == 0.0 && v < u64::MAX as f64).then_some(v as u64)
}

/// A byte count for messages: `512 B`, `1.5 KiB`, `8.0 GiB`, `3.2 EiB`.
pub fn format_bytes(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file within the budget is read whole; a larger one, or an endless one, is a resource
    /// error naming the file and its size, read no further than one byte beyond the budget.
    #[test]
    fn a_file_beyond_the_memory_budget_is_refused_by_name_and_size() {
        let path = std::env::temp_dir().join(format!("agghoo-read-text-{}.json", std::process::id()));
        std::fs::write(&path, "x".repeat(2000)).unwrap();
        let small = Limits { max_memory: 1024, ..Limits::DEFAULT };
        assert_eq!(Limits::DEFAULT.read_text(&path).unwrap().len(), 2000);
        let e = small.read_text(&path).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, Error::ResourceLimit { .. }) && text.contains(&path.display().to_string()) && text.contains("2000 bytes"),
            "{text}"
        );
        std::fs::remove_file(&path).ok();
        let endless = std::path::Path::new("/dev/zero");
        if endless.exists() {
            let text = small.read_text(endless).unwrap_err().to_string();
            assert!(text.contains("/dev/zero") && text.contains("at least 1025 bytes"), "{text}");
        }
        assert!(matches!(Limits::DEFAULT.read_text(std::path::Path::new("/no/such/spec.json")), Err(Error::Io { .. })));
    }

    #[test]
    fn counts_within_the_cap_pass_and_beyond_it_fail_with_the_key() {
        let limits = Limits::default();
        for count in Count::ALL {
            let cap = limits.cap(count);
            assert!(limits.check_count(count, u128::from(cap), "x").is_ok());
            let err = limits.check_count(count, u128::from(cap) + 1, "x").unwrap_err();
            let text = err.to_string();
            assert!(matches!(err, Error::ResourceLimit { .. }), "{text}");
            assert!(text.contains(&format!("--limit {}=N", count.key())), "{text}");
        }
    }

    #[test]
    fn memory_estimates_saturate_instead_of_overflowing() {
        let huge = Limits::f64_bytes([usize::MAX, usize::MAX, 3]);
        assert_eq!(huge, u128::MAX);
        let err = Limits::default().check_memory("a huge matrix", huge).unwrap_err();
        assert!(err.to_string().contains("--max-memory"), "{err}");
        assert!(Limits::default().check_memory("a small matrix", Limits::f64_bytes([1000, 1000])).is_ok());
    }

    #[test]
    fn limits_are_set_by_key() {
        let mut limits = Limits::default();
        limits.set("splits", "1e6").unwrap();
        assert_eq!(limits.splits, 1_000_000);
        limits.set("libsvm-expansion", "5").unwrap();
        assert_eq!(limits.libsvm_expansion, 5);
        assert!(limits.set("split", "10").is_err());
        assert!(limits.set("trees", "0").is_err());
        assert!(limits.set("trees", "1.5").is_err());
    }

    #[test]
    fn sizes_parse_with_binary_units() {
        assert_eq!(parse_size("8G").unwrap(), 8 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("2t").unwrap(), 2 << 40);
        assert_eq!(parse_size("1000").unwrap(), 1000);
        for bad in ["", "G", "-1G", "0", "8X", "1e30G", "nan"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(format_bytes(8 << 30), "8.0 GiB");
        assert_eq!(format_bytes(100), "100 B");
    }
}
