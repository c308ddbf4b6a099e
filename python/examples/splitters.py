"""agghoo's splitters are scikit-learn cross-validators: the same seed gives the same index sets
as the CLI (`agghoo splits --plan mc --splits 5 --tau 0.7 --seed 3`)."""

from sklearn.datasets import load_diabetes
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score

from agghoo import MonteCarloSplit, VFold

X, y = load_diabetes(return_X_y=True)
for cv in (MonteCarloSplit(5, 0.7, random_state=3), VFold(5, random_state=3)):
    scores = cross_val_score(Ridge(alpha=1.0), X, y, cv=cv)
    print(f"{cv!r}: R² {scores.mean():.3f} ± {scores.std():.3f}")
