"""Reference values for crates/agghoo/src/estimate/compare.rs (run once; the Rust tests never run Python).

Prints scipy.stats.t.cdf at the test points, the t quantiles used, and ln Γ(100.5).
"""
import scipy
from scipy import stats, special

print("scipy", scipy.__version__)
print("ppf(0.975, 5)  =", repr(stats.t.ppf(0.975, 5)))
print("ppf(0.975, 9)  =", repr(stats.t.ppf(0.975, 9)))
print("ppf(0.975, 10) =", repr(stats.t.ppf(0.975, 10)))
for t, df in [(-1.5, 7.3), (0.3, 30.0), (-4.0, 3.0), (1.0, 200.0)]:
    print(f"cdf({t}, {df}) =", repr(stats.t.cdf(t, df)))
print("gammaln(100.5) =", repr(special.gammaln(100.5)))
