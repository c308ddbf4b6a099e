//! The few dense kernels ridge needs, on faer, always sequential (`Par::Seq`).
//!
//! Sequential on purpose: [`crate::select::evaluate_splits`] already runs one split per rayon
//! task, and faer's parallel algorithms would (a) oversubscribe the cores and (b) make the
//! bit-exact result depend on the thread count, which the crate promises it does not.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt;
use faer::linalg::evd::{self, ComputeEigenvectors};
use faer::{Accum, Conj, Mat, MatMut, MatRef, Par};

use crate::error::{Error, Result};

/// `a · b`.
pub(in crate::family) fn mul(a: MatRef<'_, f64>, b: MatRef<'_, f64>) -> Mat<f64> {
    let mut out = Mat::zeros(a.nrows(), b.ncols());
    product(out.as_mut(), Accum::Replace, a, b, 1.0);
    out
}

/// `out = alpha · a · b` (`Accum::Replace`) or `out += alpha · a · b` (`Accum::Add`): faer's
/// sequential product, followed by [`clear_upper_simd_state`]. Every product in the families goes
/// through here, so scalar code after it never pays the AVX–SSE transition.
pub(in crate::family) fn product(out: MatMut<'_, f64>, accum: Accum, a: MatRef<'_, f64>, b: MatRef<'_, f64>, alpha: f64) {
    faer::linalg::matmul::matmul(out, accum, a, b, alpha, Par::Seq);
    clear_upper_simd_state();
}

/// `out += a · b` on the part of `out` that `structure` names (e.g. its upper triangle, for a
/// symmetric product such as `XᵀX`: about half the flops of a full one); the rest of `out` is
/// neither read nor written. faer's sequential triangular product, followed by
/// [`clear_upper_simd_state`] as in [`product`].
pub(in crate::family) fn triangular_product(
    out: MatMut<'_, f64>,
    structure: faer::linalg::matmul::triangular::BlockStructure,
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
) {
    use faer::linalg::matmul::triangular::{BlockStructure::Rectangular, matmul};
    matmul(out, structure, Accum::Add, a, Rectangular, b, Rectangular, 1.0, Par::Seq);
    clear_upper_simd_state();
}

/// Marks the upper halves of the vector registers clean (`vzeroupper`) after faer's wide-SIMD
/// kernels, before scalar code that calls into libm. Every faer call in this module ends with it
/// (products, the eigendecomposition and the Cholesky solve).
///
/// faer's AVX-512 matrix kernels return with the upper register state dirty; glibc's `exp` and
/// `log` wrappers are SSE-encoded, and every call then pays a state-transition stall (measured: a
/// softmax sweep after a product ran 20× slower, nearly all of it in `exp`). A no-op where AVX is
/// absent or the target is not x86-64. Results are unchanged: only the time is.
fn clear_upper_simd_state() {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: AVX is available (checked just above). `vzeroupper` zeroes bits 128 and up of the
        // vector registers; across this call boundary no value lives there (the System V ABI
        // makes all vector registers caller-saved), and the compiler models the intrinsic.
        unsafe { zero_upper() }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn zero_upper() {
    std::arch::x86_64::_mm256_zeroupper();
}

/// Bytes of the workspace [`symmetric_eigen`] takes for an `n × n` matrix (saturating).
pub(in crate::family) fn eigen_workspace(n: usize) -> u128 {
    if n > 1 << 24 {
        return u128::MAX;
    }
    evd::self_adjoint_evd_scratch::<f64>(n, ComputeEigenvectors::Yes, Par::Seq, Default::default()).unaligned_bytes_required() as u128
}

/// Symmetric eigendecomposition of `a` (its lower triangle is read): eigenvalues ascending and
/// the orthonormal eigenvectors as columns.
///
/// # Errors
/// [`Error::Numerical`] when the QR iteration does not converge (non-finite input).
pub(in crate::family) fn symmetric_eigen(a: MatRef<'_, f64>) -> Result<(Vec<f64>, Mat<f64>)> {
    let n = a.nrows();
    let mut vectors = Mat::zeros(n, n);
    let mut values = faer::diag::Diag::zeros(n);
    let mut buffer = workspace(evd::self_adjoint_evd_scratch::<f64>(n, ComputeEigenvectors::Yes, Par::Seq, Default::default()), n)?;
    evd::self_adjoint_evd(a, values.as_mut(), Some(vectors.as_mut()), Par::Seq, MemStack::new(&mut buffer), Default::default())
        .map_err(|e| Error::Numerical(format!("ridge: symmetric eigendecomposition of a {n}×{n} matrix failed ({e:?})")))?;
    clear_upper_simd_state();
    let values = (0..n).map(|k| values[k]).collect();
    Ok((values, vectors))
}

/// faer's workspace for a factorisation of an `n × n` matrix, a [`Error::ResourceLimit`] when
/// it cannot be allocated (instead of faer's panic).
fn workspace(req: StackReq, n: usize) -> Result<MemBuffer> {
    MemBuffer::try_new(req).map_err(|_| {
        Error::limit(
            format!("the workspace of a factorisation of a {n} × {n} matrix"),
            crate::limits::format_bytes(req.size_bytes() as u128),
            "the memory available",
            "the allocation failed: free memory, or lower `--max-memory` so that the run is refused before it starts",
        )
    })
}

/// Solves `a x = rhs` for symmetric positive definite `a` (lower triangle read) by Cholesky.
///
/// # Errors
/// [`Error::Numerical`] naming the pivot when `a` is not numerically positive definite.
pub(in crate::family) fn cholesky_solve(a: MatRef<'_, f64>, rhs: MatRef<'_, f64>) -> Result<Mat<f64>> {
    let n = a.nrows();
    let mut factor = a.to_owned();
    let mut buffer = workspace(llt::factor::cholesky_in_place_scratch::<f64>(n, Par::Seq, Default::default()), n)?;
    llt::factor::cholesky_in_place(factor.as_mut(), Default::default(), Par::Seq, MemStack::new(&mut buffer), Default::default())
        .map_err(|e| Error::Numerical(format!("ridge: the {n}×{n} system is not positive definite ({e:?})")))?;
    let mut x = rhs.to_owned();
    let mut empty = MemBuffer::new(StackReq::EMPTY);
    llt::solve::solve_in_place_with_conj(factor.as_ref(), Conj::No, x.as_mut(), Par::Seq, MemStack::new(&mut empty));
    clear_upper_simd_state();
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eigen_and_cholesky_on_a_hand_example() {
        // [[2, 1], [1, 2]]: eigenvalues 1, 3; solving against (3, 3) gives (1, 1).
        let a = Mat::from_fn(2, 2, |i, j| if i == j { 2.0 } else { 1.0 });
        let (values, vectors) = symmetric_eigen(a.as_ref()).unwrap();
        assert!((values[0] - 1.0).abs() < 1e-15 && (values[1] - 3.0).abs() < 1e-15);
        assert!((vectors[(0, 1)].abs() - 0.5f64.sqrt()).abs() < 1e-15);
        let x = cholesky_solve(a.as_ref(), Mat::from_fn(2, 1, |_, _| 3.0).as_ref()).unwrap();
        assert!((x[(0, 0)] - 1.0).abs() < 1e-15 && (x[(1, 0)] - 1.0).abs() < 1e-15);
        let singular = Mat::from_fn(2, 2, |_, _| 1.0);
        assert!(matches!(cholesky_solve(singular.as_ref(), x.as_ref()), Err(Error::Numerical(_))));
        let product = mul(a.as_ref(), x.as_ref());
        assert!((product[(0, 0)] - 3.0).abs() < 1e-14 && (product[(1, 0)] - 3.0).abs() < 1e-14);
    }
}
