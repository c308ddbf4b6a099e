"""Reference values for crates/agghoo/tests/svm.rs::ovo_agrees_with_scikit_learn, computed ONCE
with scikit-learn and pasted into the test (the Rust tests do not need Python).

Data (exact in both languages, same expressions): 60 training rows, i = 0..59, class i % 3,
u = ((37 i) mod 61) / 61, v = ((53 i) mod 67) / 67, x = (cx + 2u - 1, cy + 2v - 1) around the
centres (0, 0), (1.2, 0.3), (0.4, 1.1); 30 test rows x = (-1 + 0.5 (j mod 6), -1 + 0.6 (j div 6)).
SVC(kernel="rbf", gamma=0.5, C=C, tol=1e-10, decision_function_shape="ovo") for C = 1 and 20:
predicted labels and LIBSVM's one-vs-one decision values (pairs (0,1), (0,2), (1,2), positive
for the first class of the pair).

Run: .venv/bin/python bench/peers/svc_ovo_reference.py
"""
import numpy as np
import sklearn
from sklearn.svm import SVC

centres = [(0.0, 0.0), (1.2, 0.3), (0.4, 1.1)]
x, y = [], []
for i in range(60):
    c = i % 3
    u = ((37 * i) % 61) / 61.0
    v = ((53 * i) % 67) / 67.0
    x.append((centres[c][0] + 2.0 * u - 1.0, centres[c][1] + 2.0 * v - 1.0))
    y.append(c)
x, y = np.array(x), np.array(y)
test = np.array([(-1.0 + (j % 6) * 0.5, -1.0 + (j // 6) * 0.6) for j in range(30)])
print(f"// scikit-learn {sklearn.__version__}")
for c in [1.0, 20.0]:
    m = SVC(kernel="rbf", gamma=0.5, C=c, tol=1e-10, decision_function_shape="ovo").fit(x, y)
    print(f"// C = {c}")
    print("labels:", "[" + ", ".join(str(v) for v in m.predict(test)) + "]")
    dec = m.decision_function(test)
    print("decisions:", "[" + ", ".join("[" + ", ".join(f"{v:.9}" for v in row) + "]" for row in dec) + "]")
    print("min |decision|:", np.abs(dec).min())
