//! `exp` as straight-line IEEE arithmetic, so that a loop calling it vectorises.
//!
//! libm's `exp` is a function call per value; a loop over a slice that calls [`exp`] instead
//! compiles to vector code (four values per instruction with AVX2, when the loop is compiled for
//! it through `pulp::Arch::dispatch`). Every operation is a plain IEEE addition, subtraction,
//! multiplication, division, comparison or bit move on each value — no fused multiply-add (Rust
//! never contracts `a * b + c`), no table, no reduction across values — so the vector code and the
//! scalar code give the same bits for every input.
//!
//! The algorithm is fdlibm's `__ieee754_exp` without its branches: `k = round(x / ln 2)` (by adding
//! and subtracting 1.5·2⁵², which rounds to the nearest integer), `r = x − k ln 2` in two parts
//! (`ln 2` split so that `k · LN2_HI` is exact), `exp(r)` from fdlibm's rational approximation on
//! `|r| ≤ ln 2 / 2`, then the product with `2^k`, applied as two exact powers of two
//! `2^⌊k/2⌉ · 2^(k − ⌊k/2⌉)` so that results below 2⁻¹⁰²² round once into the subnormals and
//! results above `f64::MAX` become `+∞`.
//!
//! Accuracy, measured against the standard library's `exp` (glibc) on 1.2·10⁷ points (uniform on
//! [−745.2, 0], [−40, 0], [−1, 0] and [−709.7, 709.7], plus the edges below): at most 1 unit in
//! the last place apart, and at most one unit of 2⁻¹⁰⁷⁴ apart among subnormal results; `exp(0) =
//! 1`, `exp(−∞) = 0`, `exp(+∞) = +∞`, `NaN` gives `NaN`, `x < −745.14` gives 0, `x > 709.79` gives
//! `+∞` — all as libm. The test `matches_std_within_one_ulp` repeats the measurement.

/// `ln 2`, high part: its low 21 bits are zero, so `k · LN2_HI` is exact for `|k| < 2²¹`.
const LN2_HI: f64 = 6.931_471_803_691_238e-1;
/// `ln 2 − LN2_HI`.
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
const INV_LN2: f64 = std::f64::consts::LOG2_E;
/// fdlibm's coefficients of `R(r²)` in `exp(r) = 1 + 2r / (R(r²) − r)`, `R(z) = 2 + P1 z + P2 z² + …`.
const P1: f64 = 1.666_666_666_666_660_2e-1;
const P2: f64 = -2.777_777_777_701_559_3e-3;
const P3: f64 = 6.613_756_321_437_934e-5;
const P4: f64 = -1.653_390_220_546_525_2e-6;
const P5: f64 = 4.138_136_797_057_238_5e-8;
/// 1.5·2⁵²: `(v + SHIFT) − SHIFT` rounds `v` (|v| < 2⁵¹) to the nearest integer, ties to even,
/// and the low bits of `v + SHIFT` are that integer in two's complement.
const SHIFT: f64 = 6_755_399_441_055_744.0;

/// `eˣ`, within 1 ulp of the correctly rounded value (see the module documentation); inlined into
/// the caller's loop so that it vectorises there.
#[inline(always)]
pub(in crate::family) fn exp(x: f64) -> f64 {
    // Beyond these limits the result is 0 or +∞ anyway; NaN stays NaN (a comparison with NaN is
    // false).
    let x = if x < -746.0 { -746.0 } else { x };
    let x = if x > 710.0 { 710.0 } else { x };
    let shifted = x * INV_LN2 + SHIFT;
    let k = shifted - SHIFT;
    let hi = x - k * LN2_HI;
    let lo = k * LN2_LO;
    let r = hi - lo;
    let r2 = r * r;
    let c = r - r2 * (P1 + r2 * (P2 + r2 * (P3 + r2 * (P4 + r2 * P5))));
    let y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi);
    // 2^k as 2^k1 · 2^k2, k1 = round(k / 2) in [−538, 512]: both are normal numbers, and the two
    // products are exact except for the last, which rounds once into the subnormals or overflows.
    let shifted1 = k * 0.5 + SHIFT;
    let k1 = shifted1 - SHIFT;
    let shifted2 = (k - k1) + SHIFT;
    y * power_of_two(shifted1) * power_of_two(shifted2)
}

/// `2^j` from `j + SHIFT` (j an integer in [−1022, 1023]): `j + 1023` written into the exponent
/// field (its low 12 bits are those of `j + 1023`, since SHIFT's low 52 bits are 2⁵¹).
#[inline(always)]
fn power_of_two(shifted: f64) -> f64 {
    f64::from_bits(shifted.to_bits().wrapping_add(1023) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `out[i] = exp(x[i])`, compiled for the widest instruction set pulp finds (AVX2 on x86-64
    /// where present) — the shape of every caller's loop.
    struct ExpAll<'a>(&'a [f64], &'a mut [f64]);

    impl ExpAll<'_> {
        #[inline(always)]
        fn run(self) {
            self.1.iter_mut().zip(self.0).for_each(|(o, &x)| *o = exp(x));
        }
    }

    impl pulp::WithSimd for ExpAll<'_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _simd: S) {
            self.run();
        }
    }

    fn inputs() -> Vec<f64> {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut x: Vec<f64> = (0..12_000_000)
            .map(|i| {
                let u = uniform();
                match i % 4 {
                    0 => -745.2 * u,
                    1 => -40.0 * u,
                    2 => -u,
                    _ => 709.7 * (2.0 * u - 1.0),
                }
            })
            .collect();
        x.extend(EDGES);
        x
    }

    const EDGES: [f64; 25] = [
        0.0,
        -0.0,
        5e-324,
        -5e-324,
        1e-300,
        -1e-300,
        0.346_573_590_279_972_64,
        -0.346_573_590_279_972_64,
        -708.396_418_532_264_1,
        -708.4,
        -709.0,
        -740.0,
        -745.133_219_101_941_1,
        -745.133_219_101_941_2,
        -745.2,
        -746.0,
        -800.0,
        709.782_712_893_384,
        709.782_712_893_384_1,
        710.0,
        f64::MAX,
        f64::MIN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];

    #[test]
    fn matches_std_within_one_ulp() {
        let x = inputs();
        let mut worst = (0.0_f64, 0.0);
        for &v in &x {
            let (ours, std) = (exp(v), v.exp());
            if std.is_nan() {
                assert!(ours.is_nan(), "exp({v:e}) = {ours:e}, not NaN");
                continue;
            }
            if std.is_infinite() || std == 0.0 || ours == 0.0 {
                // 0 and +∞ exactly where libm has them, or a subnormal neighbour of 0.
                assert!(ours == std || (ours - std).abs() <= 5e-324, "exp({v:e}) = {ours:e}, std {std:e}");
                continue;
            }
            // Distance in units of the spacing of doubles at std's magnitude (2⁻¹⁰⁷⁴ among the
            // subnormals).
            let ulp = if std < f64::MIN_POSITIVE { 5e-324 } else { f64::from_bits(std.to_bits() + 1) - std };
            let error = (ours - std).abs() / ulp;
            if error > worst.0 {
                worst = (error, v);
            }
        }
        assert!(worst.0 <= 1.0, "largest difference {} ulp at x = {:e}", worst.0, worst.1);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(exp(f64::NEG_INFINITY), 0.0);
        assert_eq!(exp(f64::INFINITY), f64::INFINITY);
        assert_eq!(exp(-745.2), 0.0);
        assert_eq!(exp(709.8), f64::INFINITY);
    }

    #[test]
    fn vector_code_gives_the_scalar_bits() {
        let x = inputs();
        let mut vector = vec![0.0; x.len()];
        pulp::Arch::new().dispatch(ExpAll(&x, &mut vector));
        let mut scalar = vec![0.0; x.len()];
        ExpAll(&x, &mut scalar).run();
        for ((v, s), x) in vector.iter().zip(&scalar).zip(&x) {
            assert_eq!(v.to_bits(), s.to_bits(), "exp({x:e}): vector {v:e}, scalar {s:e}");
        }
        // The one-at-a-time call agrees too.
        for (s, &x) in scalar.iter().zip(&x).step_by(997) {
            assert_eq!(s.to_bits(), exp(x).to_bits());
        }
    }
}
