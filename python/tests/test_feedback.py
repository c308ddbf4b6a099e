"""Feedback from a compiled call: `verbose` prints a line per split on stderr, and Ctrl-C stops a fit
between splits with `KeyboardInterrupt` (a failure's cause chain: test_limits.py)."""

import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import agghoo
from agghoo import AgghooClassifier, AgghooRegressor


def _data(n=120):
    from sklearn.datasets import make_regression

    return make_regression(n_samples=n, n_features=3, noise=0.1, random_state=0)


def test_verbose_prints_one_line_per_split_on_stderr(capsys):
    X, y = _data()
    quiet = AgghooRegressor(family="knn", grid="1:9:2", n_splits=4).fit(X, y)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    loud = AgghooRegressor(family="knn", grid="1:9:2", n_splits=4, verbose=1).fit(X, y)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 4 and all(line.startswith("[agghoo] unit ") and " of 4 finished" in line for line in err), err
    assert sorted(line.split()[2] for line in err) == ["1", "2", "3", "4"]
    np.testing.assert_array_equal(loud.predict(X), quiet.predict(X))
    AgghooRegressor(family="knn", grid="1:9:2", n_splits=4, verbose=2).fit(X, y)
    err = capsys.readouterr().err.splitlines()
    assert sum("started" in line for line in err) == 4 and sum("finished" in line for line in err) == 4, err


def test_verbose_counts_the_units_of_the_functions(capsys):
    X, y = _data()
    agghoo.estimate_risk(X, y, family="knn", value=3, plan="vfold:5", verbose=1)
    assert capsys.readouterr().err.count(" of 5 finished") == 5
    agghoo.compare(X, y, family="knn", grid="1:9:2", outer="vfold:3", inner="vfold:3", verbose=1)
    assert capsys.readouterr().err.count(" of 3 finished") == 3


def test_verbose_is_validated():
    X, y = _data()
    with pytest.raises(ValueError, match="verbose"):
        AgghooRegressor(verbose="loud").fit(X, y)


_LONG_FIT = textwrap.dedent(
    """
    import signal
    # A terminal's Ctrl-C: Python keeps SIGINT ignored when its parent ignored it (as a process
    # started from inside a test session may be), so the child restores the default handler.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    from agghoo import AgghooClassifier
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 8))
    y = (X[:, 0] + rng.normal(size=3000) > 0).astype(int)
    try:
        AgghooClassifier(family="logistic", plan="mc:400:0.8", n_jobs=1, verbose=1).fit(X, y)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is POSIX")
def test_ctrl_c_interrupts_a_compiled_fit_between_splits():
    child = subprocess.Popen(
        [sys.executable, "-c", _LONG_FIT],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        # Wait until the fit is under way (its first split finished), then press Ctrl-C.
        first = child.stderr.readline()
        assert first.startswith("[agghoo] unit "), first
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
    assert out.strip() == "interrupted", (out, err)
    # It stopped between splits: far from all 400 ran.
    assert err.count(" of 400 finished") + 1 < 400, err[-500:]


def test_classifier_accepts_verbose_and_clones_it():
    from sklearn.base import clone

    assert clone(AgghooClassifier(verbose=3)).get_params()["verbose"] == 3


class _InterruptedStderr:
    """A stderr whose write raises what a Ctrl-C handler raises (writing to a pipe runs the
    pending signal handlers, so a real Ctrl-C can land exactly there)."""

    def write(self, text):
        raise KeyboardInterrupt

    def flush(self):
        pass


def test_an_interrupt_raised_while_writing_progress_is_not_swallowed(monkeypatch):
    X, y = _data()
    monkeypatch.setattr(sys, "stderr", _InterruptedStderr())
    with pytest.raises(KeyboardInterrupt):
        AgghooRegressor(family="knn", grid="1:9:2", n_splits=4, verbose=1).fit(X, y)
