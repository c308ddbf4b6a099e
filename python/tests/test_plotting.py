"""agghoo.plotting: the Display objects draw the numbers of the fitted estimator or result (checked on
the artists' data with the Agg backend, never on pixels), and a missing matplotlib names the extra."""

import os
import sys

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier

import agghoo
from agghoo import plotting

if os.environ.get("AGGHOO_IN_TEST_SCRIPT"):
    import matplotlib  # pinned in python/requirements-test.txt: a failure there, not a skip
else:
    matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STUDY = os.path.join(os.path.dirname(__file__), "..", "..", "data", "study")


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def knn(breast_cancer):
    X, y = breast_cancer
    return agghoo.AgghooClassifier(family="knn", grid=range(1, 30, 2), random_state=1).fit(X, y)


def test_cv_curve_is_the_weighted_mean_risk_with_its_standard_error_band(knn):
    display = plotting.CVCurveDisplay.from_estimator(knn, n_se=2)
    results = knn.cv_results_
    np.testing.assert_array_equal(display.line_.get_xdata(), np.arange(1, 30, 2))
    np.testing.assert_array_equal(display.line_.get_ydata(), results["weighted_mean_risk"])
    band = display.band_.get_paths()[0].vertices
    mean, se = results["weighted_mean_risk"], results["weighted_mean_risk_se"]
    assert np.isclose(band[:, 1].max(), (mean + 2 * se).max()) and np.isclose(band[:, 1].min(), (mean - 2 * se).min())
    assert display.ax_.get_xlabel() == "k" and display.ax_.get_xscale() == "linear"
    assert display.figure_ is display.ax_.figure


def test_cv_curve_marks_the_selected_points_sized_by_their_count(knn):
    display = knn.plot()
    assert isinstance(display, plotting.CVCurveDisplay)
    chosen = {float(k): knn.selected_params_.count(k) for k in knn.selected_params_}
    offsets = display.members_.get_offsets()
    assert sorted(offsets[:, 0]) == sorted(chosen)
    for (x, y), size in zip(offsets, display.members_.get_sizes()):
        assert size == 30 * chosen[x]
        assert y == knn.cv_results_["weighted_mean_risk"][list(np.arange(1, 30, 2)).index(x)]


def test_cv_curve_of_a_log_grid_is_on_a_log_axis_and_draws_on_the_given_axes(breast_cancer):
    X, y = breast_cancer
    clf = agghoo.AgghooClassifier(family="logistic", grid="log:1e-4:1:6", n_splits=3, random_state=0).fit(X, y)
    _, ax = plt.subplots()
    display = clf.plot(ax=ax, color="C5")
    assert display.ax_ is ax and display.ax_.get_xscale() == "log"
    assert display.param_name == "lambda"
    np.testing.assert_allclose(display.line_.get_xdata(), np.logspace(-4, 0, 6))


def test_multi_axis_grid_and_wrapped_estimator_curves(diabetes, breast_cancer):
    X, y = diabetes
    reg = agghoo.AgghooRegressor(family="knn", grid={"k": [3, 9], "weights": ["uniform", "distance"]}, n_splits=3).fit(X, y)
    display = reg.plot()
    assert display.param_name == "grid point"
    np.testing.assert_array_equal(display.line_.get_xdata(), np.arange(4))
    X, y = breast_cancer
    wrapped = agghoo.AgghooClassifier(estimator=KNeighborsClassifier(), param_grid={"n_neighbors": [1, 5, 15]}, n_splits=3).fit(X, y)
    display = plotting.CVCurveDisplay.from_estimator(wrapped)
    assert display.param_name == "n_neighbors"
    np.testing.assert_array_equal(display.line_.get_xdata(), [1, 5, 15])
    np.testing.assert_array_equal(display.line_.get_ydata(), wrapped.cv_results_["weighted_mean_risk"])


def test_selected_values_count_every_split_once(knn):
    display = plotting.SelectedValuesDisplay.from_estimator(knn)
    assert display.counts.sum() == len(knn.selected_params_)
    x = display.stem_.markerline.get_xdata()
    heights = display.stem_.markerline.get_ydata()
    assert sorted(x) == sorted(set(knn.selected_params_))
    for value, height in zip(x, heights):
        assert height == knn.selected_params_.count(value)


def test_unfitted_estimator_is_refused():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        plotting.CVCurveDisplay.from_estimator(agghoo.AgghooClassifier())


def test_comparison_display_shows_each_procedure_with_its_split_risks(breast_cancer):
    X, y = breast_cancer
    comparison = agghoo.compare(X, y, family="knn", grid=range(1, 20, 4), outer="vfold:3", inner="mc:3:0.8")
    display = comparison.plot()
    assert isinstance(display, plotting.ComparisonDisplay)
    procedures = comparison.procedures
    line = display.errorbar_.lines[0]
    np.testing.assert_array_equal(line.get_xdata(), [p["estimate"] for p in procedures])
    assert [t.get_text() for t in display.ax_.get_yticklabels()] == [p["label"] for p in procedures]
    for i, (dots, p) in enumerate(zip(display.splits_, procedures)):
        np.testing.assert_array_equal(dots.get_offsets()[:, 0], p["test_risks"])
        assert set(dots.get_offsets()[:, 1]) == {i}
    assert display.ax_.get_xlabel() == "test risk (01)"


@pytest.fixture(scope="module")
def small_study():
    return agghoo.study(STUDY, quick=True, sets=["iris"], families=["knn", "cart"], reps=3)


def test_study_relative_display_draws_each_family_and_its_geometric_means(small_study):
    display = small_study.plot()
    assert [a.get_title() for a in display.axes_] == ["knn", "cart"]
    summary = {(s["family"], s["label"]): s["relative"] for s in small_study.summary}
    drawn = {key for key in display.means_}
    assert drawn == {key for key in summary if key[1] != "cv V=10" and np.isfinite(summary[key]) and summary[key] > 0}
    for key, mean in display.means_.items():
        assert mean == pytest.approx(summary[key])  # one set: its relative risk is the geometric mean


def test_study_tau_display_draws_agghoo_against_tau(small_study):
    display = plotting.StudyDisplay.from_result(small_study, kind="tau")
    labels = [line.get_label() for line in display.ax_.get_lines()]
    assert labels[0] == "10-fold CV" and "knn agghoo V=10" in labels and "cart agghoo V=5" in labels
    line = next(line for line in display.ax_.get_lines() if line.get_label() == "knn agghoo V=10")
    np.testing.assert_array_equal(line.get_xdata(), [0.5, 0.8])
    summary = {(s["family"], s["label"]): s["relative"] for s in small_study.summary}
    np.testing.assert_allclose(line.get_ydata(), [summary[("knn", "agghoo τ=0.5 V=10")], summary[("knn", "agghoo τ=0.8 V=10")]])
    with pytest.raises(ValueError, match="kind must be"):
        small_study.plot(kind="dots")


def test_missing_matplotlib_names_the_plot_extra(knn, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r'pip install "agghoo\[plot\]"'):
        knn.plot()
