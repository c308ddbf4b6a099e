"""Pictures of agghoo's results with matplotlib, in scikit-learn's visualisation style.

matplotlib is an optional dependency: ``pip install "agghoo[plot]"``. Every picture is a Display
object built from a fitted estimator or a result (``CVCurveDisplay.from_estimator(clf)``,
``ComparisonDisplay.from_result(agghoo.compare(...))``), which draws at once on ``ax`` (a new
figure when omitted) and keeps the matplotlib artists it made (``line_``, ``ax_``, ``figure_``,
...); ``display.plot(ax=...)`` draws it again elsewhere. Nothing is recomputed: the numbers are the
estimator's ``cv_results_`` / ``selected_params_`` or the result's ``to_dict()``. The estimators and
result objects have a ``plot()`` method that returns the matching Display.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> from sklearn.datasets import load_breast_cancer
>>> from agghoo import AgghooClassifier
>>> from agghoo.plotting import CVCurveDisplay
>>> X, y = load_breast_cancer(return_X_y=True)
>>> clf = AgghooClassifier(family="knn", grid=range(1, 30, 2), random_state=1).fit(X, y)
>>> display = CVCurveDisplay.from_estimator(clf)   # the CV curve ± 1 standard error, members marked
>>> display.ax_.get_xlabel()
'k'
"""

import math
from collections import Counter

import numpy as np

__all__ = ["CVCurveDisplay", "SelectedValuesDisplay", "ComparisonDisplay", "StudyDisplay"]

_INSTALL = 'agghoo.plotting needs matplotlib, an optional dependency: pip install "agghoo[plot]" (or: pip install matplotlib)'


def _pyplot():
    """matplotlib.pyplot, or an ImportError that names the ``plot`` extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError(_INSTALL) from e
    return plt


def _new_axes(ax):
    if ax is None:
        _, ax = _pyplot().subplots()
    else:
        _pyplot()
    return ax


def _geometric(values):
    """True for positive values spaced evenly on a log scale but not on a linear one (``log:`` grids)."""
    v = np.asarray(values, dtype=float)
    if len(v) < 3 or not np.all(np.isfinite(v)) or np.any(v <= 0):
        return False
    steps, log_steps = np.diff(v), np.diff(np.log(v))
    return bool(np.allclose(log_steps, log_steps[0], rtol=1e-6) and not np.allclose(steps, steps[0], rtol=1e-6))


def _grid_axis(params):
    """The x axis of a grid given as ``cv_results_["params"]``: ``(name, values)`` when every point
    sets the same single numeric parameter, else ``("grid point", [0, 1, ...])``."""
    keys = {tuple(p) for p in params}
    if len(keys) == 1 and len(next(iter(keys))) == 1:
        (name,) = next(iter(keys))
        values = [p[name] for p in params]
        if all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in values):
            return str(name), np.asarray(values, dtype=float)
    return "grid point", np.arange(len(params), dtype=float)


def _selected_indices(params, selected):
    """Grid positions of the values selected on the splits (a value, or a dict of parameters)."""
    out = []
    for s in selected:
        point = s if isinstance(s, dict) else None
        for i, p in enumerate(params):
            if p == point or (point is None and len(p) == 1 and next(iter(p.values())) == s):
                out.append(i)
                break
        else:
            raise ValueError(f"selected value {s!r} is not a point of the grid")
    return out


def _fitted(estimator):
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(estimator, "cv_results_")
    return estimator.cv_results_, list(estimator.selected_params_)


def _plain():
    """Tick labels as plain numbers (1, 0.5, 2) on a log axis."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda value, _: f"{value:.3g}")


def _finish(display, ax):
    display.ax_ = ax
    display.figure_ = ax.figure
    return display


class CVCurveDisplay:
    """The cross-validation curve: the size-weighted mean validation risk of every grid point over
    the splits, a band of ± ``n_se`` standard errors, and the grid points the splits selected (the
    members of an Agghoo / Majhoo model), sized by how many splits chose them.

    Parameters
    ----------
    param_values : array of float
        The x position of each grid point: the parameter's values for a one-axis grid, else the
        grid point's position.
    risk, standard_error : array of float
        The CV risk per grid point and its standard error.
    param_name : str
    selected_indices : list of int, optional
        The grid position chosen on each split.

    Attributes
    ----------
    line_ : matplotlib Line2D (the curve)
    band_ : matplotlib PolyCollection (± ``n_se`` standard errors)
    members_ : matplotlib PathCollection or None (the selected points)
    ax_, figure_ : the matplotlib Axes and Figure
    """

    def __init__(self, *, param_values, risk, standard_error, param_name, selected_indices=None):
        self.param_values = np.asarray(param_values, dtype=float)
        self.risk = np.asarray(risk, dtype=float)
        self.standard_error = np.asarray(standard_error, dtype=float)
        self.param_name = param_name
        self.selected_indices = None if selected_indices is None else list(selected_indices)

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, n_se=1.0, **kwargs):
        """The curve of a fitted :class:`~agghoo.AgghooClassifier` / :class:`~agghoo.AgghooRegressor`
        (built-in family or ``estimator=``), drawn on ``ax``; ``kwargs`` go to the curve's ``plot``."""
        results, selected = _fitted(estimator)
        name, values = _grid_axis(results["params"])
        display = cls(
            param_values=values,
            risk=results["weighted_mean_risk"],
            standard_error=results["weighted_mean_risk_se"],
            param_name=name,
            selected_indices=_selected_indices(results["params"], selected),
        )
        return display.plot(ax=ax, n_se=n_se, **kwargs)

    def plot(self, ax=None, *, n_se=1.0, **kwargs):
        """Draw on ``ax`` (a new figure when omitted); returns the display."""
        ax = _new_axes(ax)
        x, mean, se = self.param_values, self.risk, self.standard_error
        (self.line_,) = ax.plot(x, mean, **{"marker": "o", "markersize": 3, "label": "CV risk", **kwargs})
        self.band_ = ax.fill_between(x, mean - n_se * se, mean + n_se * se, color=self.line_.get_color(), alpha=0.2, label=f"± {n_se:g} standard error")
        self.members_ = None
        if self.selected_indices:
            counts = Counter(self.selected_indices)
            where = sorted(counts)
            self.members_ = ax.scatter(
                x[where], mean[where], s=[30 * counts[i] for i in where], color="C3", zorder=3, label="selected on the splits"
            )
        if self.param_name != "grid point" and _geometric(x):
            ax.set_xscale("log")
        ax.set_xlabel(self.param_name)
        ax.set_ylabel("validation risk")
        ax.legend()
        return _finish(self, ax)


class SelectedValuesDisplay:
    """How many splits selected each grid point (the members of an Agghoo / Majhoo model, the
    per-split choices of CV), as a stem plot over the grid.

    Attributes
    ----------
    stem_ : matplotlib StemContainer
    ax_, figure_ : the matplotlib Axes and Figure
    """

    def __init__(self, *, param_values, counts, param_name):
        self.param_values = np.asarray(param_values, dtype=float)
        self.counts = np.asarray(counts, dtype=int)
        self.param_name = param_name

    @classmethod
    def from_estimator(cls, estimator, *, ax=None, **kwargs):
        """The choices of a fitted :class:`~agghoo.AgghooClassifier` / :class:`~agghoo.AgghooRegressor`."""
        results, selected = _fitted(estimator)
        name, values = _grid_axis(results["params"])
        counts = np.bincount(_selected_indices(results["params"], selected), minlength=len(values))
        return cls(param_values=values, counts=counts, param_name=name).plot(ax=ax, **kwargs)

    def plot(self, ax=None, **kwargs):
        """Draw on ``ax`` (a new figure when omitted); returns the display."""
        ax = _new_axes(ax)
        chosen = self.counts > 0
        self.stem_ = ax.stem(self.param_values[chosen], self.counts[chosen], **kwargs)
        if self.param_name != "grid point" and _geometric(self.param_values):
            ax.set_xscale("log")
        ax.set_xlim(*_padded(self.param_values, ax.get_xscale() == "log"))
        ax.set_ylim(0, max(1, int(self.counts.max(initial=0))) + 0.5)
        ax.set_xlabel(self.param_name)
        ax.set_ylabel("splits selecting it")
        return _finish(self, ax)


def _padded(values, log):
    lo, hi = float(np.min(values)), float(np.max(values))
    if log:
        pad = (math.log(hi) - math.log(lo)) * 0.05 or 0.5
        return math.exp(math.log(lo) - pad), math.exp(math.log(hi) + pad)
    pad = (hi - lo) * 0.05 or 0.5
    return lo - pad, hi + pad


class ComparisonDisplay:
    """The nested comparison of procedures (:func:`agghoo.compare`): each procedure's test risk
    ± one standard error (the bar) over its per-split test risks (the dots), one row each.

    Attributes
    ----------
    errorbar_ : matplotlib ErrorbarContainer (the estimates and their standard errors)
    splits_ : list of matplotlib PathCollection (the per-split test risks, one per procedure)
    ax_, figure_ : the matplotlib Axes and Figure
    """

    def __init__(self, *, labels, estimates, standard_errors, test_risks, loss=None):
        self.labels = list(labels)
        self.estimates = np.asarray(estimates, dtype=float)
        self.standard_errors = np.array([np.nan if s is None else s for s in standard_errors], dtype=float)
        self.test_risks = [np.asarray(r, dtype=float) for r in test_risks]
        self.loss = loss

    @classmethod
    def from_result(cls, comparison, *, ax=None, **kwargs):
        """The display of a :class:`~agghoo.Comparison`."""
        result = comparison.to_dict()
        procedures = result["procedures"]
        display = cls(
            labels=[p["label"] for p in procedures],
            estimates=[p["estimate"] for p in procedures],
            standard_errors=[p["standard_error"] for p in procedures],
            test_risks=[p["test_risks"] for p in procedures],
            loss=result.get("loss"),
        )
        return display.plot(ax=ax, **kwargs)

    def plot(self, ax=None, **kwargs):
        """Draw on ``ax`` (a new figure when omitted); returns the display."""
        ax = _new_axes(ax)
        rows = np.arange(len(self.labels))
        self.splits_ = [ax.scatter(r, np.full(len(r), i), color="0.6", s=12, zorder=1) for i, r in enumerate(self.test_risks)]
        se = np.nan_to_num(self.standard_errors)
        self.errorbar_ = ax.errorbar(self.estimates, rows, xerr=se, **{"fmt": "o", "color": "C0", "capsize": 4, "zorder": 2, **kwargs})
        ax.set_yticks(rows, self.labels)
        ax.invert_yaxis()
        ax.set_xlabel("test risk" if self.loss is None else f"test risk ({self.loss})")
        return _finish(self, ax)


class StudyDisplay:
    """The real-data study's two pictures (those of ``agghoo study``), from a
    :class:`~agghoo.StudyResult`:

    - ``kind="relative"``: one panel per family; for each procedure, its test risk relative to
      10-fold CV on every data set (dots, log scale) and the geometric mean over the sets (bar);
    - ``kind="tau"``: the geometric-mean relative risk of Agghoo / Majhoo against the training
      fraction τ, one line per family and V (thick: V = 10), Monte-Carlo CV and hold-out at
      τ = 0.8 as triangles, 10-fold CV as the line at 1.

    Attributes
    ----------
    axes_ : list of matplotlib Axes (one per family for ``relative``, one for ``tau``)
    means_ : dict of (family, label) → geometric-mean relative risk drawn
    ax_, figure_ : the first Axes and the Figure
    """

    def __init__(self, result, kind="relative"):
        if kind not in ("relative", "tau"):
            raise ValueError(f"kind must be 'relative' or 'tau', got {kind!r}")
        self.result = result
        self.kind = kind

    @classmethod
    def from_result(cls, result, *, kind="relative", ax=None):
        """The display of a :class:`~agghoo.StudyResult` (or its ``to_dict()``)."""
        return cls(result.to_dict() if hasattr(result, "to_dict") else result, kind).plot(ax=ax)

    def _families(self):
        return list(dict.fromkeys(c["family"] for c in self.result["cells"]))

    def plot(self, ax=None):
        """Draw on ``ax``: one Axes for ``tau``, one per family for ``relative`` (a sequence; a new
        figure when omitted); returns the display."""
        families = self._families()
        if self.kind == "tau":
            axes = [_new_axes(ax)]
        elif ax is None:
            cols = min(2, len(families)) or 1
            rows = max(1, math.ceil(len(families) / cols))
            figure, grid = _pyplot().subplots(rows, cols, figsize=(6 * cols, 4.5 * rows), squeeze=False, layout="constrained")
            axes = list(grid.ravel())
            for extra in axes[len(families) :]:
                figure.delaxes(extra)
            axes = axes[: len(families)]
        else:
            _pyplot()
            axes = list(np.ravel(ax))
            if len(axes) < len(families):
                raise ValueError(f"ax: {len(axes)} axes for {len(families)} families ({', '.join(families)})")
        self.axes_ = axes
        self.means_ = {}
        if self.kind == "tau":
            self._tau(axes[0], families)
        else:
            for a, family in zip(axes, families):
                self._relative(a, family)
        return _finish(self, axes[0])

    def _relative(self, ax, family):
        cells = [c for c in self.result["cells"] if c["family"] == family and not c.get("error")]
        labels = [r["label"] for r in cells[0]["rows"]] if cells else []
        others = [(k, label) for k, label in enumerate(labels) if cells and cells[0]["rows"][k]["verdict"] != "reference"]
        ax.axhline(1.0, color="black", linewidth=1)
        for i, (k, label) in enumerate(others):
            values = np.array([c["rows"][k]["relative"] for c in cells], dtype=float)
            values = values[np.isfinite(values) & (values > 0)]
            ax.scatter(np.linspace(i - 0.25, i + 0.25, len(values)) if len(values) > 1 else [i] * len(values), values, s=8, color="0.5", alpha=0.6)
            if len(values):
                mean = float(np.exp(np.log(values).mean()))
                self.means_[(family, label)] = mean
                ax.hlines(mean, i - 0.35, i + 0.35, color="C3", linewidth=3)
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(_plain())
        ax.set_xticks(range(len(others)), [label for _, label in others], rotation=60, ha="right", fontsize=8)
        ax.set_title(family)
        ax.set_ylabel("test risk relative to 10-fold CV")

    def _tau(self, ax, families):
        summary = self.result["summary"]

        def find(family, kind, tau, v):
            for s in summary:
                p = s["procedure"]
                if s["family"] == family and p["kind"] == kind and p["tau"] == tau and p["v"] == v and math.isfinite(s["relative"]):
                    return s["relative"], s["label"]
            return None

        ax.axhline(1.0, color="black", linewidth=1, label="10-fold CV")
        for i, family in enumerate(families):
            colour = f"C{i}"
            for v in (5, 10):
                found = [(t, find(family, "agghoo", t, v)) for t in (0.5, 0.8)]
                points = [(t, f[0]) for t, f in found if f is not None]
                for _, f in found:
                    if f is not None:
                        self.means_[(family, f[1])] = f[0]
                if points:
                    t, r = zip(*points)
                    ax.plot(t, r, marker="o", color=colour, linewidth=2.5 if v == 10 else 1, label=f"{family} agghoo V={v}")
            for kind, v, dx in (("mccv", 10, 0.01), ("holdout", 1, 0.01)):
                f = find(family, kind, 0.8, v)
                if f is not None:
                    self.means_[(family, f[1])] = f[0]
                    ax.scatter([0.8 + dx * (i + 1)], [f[0]], marker="^", color=colour)
        ax.set_xlabel("training fraction τ")
        ax.set_ylabel("relative test risk (geometric mean over sets)")
        ax.legend(fontsize=8)
