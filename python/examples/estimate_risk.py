"""The risk of one rule with its standard error: 10-fold CV, exact closed-form leave-one-out for
ridge regression, and the .632+ bootstrap — the same numbers as `agghoo estimate`."""

from sklearn.datasets import load_diabetes

from agghoo import estimate_risk

X, y = load_diabetes(return_X_y=True)
print(estimate_risk(X, y, family="ridge", value=0.1, plan="vfold:10", loss=["squared", "absolute"]))
loo = estimate_risk(X, y, family="ridge", value=0.1, plan="loo")
print("leave-one-out:", loo.to_dict()["estimate"]["method"], loo["squared"])
boot = estimate_risk(X, y, family="knn", value=9, plan="bootstrap:50", random_state=1)
print(".632+ bootstrap:", boot.bootstrap["point632_plus"])
