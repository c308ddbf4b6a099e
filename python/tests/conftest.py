import os
import shutil
import subprocess

import numpy as np
import pytest


@pytest.fixture(scope="session")
def cli():
    """The `agghoo` binary: ./test.sh exports AGGHOO_CLI (the release build `cargo test --release` made); outside it,
    one on PATH. Inside ./test.sh a missing binary fails the test instead of skipping it."""
    path = os.environ.get("AGGHOO_CLI") or shutil.which("agghoo")
    if path is None or not os.path.exists(path):
        if os.environ.get("AGGHOO_IN_TEST_SCRIPT"):
            pytest.fail(f"AGGHOO_CLI={path!r} does not exist: cargo test should have built it")
        pytest.skip("no agghoo binary (set AGGHOO_CLI)")

    def run(*args):
        done = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run


def write_csv(path, X, y, target="y"):
    """X and y as a CSV the CLI reads, every float written exactly (shortest round trip)."""
    with open(path, "w") as f:
        f.write(",".join([f"x{j}" for j in range(X.shape[1])] + [target]) + "\n")
        for row, label in zip(X, y):
            f.write(",".join([repr(float(v)) for v in row] + [str(label)]) + "\n")
    return path


@pytest.fixture(scope="session")
def breast_cancer():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


@pytest.fixture(scope="session")
def diabetes():
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    return np.ascontiguousarray(X), y
