"""bench/study_boosting.py (Agghoo over HistGradientBoosting's rounds against CV, early stopping and
subagging on the study's sets): its --quick run's shape and invariants, determinism for a seed,
and its errors on bad input."""

import importlib.util
import json
import math
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "study"


def _module():
    spec = importlib.util.spec_from_file_location("study_boosting", ROOT / "bench" / "study_boosting.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def boosting():
    return _module()


@pytest.fixture(scope="module")
def quick(boosting, tmp_path_factory):
    out = tmp_path_factory.mktemp("boosting")
    assert boosting.main(["--data", str(DATA), "--quick", "--out", str(out)]) == 0
    return json.loads((out / "boosting.json").read_text()), (out / "boosting.md").read_text()


def test_quick_run_has_every_set_procedure_and_ratio(boosting, quick):
    result, text = quick
    assert [c["set"] for c in result["cells"]] == boosting.QUICK_SETS
    assert {c["task"] for c in result["cells"]} == {"classification", "regression"}
    assert result["settings"]["reps"] == boosting.QUICK_REPS and result["settings"]["grid"] == boosting.QUICK_GRID
    for cell in result["cells"]:
        assert cell["error"] is None
        assert set(cell["procedures"]) == set(boosting.PROCEDURES)
        assert set(cell["ratios"]) == {label for label, _, _ in boosting.RATIOS}
        for row in cell["procedures"].values():
            assert len(row["test_risks"]) == boosting.QUICK_REPS
            assert all(math.isfinite(r) and r >= 0 for r in row["test_risks"])
            assert row["mean_risk"] == pytest.approx(np.mean(row["test_risks"]), rel=1e-12)
        for label, _, _ in boosting.RATIOS:
            assert f"| {label} |" in text
        assert f"| {cell['set']} |" in text
    assert len(result["summary"]) == 3 * len(boosting.RATIOS)


def test_quick_run_invariants(boosting, quick):
    result, _ = quick
    grid = set(boosting.QUICK_GRID)
    for cell in result["cells"]:
        p, ratios = cell["procedures"], cell["ratios"]
        if cell["task"] == "classification":  # 0-1 loss: a whole number of test rows wrong
            for row in p.values():
                assert all(abs(r * cell["n_test"] - round(r * cell["n_test"])) < 1e-9 for r in row["test_risks"])
        # the decomposition multiplies out: agghoo / cv = (subagging / cv) x (agghoo / subagging)
        assert ratios["agghoo / cv"]["ratio"] == pytest.approx(
            ratios["ensemble: subagging / cv"]["ratio"] * ratios["selection: agghoo / subagging"]["ratio"], rel=1e-12)
        assert all(0 <= r["p_value"] <= 1 and r["verdict"] in ("win", "tie", "loss") for r in ratios.values())
        # CV's and subagging's rounds are in the grid and equal; Agghoo's members too; early stopping stops within it
        assert all(c in grid for c in p["cv"]["chosen_rounds"])
        assert p["subagging"]["chosen_rounds"] == p["cv"]["chosen_rounds"]
        assert min(grid) <= min(p["agghoo"]["chosen_rounds"]) and max(p["agghoo"]["chosen_rounds"]) <= max(grid)
        assert all(1 <= c <= max(grid) for c in p["early stopping"]["chosen_rounds"])
        assert p["cv"]["fits"] == boosting.FOLDS + 1 and p["early stopping"]["fits"] == 1
        assert p["subagging"]["fits"] == p["cv"]["fits"] + boosting.SPLITS
        assert p["agghoo"]["fits"] == 2 * boosting.SPLITS
    by = {(r["ratio"], r["group"]): r for r in result["summary"]}
    for label, _, _ in boosting.RATIOS:
        assert by[label, "all"]["sets"] == by[label, "classification"]["sets"] + by[label, "regression"]["sets"]
        for group in ("all", "classification", "regression"):
            row = by[label, group]
            assert row["wins"] + row["ties"] + row["losses"] == row["sets"] and math.isfinite(row["geometric_mean"])
            assert min(c["ratios"][label]["ratio"] for c in result["cells"] if group in ("all", c["task"])) <= row["median"]
    assert [c["procedure"] for c in result["costs"]] == boosting.PROCEDURES


def test_a_set_is_deterministic_for_a_seed_whatever_else_runs(boosting, quick):
    # The same seed gives the same outer splits, inner splits and risks for a set, run alone and with fewer splits.
    result, _ = quick
    again = boosting.study(DATA, sets=["cpus"], reps=2, grid=boosting.QUICK_GRID)
    first = next(c for c in result["cells"] if c["set"] == "cpus")["procedures"]
    for name, row in again["cells"][0]["procedures"].items():
        assert row["test_risks"] == first[name]["test_risks"][:2]
        assert row["chosen_rounds"] == first[name]["chosen_rounds"][:2]
    other = boosting.study(DATA, sets=["cpus"], reps=2, grid=boosting.QUICK_GRID, seed=2)
    assert other["cells"][0]["procedures"]["cv"]["test_risks"] != again["cells"][0]["procedures"]["cv"]["test_risks"]


def test_bad_input_is_named(boosting, tmp_path):
    with pytest.raises(ValueError, match="nosuchset"):
        boosting.study(DATA, sets=["nosuchset"], reps=2)
    with pytest.raises(ValueError, match="reps"):
        boosting.study(DATA, sets=["cpus"], reps=1)
    (tmp_path / "manifest.tsv").write_text((DATA / "manifest.tsv").read_text().splitlines()[0] + "\nbroken\tline\n")
    with pytest.raises(ValueError, match="line 2"):
        boosting.read_manifest(tmp_path)
    with pytest.raises(SystemExit):
        boosting.main(["--data", str(DATA), "--grid", "ten"])
