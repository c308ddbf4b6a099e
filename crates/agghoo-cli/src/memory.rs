//! Resident memory of this process, from Linux's `/proc/self` (`None` elsewhere or when the
//! files cannot be read): what `agghoo treecv` reports as the run's peak memory.

use serde::Serialize;

/// Memory around one run: the resident set before it and its high-water mark during it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RunMemory {
    /// Resident bytes just before the run (the data, chunked, included).
    pub before_bytes: u64,
    /// Peak resident bytes during the run (`VmHWM`, reset just before it).
    pub peak_bytes: u64,
}

impl RunMemory {
    /// Peak minus before: what the run itself added (models, logs, buffers, thread stacks).
    pub fn added_bytes(&self) -> u64 {
        self.peak_bytes.saturating_sub(self.before_bytes)
    }
}

/// A `kB` field of `/proc/self/status`, in bytes.
fn status_field(name: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// Runs `f`, measuring the peak resident memory during it: the high-water mark is reset first
/// (writing `5` to `/proc/self/clear_refs`, Linux ≥ 4.0). `None` when that is not possible.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Option<RunMemory>) {
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let before = status_field("VmRSS");
    let out = f();
    let memory = match (reset, before, status_field("VmHWM")) {
        (true, Some(before_bytes), Some(peak_bytes)) => Some(RunMemory { before_bytes, peak_bytes: peak_bytes.max(before_bytes) }),
        _ => None,
    };
    (out, memory)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_allocates_raises_the_peak_by_about_that_much() {
        let (_, memory) = measure(|| {
            let block = vec![1u8; 64 << 20];
            std::hint::black_box(&block);
        });
        // Only where /proc is available (Linux); elsewhere there is nothing to check.
        if let Some(m) = memory {
            assert!(m.added_bytes() >= 60 << 20, "{m:?}");
            assert!(m.added_bytes() < 200 << 20, "{m:?}");
        }
    }
}
