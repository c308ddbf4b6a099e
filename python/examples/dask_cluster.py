"""The same calls on a Dask cluster (here a LocalCluster of 2 worker processes): selection,
nested comparison and the distributed TreeCV, each equal bit for bit to the local run."""

import numpy as np
from dask.distributed import Client, LocalCluster
from sklearn.datasets import load_breast_cancer

import agghoo
import agghoo.dask

if __name__ == "__main__":
    X, y = load_breast_cancer(return_X_y=True)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        with agghoo.dask.backend(client):  # every agghoo call inside runs its units on the cluster
            clf = agghoo.AgghooClassifier(family="knn", grid=range(1, 40, 2), method="majhoo", random_state=1).fit(X, y)
            cmp = agghoo.compare(X, y, family="knn", grid="1:29:2", methods=["agghoo", "cv"], outer="vfold:5")
        local = agghoo.AgghooClassifier(family="knn", grid=range(1, 40, 2), method="majhoo", random_state=1).fit(X, y)
        assert clf.model_.to_json() == local.model_.to_json()
        print("Majhoo on the cluster: k per split", clf.selected_params_)
        print(cmp)
        res = agghoo.treecv(X, y, learner="gaussian-nb", folds="loo", client=client)
        print(res, "— chunks per worker:", np.bincount(res.to_dict()["distribution"]["chunk_owner"]))
