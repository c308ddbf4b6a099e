"""Risk estimation and nested comparison of procedures as functions, with picklable result objects."""

import copy
import json
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from . import _categorical, _input, _native
from . import dask as _dask, plotting
from .exceptions import ParameterError
from ._estimators import _grid_text, _params
from ._validation import GRID, NAME, OPTIONAL_NAME, SEED, THREADS, validate

__all__ = ["estimate_risk", "RiskEstimate", "compare", "nested_cv", "Comparison", "treecv", "TreeCVResult"]


class RiskEstimate:
    """The estimated risk of one rule, with standard errors (one row per loss).

    ``to_dict()`` gives the library's full result (the CLI's ``estimate --json`` ``result``:
    the per-split risks, the method — resampling or closed form —, GCV where available, and for a
    bootstrap plan the naive, leave-one-out, .632 and .632+ estimators); ``to_frame()`` the
    summary table as a pandas DataFrame.
    """

    def __init__(self, result):
        self._result = result

    @property
    def summaries(self):
        """A list of ``{"loss", "estimate", "standard_error"}`` dicts."""
        return [dict(s) for s in self._result["estimate"]["summaries"]]

    @property
    def bootstrap(self):
        """The bootstrap estimators (``None`` unless the plan was ``bootstrap:B``)."""
        return copy.deepcopy(self._result.get("bootstrap"))

    def __getitem__(self, loss):
        for s in self._result["estimate"]["summaries"]:
            if s["loss"] == loss:
                return s["estimate"]
        raise KeyError(loss)

    def to_dict(self):
        return copy.deepcopy(self._result)

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.summaries).set_index("loss")

    def __repr__(self):
        rows = ", ".join(f"{s['loss']}={s['estimate']:.6g}±{(s['standard_error'] or float('nan')):.2g}" for s in self.summaries)
        return f"RiskEstimate({rows})"

    def __eq__(self, other):
        return isinstance(other, RiskEstimate) and self._result == other._result


def _threads(n_jobs):
    """The library's thread count for scikit-learn's ``n_jobs`` (None or ≤ 0: all cores)."""
    return n_jobs if n_jobs is None or n_jobs > 0 else None


def _task_of(y, task):
    if task not in ("auto", "classification", "regression"):
        raise ValueError(f"task must be 'auto', 'classification' or 'regression', got {task!r}")
    if task == "auto":
        return "regression" if np.asarray(y).dtype.kind == "f" else "classification"
    return task


@validate(family=NAME, value=[Interval(Real, None, None, closed="neither"), str, None], plan=NAME, closed_form=["boolean"])
def estimate_risk(
    X,
    y,
    family="knn",
    value=None,
    params=None,
    plan="vfold:10",
    stratify=None,
    loss=None,
    standardize=False,
    missing="error",
    closed_form=True,
    task="auto",
    random_state=0,
    n_jobs=None,
    client=None,
    categorical=None,
    missing_category="level",
    na_values=None,
):
    """Estimate the risk of one rule — a family at one hyperparameter value — with its standard error.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        NaN marks a missing value (see ``missing``).
    y : array-like of shape (n_samples,)
    family : str, default="knn"
        A built-in family (the CLI's names).
    value : float
        The hyperparameter value of the rule (k, λ, C, α, ...).
    params : dict, optional
        Other family parameters, as the CLI's ``--param KEY=VALUE``.
    plan : str, default="vfold:10"
        ``vfold:V``, ``repeated:V:R``, ``5x2``, ``mc:V:TAU``, ``holdout:TAU``, ``loo``,
        ``lpo:P:MAX``, ``bootstrap:B`` (which adds the .632 and .632+ estimators) or ``time:S``
        (time-ordered splits; options ``:gap=G``, ``:max_train=M``, ``:test=T``).
    stratify : bool, optional
        ``None`` (default): V-fold plans are stratified for a classification target, other
        plans are not; ``True`` / ``False``: the CLI's ``--stratify`` / ``--no-stratify``.
    loss : str or list of str, optional
        ``squared``, ``absolute``, ``01``, ``logloss``, ...; the task's default when omitted.
    standardize : bool, default=False
    missing : {"error", "median"}, default="error"
    categorical, missing_category, na_values : as :class:`AgghooClassifier` (text columns of a
        DataFrame are categorical).
    closed_form : bool, default=True
        Use exact closed-form leave-one-out / GCV where the family has it.
    task : {"auto", "classification", "regression"}, default="auto"
        ``auto``: regression for a float ``y``, classification otherwise.
    random_state : int, default=0
        The seed (the CLI's ``--seed``).
    n_jobs : int, optional
        Threads (results do not depend on it).
    client : dask.distributed.Client, optional
        Run the splits on this Dask cluster (also inside ``agghoo.dask.backend(client)``); the
        result is the same bit for bit. The bootstrap's .632 / .632+ estimators are computed
        on the client.

    Returns
    -------
    RiskEstimate
    """
    if value is None:
        raise ValueError("value: give the hyperparameter value of the rule to evaluate")
    X, y, names, class_names, columns = _prepare(X, y, task, missing, categorical, na_values)
    losses = [loss] if isinstance(loss, str) else list(loss or [])
    be = _dask.active_client(client)
    out = _native.estimate(
        X,
        y,
        names,
        class_names,
        family,
        float(value),
        _params(params),
        plan,
        stratify=None if stratify is None else bool(stratify),
        losses=losses,
        standardize=bool(standardize),
        closed_form=bool(closed_form),
        seed=0 if random_state is None else int(random_state),
        threads=_threads(n_jobs),
        job=be is not None,
        categorical=columns,
        missing_category=_categorical.check_missing_category(missing_category),
    )
    text = out if be is None else _dask.run_job(be, out, X, y)
    return RiskEstimate(json.loads(text))


class Comparison:
    """Nested cross-validation of selection procedures on identical outer splits.

    ``procedures`` holds each procedure's test risk ± standard error, its per-split test risks and
    the values it selected; ``comparisons`` the paired differences of every pair with the
    Nadeau–Bengio corrected resampled t-test. ``to_dict()`` is the CLI's ``compare --json``
    ``result``; ``to_frame()`` one row per procedure.
    """

    def __init__(self, result):
        self._result = result

    @property
    def procedures(self):
        return copy.deepcopy(self._result["procedures"])

    @property
    def comparisons(self):
        return copy.deepcopy(self._result["comparisons"])

    def to_dict(self):
        return copy.deepcopy(self._result)

    def to_frame(self):
        import pandas as pd

        rows = [{"procedure": p["label"], "risk": p["estimate"], "standard_error": p["standard_error"]} for p in self._result["procedures"]]
        return pd.DataFrame(rows).set_index("procedure")

    def plot(self, ax=None, **kwargs):
        """Test risk ± standard error and per-split risks per procedure: :class:`agghoo.plotting.ComparisonDisplay`."""
        return plotting.ComparisonDisplay.from_result(self, ax=ax, **kwargs)

    def __repr__(self):
        rows = ", ".join(f"{p['label']}={p['estimate']:.6g}±{(p['standard_error'] or float('nan')):.2g}" for p in self._result["procedures"])
        return f"Comparison({rows})"

    def __eq__(self, other):
        return isinstance(other, Comparison) and self._result == other._result


def _refuse_text(text, names, what):
    """Categorical (text) columns where the engine does not encode them: refused, by name, as the
    CLI refuses them (never read as zeros)."""
    if text:
        columns = ", ".join(names[j] for j, _ in text)
        raise ParameterError(f"categorical columns ({columns}) in {what} is not supported: encode them first")


def _prepare(X, y, task, missing, categorical=None, na_values=None):
    if missing not in ("error", "median"):
        raise ValueError(f"missing must be 'error' or 'median', got {missing!r}")
    _input.check_dense(X)
    names = [str(c) for c in getattr(X, "columns", [])]
    X, text = _categorical.split_text(X, categorical, na_values=na_values)
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X.shape}")
    names = names or [f"x{j}" for j in range(X.shape[1])]
    if missing == "error" and np.isnan(X).any():
        raise ValueError("X contains NaN: use missing='median' to impute inside each training set")
    if missing == "error":
        _categorical.refuse_missing(text, names)
    y = np.asarray(y)
    class_names = None
    if _task_of(y, task) == "classification":
        classes, y = np.unique(y, return_inverse=True)
        class_names = [str(c) for c in classes]
    return X, np.ascontiguousarray(y, dtype=np.float64), names, class_names, text


@validate(family=NAME, grid=GRID, methods=[str, list, tuple], outer=NAME, inner=NAME)
def compare(
    X,
    y,
    family="knn",
    grid=None,
    params=None,
    methods=("agghoo", "cv", "holdout"),
    outer="vfold:10",
    inner="mc:10:0.8",
    stratify=None,
    loss=None,
    standardize=False,
    missing="error",
    task="auto",
    random_state=0,
    n_jobs=None,
    client=None,
    categorical=None,
    missing_category="level",
    na_values=None,
):
    """Compare selection procedures by nested cross-validation (the CLI's ``agghoo compare``).

    Each procedure selects over the family's grid on the inner splits of every outer training set
    and is scored on the outer test set; all procedures see the same outer splits, so their
    differences are paired.

    Parameters
    ----------
    family, grid, params : as :class:`AgghooClassifier`.
    methods : sequence of str, default=("agghoo", "cv", "holdout")
        ``agghoo``, ``majhoo``, ``cv``, ``cv+1se``, ``holdout``, ``acv``, ``ekcv``, ``subagging``.
    outer : str, default="vfold:10"
        The outer plan (``vfold:V``, ``repeated:V:R``, ``5x2``, ``mc:V:TAU``, ``loo``, ``holdout:TAU``).
    inner : str, default="mc:10:0.8"
        The inner plan each procedure selects on.
    stratify : bool, optional
        ``True`` stratifies the outer and inner plans by class, ``False`` neither; ``None``
        (default) stratifies the V-fold ones for a classification target (the CLI's default).
    loss, standardize, missing, task, random_state, n_jobs, categorical, missing_category,
    na_values : as :func:`estimate_risk`.
    client : dask.distributed.Client, optional
        Run one task per outer split on this Dask cluster (also inside
        ``agghoo.dask.backend(client)``); the result is the same bit for bit.

    Returns
    -------
    Comparison
    """
    X, y, names, class_names, columns = _prepare(X, y, task, missing, categorical, na_values)
    be = _dask.active_client(client)
    out = _native.compare(
        X,
        y,
        names,
        class_names,
        family,
        _grid_text(grid),
        _params(params),
        [str(m) for m in methods],
        outer,
        inner,
        stratify=None if stratify is None else bool(stratify),
        loss=loss,
        standardize=bool(standardize),
        seed=0 if random_state is None else int(random_state),
        threads=_threads(n_jobs),
        job=be is not None,
        categorical=columns,
        missing_category=_categorical.check_missing_category(missing_category),
    )
    text = out if be is None else _dask.run_job(be, out, X, y)
    return Comparison(json.loads(text))


nested_cv = compare


class _DictResult:
    """A result held as the CLI's JSON document: its keys read as attributes (copies), it pickles
    as that dict, and ``to_dict()`` returns it."""

    def __init__(self, result):
        self._result = result

    def __getattr__(self, name):
        try:
            return copy.deepcopy(self.__dict__["_result"][name])
        except KeyError:
            raise AttributeError(name) from None

    def __getstate__(self):
        return self._result

    def __setstate__(self, state):
        self._result = state

    def to_dict(self):
        return copy.deepcopy(self._result)

    def __eq__(self, other):
        return type(other) is type(self) and other._result == self._result


class TreeCVResult(_DictResult):
    """The CV estimate of an incremental learner by TreeCV: ``estimate``, ``standard_error``,
    ``fold_losses`` (the loss of each chunk), and the work done (``n_point_updates``, ``passes``,
    ``wall_seconds``). ``to_dict()`` is the CLI's ``treecv --json`` report."""


    def __repr__(self):
        return f"TreeCVResult({self._result['learner']}: {self._result['estimate']:.6g} ± {self._result['standard_error']:.2g})"


@validate(
    learner=NAME, folds=[Interval(Integral, 2, None, closed="left"), StrOptions({"loo"})],
    lambda_=[Interval(Real, 0, None, closed="neither")], centres=[Interval(Integral, 1, None, closed="left")],
    method=NAME, order=NAME, shuffle=["boolean"], parallel=["boolean"],
)
def treecv(
    X,
    y,
    learner="pegasos",
    folds=10,
    lambda_=1e-6,
    centres=8,
    method="tree",
    order="fixed",
    shuffle=True,
    parallel=False,
    task="auto",
    random_state=0,
    n_jobs=None,
    client=None,
):
    """k-fold or leave-one-out CV of an incremental learner in about log2(k) passes (TreeCV).

    Parameters
    ----------
    learner : str, default="pegasos"
        ``pegasos``, ``lsq-sgd``, ``gaussian-nb``, ``multinomial-nb``, ``kmeans`` or ``density``.
    folds : int or "loo", default=10
    lambda_ : float, default=1e-6
        PEGASOS's regularisation.
    centres : int, default=8
        k-means' number of centres.
    method : {"tree", "standard"}, default="tree"
        TreeCV, or k separate trainings (the reference it equals in the fixed order).
    order : {"fixed", "random"}, default="fixed"
        The order in which a model sees the chunks it is fed.
    shuffle : bool, default=True
        Shuffle the rows (from the seed) before cutting them into chunks.
    parallel : bool, default=False
        Run independent subtrees in parallel (same result).
    task, random_state, n_jobs : as :func:`estimate_risk`.
    client : dask.distributed.Client, optional
        Run the TreeCV paper's distributed variant on this Dask cluster (also inside
        ``agghoo.dask.backend(client)``): chunks stay on the worker that owns them, only models
        travel; the estimate and the chunk losses are the local run's bit for bit. Tree method
        and fixed order only. ``to_dict()["distribution"]`` tells which worker owned which chunk.

    Returns
    -------
    TreeCVResult
    """
    X, y, names, class_names, text = _prepare(X, y, task, "error")
    _refuse_text(text, names, "TreeCV")
    k = X.shape[0] if folds == "loo" else int(folds)
    be = _dask.active_client(client)
    if be is not None:
        result = _dask.treecv(
            be, X, y, names, class_names, learner, k, lambda_, centres, bool(shuffle),
            0 if random_state is None else int(random_state), bool(parallel), method, order,
        )
        return TreeCVResult(result)
    text = _native.treecv(
        X,
        y,
        names,
        class_names,
        learner,
        k,
        lambda_=float(lambda_),
        centres=int(centres),
        method=method,
        order=order,
        shuffle=bool(shuffle),
        parallel=bool(parallel),
        seed=0 if random_state is None else int(random_state),
        threads=_threads(n_jobs),
    )
    return TreeCVResult(json.loads(text))


class FeatureSelection(_DictResult):
    """A feature selection and, when evaluated, its honest estimate.

    Without ``evaluate``: ``features`` (column indices), ``names`` and ``details`` (the search
    trace, ranking or embedded report). With ``evaluate``: ``honest`` and ``naive`` (risk ±
    standard error), ``selection_bias``, ``folds`` (each outer fold's selection and test risk),
    ``frequency`` (how often each feature was chosen), ``mean_jaccard`` and ``naive_selection``.
    ``to_dict()`` is the CLI's ``features --json`` ``result``; ``to_frame()`` one row per feature
    (selected features, or selection frequencies when evaluated).
    """


    @property
    def evaluated(self):
        """True when the selection was evaluated honestly (``evaluate`` given)."""
        return "honest" in self._result

    def to_frame(self):
        import pandas as pd

        if self.evaluated:
            return pd.DataFrame(self._result["frequency"])
        return pd.DataFrame({"index": self._result["features"], "name": self._result["names"]})

    def __repr__(self):
        if self.evaluated:
            h = self._result["honest"]
            return f"FeatureSelection(honest {h['mean']:.4g} ± {h['standard_error']:.2g}, naive {self._result['naive']['mean']:.4g})"
        return f"FeatureSelection({', '.join(self._result['names'])})"


@validate(
    method=NAME, scorer=NAME, n_features=[Interval(Integral, 1, None, closed="left"), str], inner=NAME,
    evaluate=OPTIONAL_NAME, learner=OPTIONAL_NAME,
)
def select_features(
    X,
    y,
    method="sffs",
    scorer="cfs",
    n_features="best",
    inner="vfold:5",
    evaluate=None,
    learner=None,
    standardize=False,
    missing="error",
    task="auto",
    random_state=0,
    n_jobs=None,
    client=None,
):
    """Select features, and optionally estimate the selection's risk honestly (the CLI's
    ``agghoo features``).

    Parameters
    ----------
    method : str, default="sffs"
        A search (``sfs``, ``sbs``, ``sffs``, ``sbfs``, ``exhaustive``), a filter ranking
        (``pearson``, ``mi``) or an embedded method (``lasso``, ``enet``, ``forest-impurity``,
        ``forest-permutation``).
    scorer : str, default="cfs"
        How a search scores a subset: ``cfs`` (correlation-based merit) or
        ``wrapper:FAMILY:VALUE`` (the CV risk of a learner, e.g. ``wrapper:knn:5``).
    n_features : int or str, default="best"
        ``K``, ``"MIN:MAX"``, ``"best"`` or ``"parsimonious"`` for searches; ``K`` for rankings
        and forests.
    inner : str, default="vfold:5"
        The inner plan of wrapper scores and of the Lasso's λ.
    evaluate : str, optional
        An outer plan (``vfold:10``, ...): the whole selection is redone inside every outer
        training fold and its learner scored on the fold's test rows (the honest estimate), next
        to the naive select-on-all-data estimate.
    learner : str, optional
        ``FAMILY:VALUE`` trained on the selected features in the evaluation (default: the
        wrapper's learner, or ``knn:5``).
    standardize, missing, task, random_state, n_jobs : as :func:`estimate_risk`.
    client : dask.distributed.Client, optional
        With ``evaluate``: one Dask task per outer fold (and one for the naive selection); also
        inside ``agghoo.dask.backend(client)``. The result is the same bit for bit.

    Returns
    -------
    FeatureSelection
    """
    X, y, names, class_names, text = _prepare(X, y, task, missing)
    _refuse_text(text, names, "feature selection")
    be = _dask.active_client(client) if evaluate is not None else None
    out = _native.select_features(
        X,
        y,
        names,
        class_names,
        method=str(method),
        scorer=str(scorer),
        n_features=str(n_features),
        inner=str(inner),
        evaluate=evaluate,
        learner=learner,
        standardize=bool(standardize),
        seed=0 if random_state is None else int(random_state),
        threads=_threads(n_jobs),
        job=be is not None,
    )
    text = out if be is None else _dask.run_job(be, out, X, y)
    return FeatureSelection(json.loads(text))


class StudyResult(_DictResult):
    """The real-data study's result: ``cells`` (one per data set × family: sizes, and per
    procedure the test risk of every outer split, its mean and standard error, the risk relative to
    10-fold CV, the paired test against it and its verdict, the cost), ``summary`` (per family and
    procedure over the data sets: geometric-mean relative risk, wins / ties / losses) and the
    settings. ``to_dict()`` is the document ``agghoo study --json`` prints under ``result``."""

    def to_frame(self):
        """One row per data set × family × procedure (cells that failed are left out)."""
        import pandas as pd

        rows = [
            {
                "set": c["set"],
                "family": c["family"],
                "learner": c["learner"],
                "procedure": r["label"],
                "risk": r["mean"],
                "standard_error": r["standard_error"],
                "relative": r["relative"],
                "p_value": r["p_value"],
                "verdict": r["verdict"],
                "fits": r["fits"],
                "seconds": r["seconds"],
            }
            for c in self._result["cells"]
            for r in c["rows"]
        ]
        return pd.DataFrame(rows).set_index(["set", "family", "procedure"])

    def summary_frame(self):
        """One row per family × procedure: relative risk (geometric mean), wins, ties, losses."""
        import pandas as pd

        rows = [
            {k: s[k] for k in ("family", "label", "sets", "relative", "wins", "ties", "losses", "fits", "seconds")}
            for s in self._result["summary"]
        ]
        return pd.DataFrame(rows).rename(columns={"label": "procedure"}).set_index(["family", "procedure"])

    def plot(self, kind="relative", ax=None):
        """The study's pictures (``kind="relative"`` or ``"tau"``): :class:`agghoo.plotting.StudyDisplay`."""
        return plotting.StudyDisplay.from_result(self, kind=kind, ax=ax)

    def __repr__(self):
        failed = sum(1 for c in self._result["cells"] if c.get("error"))
        return f"StudyResult({len(self._result['cells'])} cells, {failed} failed, {self._result['reps']} outer splits)"


@validate(quick=["boolean"], random_state=SEED, n_jobs=THREADS)
def study(
    data_dir,
    quick=False,
    sets=None,
    families=None,
    reps=None,
    random_state=None,
    max_train=None,
    max_test=None,
    forest_trees=None,
    alpha=None,
    n_jobs=None,
):
    """The real-data study: Agghoo / Majhoo against cross-validation selection, as ``agghoo study``.

    For every data set of the study folder and every family (k-NN, CART, an RBF SVM, a penalised
    linear model), ``reps`` random outer train / test splits shared by every procedure; on each
    training sample 10-fold CV, CV + 1-SE, ACV, EKCV, hold-out, Monte-Carlo CV and Agghoo at
    τ ∈ {0.5, 0.8} × V ∈ {5, 10}; the test risk of each, paired tests against 10-fold CV.

    Parameters
    ----------
    data_dir : str or path
        The study folder: ``manifest.tsv`` and one ``NAME.csv.gz`` per data set (the repository's
        ``data/study``).
    quick : bool, default=False
        Start from the quick settings (6 data sets, 10 outer splits, at most 200 training rows)
        instead of the full study's (every set, 100 outer splits, at most 300 training rows).
    sets, families : list of str, optional
        Data set names of the manifest; families among ``knn``, ``cart``, ``svm``, ``linear``.
    reps, max_train, max_test, forest_trees, alpha : optional
        Outer splits, caps on the outer training and test rows, trees of the reference forest (0:
        none), level of the paired tests.
    random_state : int, optional
        The seed every random choice flows from.
    n_jobs : int, optional
        Threads (None: all cores); the risks do not depend on it.

    Returns
    -------
    StudyResult
    """
    text = _native.study(
        str(data_dir),
        quick=bool(quick),
        sets=None if sets is None else [str(s) for s in sets],
        families=None if families is None else [str(f) for f in families],
        reps=None if reps is None else int(reps),
        seed=None if random_state is None else int(random_state),
        max_train=None if max_train is None else int(max_train),
        max_test=None if max_test is None else int(max_test),
        forest_trees=None if forest_trees is None else int(forest_trees),
        alpha=None if alpha is None else float(alpha),
        threads=_threads(n_jobs),
    )
    return StudyResult(json.loads(text))
