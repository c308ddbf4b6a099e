"""Reference mutual-information values for crates/agghoo/tests/features.rs (run once; the Rust
tests never run Python). Data are closed-form so both languages build identical inputs:
    x_i = sin(1.3 i + 0.5),  z_i = cos(0.37 i^2 + 1),  i = 0..n-1
    y_i = x_i + 0.5 z_i                       (regression target)
    c_i = 1 if x_i + 0.3 cos(2.1 i) > 0 else 0  (binary target)
    t_i = floor(3 (sin(1.3 i + 0.5 + 0.4 cos(0.9 i)) + 1) / 2.0001)  (three levels, used as a discrete feature)
scikit-learn adds 1e-10-scale jitter to continuous inputs; with these tie-free data it does not
change the neighbour counts, so the values agree to rounding.
"""
import numpy as np, sklearn
from sklearn.feature_selection import mutual_info_regression, mutual_info_classif

n = 80
i = np.arange(n, dtype=float)
x = np.sin(1.3 * i + 0.5)
z = np.cos(0.37 * i * i + 1.0)
y = x + 0.5 * z
c = (x + 0.3 * np.cos(2.1 * i) > 0).astype(int)
t = np.floor(3 * (np.sin(1.3 * i + 0.5 + 0.4 * np.cos(0.9 * i)) + 1) / 2.0001)
X = np.column_stack([x, z])
print("sklearn", sklearn.__version__, "n", n)
print("mi_regression_k3 (x, z; y) =", list(mutual_info_regression(X, y, n_neighbors=3, random_state=0)))
print("mi_classif_k3 (x, z; c) =", list(mutual_info_classif(X, c, n_neighbors=3, random_state=0)))
print("mi_regression_discrete_k3 (t; y) =", list(mutual_info_regression(t.reshape(-1, 1), y, discrete_features=True, n_neighbors=3, random_state=0)))
print("mi_classif_discrete (t; c) =", list(mutual_info_classif(t.reshape(-1, 1), c, discrete_features=True, random_state=0)))
