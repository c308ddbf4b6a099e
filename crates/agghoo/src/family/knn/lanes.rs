//! The vector operations of the product kernels ([`super::gemm`]), on one instruction set.
//!
//! [`Pulp`] wraps any of `pulp`'s instruction sets (AVX2 with fused multiply-adds, or one lane at
//! a time); [`Avx512`] is AVX-512F, written here with `core::arch` because `pulp` offers it only
//! behind a crate-wide feature that would also switch faer's own kernels (and with them the
//! ridge and kernel families' last bits). Both compute every product with the same operations in
//! the same order (one fused multiply-add per coordinate where the processor has them), so the
//! AVX2 and AVX-512 kernels keep the same candidates; a test compares them.

use pulp::bytemuck;

/// A kernel written once for every instruction set: `run` is inlined into a copy compiled for
/// the instruction set of `lanes`.
pub(super) trait Kernel<T> {
    fn run<L: Lanes<T>>(self, lanes: L);
}

/// Which instruction set the kernels run on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code, reason = "only tests pick a narrower instruction set"))]
pub(crate) enum Isa {
    /// The widest the processor has: AVX-512F, else `pulp`'s choice (AVX2 with fused
    /// multiply-adds, else one lane).
    #[default]
    Widest,
    /// `pulp`'s choice, never AVX-512 (tests compare it with the widest).
    Pulp,
    /// One lane at a time, without fused multiply-adds (tests of the fallback path).
    Baseline,
}

/// Runs a [`Kernel`] of this float type on an [`Isa`].
pub(super) trait Dispatch: Sized {
    fn dispatch<K: Kernel<Self>>(kernel: K, isa: Isa);
}

/// `impl Dispatch` for a float type (the same code; `pulp`'s operation needs the type named).
macro_rules! dispatch {
    ($float:ty) => {
        impl Dispatch for $float {
            fn dispatch<K: Kernel<$float>>(kernel: K, isa: Isa) {
                struct OnPulp<K>(K);
                impl<K: Kernel<$float>> pulp::WithSimd for OnPulp<K> {
                    type Output = ();
                    #[inline(always)]
                    fn with_simd<S: pulp::Simd>(self, simd: S) {
                        self.0.run(Pulp(simd))
                    }
                }
                #[cfg(target_arch = "x86_64")]
                if let (Isa::Widest, Some(avx512)) = (isa, Avx512::detect()) {
                    return avx512.run(kernel);
                }
                match isa {
                    Isa::Baseline => pulp::WithSimd::with_simd(OnPulp(kernel), pulp::Scalar),
                    Isa::Widest | Isa::Pulp => pulp::Arch::new().dispatch(OnPulp(kernel)),
                }
            }
        }
    };
}
dispatch!(f64);
dispatch!(f32);

/// Vectors of `T` with the operations the kernels use.
pub(super) trait Lanes<T>: Copy {
    /// Values per vector.
    const LANES: usize;
    /// A vector of [`LANES`](Self::LANES) values.
    type V: Copy;
    /// One truth value per lane.
    type M: Copy;
    fn splat(self, value: T) -> Self::V;
    /// The vector `values[at..at + LANES]`.
    fn load(self, values: &[T], at: usize) -> Self::V;
    /// `a · b + c`, fused where the instruction set has it.
    fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    fn sub(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a ≥ b` lane by lane (false where either is NaN).
    fn greater_or_equal(self, a: Self::V, b: Self::V) -> Self::M;
    /// `a ≤ b` lane by lane (false where either is NaN).
    fn less_or_equal(self, a: Self::V, b: Self::V) -> Self::M;
    fn or(self, a: Self::M, b: Self::M) -> Self::M;
    /// Whether some lane is true.
    fn any(self, m: Self::M) -> bool;
    /// Bit l set where lane l is true.
    fn bits(self, m: Self::M) -> u32;
    /// Writes the lanes of `v` to `out[..LANES]`.
    fn store(self, v: Self::V, out: &mut [T]);
}

/// One of `pulp`'s instruction sets.
#[derive(Clone, Copy)]
pub(super) struct Pulp<S>(pub(super) S);

/// `impl Lanes` on `pulp` for a float type from the names of its `pulp` operations (the two
/// impls differ only in those names).
macro_rules! pulp_lanes {
    ($float:ty, $lanes:ident, $v:ident, $m:ident, $splat:ident, $as_simd:ident, $mul_add:ident, $add:ident, $sub:ident,
     $ge:ident, $le:ident, $or:ident, $first_true:ident) => {
        impl<S: pulp::Simd> Lanes<$float> for Pulp<S> {
            const LANES: usize = S::$lanes;
            type V = S::$v;
            type M = S::$m;
            #[inline(always)]
            fn splat(self, value: $float) -> S::$v {
                self.0.$splat(value)
            }
            #[inline(always)]
            fn load(self, values: &[$float], at: usize) -> S::$v {
                S::$as_simd(&values[at..at + S::$lanes]).0[0]
            }
            #[inline(always)]
            fn mul_add(self, a: S::$v, b: S::$v, c: S::$v) -> S::$v {
                self.0.$mul_add(a, b, c)
            }
            #[inline(always)]
            fn add(self, a: S::$v, b: S::$v) -> S::$v {
                self.0.$add(a, b)
            }
            #[inline(always)]
            fn sub(self, a: S::$v, b: S::$v) -> S::$v {
                self.0.$sub(a, b)
            }
            #[inline(always)]
            fn greater_or_equal(self, a: S::$v, b: S::$v) -> S::$m {
                self.0.$ge(a, b)
            }
            #[inline(always)]
            fn less_or_equal(self, a: S::$v, b: S::$v) -> S::$m {
                self.0.$le(a, b)
            }
            #[inline(always)]
            fn or(self, a: S::$m, b: S::$m) -> S::$m {
                self.0.$or(a, b)
            }
            #[inline(always)]
            fn any(self, m: S::$m) -> bool {
                self.0.$first_true(m) < S::$lanes
            }
            #[inline(always)]
            fn bits(self, m: S::$m) -> u32 {
                // The low byte of each lane's mask, visited in order.
                let mask: &[u8] = bytemuck::cast_slice(std::slice::from_ref(&m));
                let stride = mask.len() / S::$lanes;
                (0..S::$lanes).fold(0u32, |bits, l| bits | u32::from(mask[l * stride] != 0) << l)
            }
            #[inline(always)]
            fn store(self, v: S::$v, out: &mut [$float]) {
                out[..S::$lanes].copy_from_slice(bytemuck::cast_slice::<S::$v, $float>(std::slice::from_ref(&v)));
            }
        }
    };
}
pulp_lanes!(
    f64,
    F64_LANES,
    f64s,
    m64s,
    splat_f64s,
    as_simd_f64s,
    mul_add_e_f64s,
    add_f64s,
    sub_f64s,
    greater_than_or_equal_f64s,
    less_than_or_equal_f64s,
    or_m64s,
    first_true_m64s
);
pulp_lanes!(
    f32,
    F32_LANES,
    f32s,
    m32s,
    splat_f32s,
    as_simd_f32s,
    mul_add_e_f32s,
    add_f32s,
    sub_f32s,
    greater_than_or_equal_f32s,
    less_than_or_equal_f32s,
    or_m32s,
    first_true_m32s
);

/// AVX-512F, sixteen `f32` or eight `f64` lanes. A value exists only where the processor has
/// AVX-512F ([`Avx512::detect`]): that is what makes the `unsafe` blocks below sound.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(super) struct Avx512(());

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// The instruction set, if the processor has it.
    pub(super) fn detect() -> Option<Self> {
        std::arch::is_x86_feature_detected!("avx512f").then_some(Self(()))
    }

    /// Runs `kernel` compiled for AVX-512F.
    #[inline(always)]
    fn run<T, K: Kernel<T>>(self, kernel: K)
    where
        Self: Lanes<T>,
    {
        #[target_feature(enable = "avx512f")]
        fn imp<T, K: Kernel<T>>(isa: Avx512, kernel: K)
        where
            Avx512: Lanes<T>,
        {
            kernel.run(isa)
        }
        // SAFETY: `self` exists only if the processor has AVX-512F (`detect`).
        unsafe { imp(self, kernel) }
    }
}

/// `impl Lanes` on AVX-512F for a float type from its vector type and the names of its
/// intrinsics.
macro_rules! avx512_lanes {
    ($float:ty, $lanes:expr, $v:ident, $m:ident, $set1:ident, $loadu:ident, $fmadd:ident, $add:ident, $sub:ident, $cmp:ident) => {
        #[cfg(target_arch = "x86_64")]
        impl Lanes<$float> for Avx512 {
            const LANES: usize = $lanes;
            type V = std::arch::x86_64::$v;
            type M = std::arch::x86_64::$m;
            // SAFETY (every block below): a value of `Avx512` proves AVX-512F is available; the
            // loads read `LANES` values of a slice checked to hold them.
            #[inline(always)]
            fn splat(self, value: $float) -> Self::V {
                unsafe { std::arch::x86_64::$set1(value) }
            }
            #[inline(always)]
            fn load(self, values: &[$float], at: usize) -> Self::V {
                let values = &values[at..at + $lanes];
                unsafe { std::arch::x86_64::$loadu(values.as_ptr()) }
            }
            #[inline(always)]
            fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V {
                unsafe { std::arch::x86_64::$fmadd(a, b, c) }
            }
            #[inline(always)]
            fn add(self, a: Self::V, b: Self::V) -> Self::V {
                unsafe { std::arch::x86_64::$add(a, b) }
            }
            #[inline(always)]
            fn sub(self, a: Self::V, b: Self::V) -> Self::V {
                unsafe { std::arch::x86_64::$sub(a, b) }
            }
            #[inline(always)]
            fn greater_or_equal(self, a: Self::V, b: Self::V) -> Self::M {
                unsafe { std::arch::x86_64::$cmp::<{ std::arch::x86_64::_CMP_GE_OQ }>(a, b) }
            }
            #[inline(always)]
            fn less_or_equal(self, a: Self::V, b: Self::V) -> Self::M {
                unsafe { std::arch::x86_64::$cmp::<{ std::arch::x86_64::_CMP_LE_OQ }>(a, b) }
            }
            #[inline(always)]
            fn or(self, a: Self::M, b: Self::M) -> Self::M {
                a | b
            }
            #[inline(always)]
            fn any(self, m: Self::M) -> bool {
                m != 0
            }
            #[inline(always)]
            fn bits(self, m: Self::M) -> u32 {
                u32::from(m)
            }
            #[inline(always)]
            fn store(self, v: Self::V, out: &mut [$float]) {
                // SAFETY: a vector is `LANES` floats; every bit pattern is a float.
                let lanes: [$float; $lanes] = unsafe { std::mem::transmute::<Self::V, [$float; $lanes]>(v) };
                out[..$lanes].copy_from_slice(&lanes);
            }
        }
    };
}
avx512_lanes!(
    f64,
    8,
    __m512d,
    __mmask8,
    _mm512_set1_pd,
    _mm512_loadu_pd,
    _mm512_fmadd_pd,
    _mm512_add_pd,
    _mm512_sub_pd,
    _mm512_cmp_pd_mask
);
avx512_lanes!(
    f32,
    16,
    __m512,
    __mmask16,
    _mm512_set1_ps,
    _mm512_loadu_ps,
    _mm512_fmadd_ps,
    _mm512_add_ps,
    _mm512_sub_ps,
    _mm512_cmp_ps_mask
);
