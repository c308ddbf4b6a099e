"""Boosting rounds on the real-data study's sets: Agghoo / Majhoo over HistGradientBoosting's
``max_iter`` against 10-fold CV, against scikit-learn's early stopping on one validation split,
and against subagging at CV's number of rounds (which splits Agghoo's gain into ensemble and
per-split selection, as ``agghoo study`` does for its families).

For every chosen data set of the study folder (``manifest.tsv`` and ``NAME.csv.gz``) and every
outer repetition r:

1. **Outer split**, as ``agghoo study``'s: a random permutation of the rows (NumPy's generator
   seeded by (seed, the set's position in the manifest, r), so a set's splits do not depend on
   which other sets run); its first ``min(floor(0.7 n), max_train)`` rows train, the next
   ``min(n - n_train, max_test)`` rows test.
2. **Procedures** on the training rows, all over ``HistGradientBoosting{Classifier,Regressor}(
   early_stopping=False, learning_rate=0.1)`` with ``max_iter`` in the grid (categorical columns as
   the estimator's native categorical features, missing values left to it), validation loss
   0-1 (accuracy) or squared error:

   - **cv**: ``AgghooSearchCV(method="cv")`` on the library's 10-fold plan (stratified for
     classification), refitted on the training rows at the chosen rounds: the reference;
   - **agghoo**: ``AgghooSearchCV(method="agghoo")`` (``"majhoo"`` for classification) on the
     library's 10 Monte-Carlo splits with tau = 0.8 (stratified for classification): each split's
     best rounds, its member fitted on that split's training rows, members averaged (regression)
     or their probabilities averaged (classification, the library's default soft vote);
   - **subagging**: the rounds CV chose, fitted on the same ten subsamples and combined the same
     way (the library's Agghoo over ``estimator=`` on a one-point grid);
   - **early stopping**: one fit with scikit-learn's ``early_stopping=True``,
     ``validation_fraction=0.1``, ``n_iter_no_change=10`` and the grid's largest ``max_iter``.

   CV and Agghoo evaluate the whole grid with one fit per split (staged predictions).
3. **Test risk** on the test rows: 0-1 loss or squared error.

Summaries: per set, each procedure's mean test risk, its ratio to CV's (ratio of means), and the
paired corrected resampled t-test (Nadeau & Bengio, the library's ``compare_paired``) at level
alpha: a **win** when the numerator is significantly lower, a **loss** when higher, a **tie**
otherwise. Across sets: geometric means of the ratios, win / tie / loss counts, and on how many
sets the numerator is lower; Agghoo / CV = ensemble (subagging / CV) x selection (Agghoo /
subagging). Cost per outer split: model fits, boosting rounds fitted, CPU seconds (each procedure
timed alone; subagging is charged CV's fits too, since it needs CV's choice).

Prints the summary tables; with ``--out DIR`` writes ``boosting.json`` and ``boosting.md``.

Usage: python bench/study_boosting.py [--data data/study] [--sets a,b,...] [--reps R] [--seed S]
       [--grid 10:200:10] [--max-train 300] [--max-test 1000] [--alpha 0.05] [--threads T]
       [--out DIR] [--quick]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import math
import pathlib
import sys
import time

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from threadpoolctl import threadpool_limits

from agghoo import AgghooClassifier, AgghooRegressor, AgghooSearchCV, AgghooSplitter
from agghoo import _native

#: The sets and size of ``--quick``: small sets of both tasks, one with categorical features and
#: missing values, one with categorical features only.
QUICK_SETS = ["iris", "penguins", "cpus", "salaries"]
QUICK_REPS = 3
QUICK_GRID = list(range(5, 41, 5))
PROCEDURES = ["cv", "agghoo", "subagging", "early stopping"]
#: (label, numerator, denominator) of the ratios reported across sets.
RATIOS = [
    ("agghoo / cv", "agghoo", "cv"),
    ("ensemble: subagging / cv", "subagging", "cv"),
    ("selection: agghoo / subagging", "agghoo", "subagging"),
    ("early stopping / cv", "early stopping", "cv"),
    ("agghoo / early stopping", "agghoo", "early stopping"),
]
FOLDS = 10
SPLITS = 10
TAU = 0.8
PATIENCE = 10
VALIDATION_FRACTION = 0.1
LEARNING_RATE = 0.1


# ---------------------------------------------------------------- data


def read_manifest(folder):
    """The manifest's rows as dicts (header columns), in file order."""
    path = pathlib.Path(folder) / "manifest.tsv"
    with open(path, newline="") as f:
        lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    if not lines or "name" not in lines[0]:
        raise ValueError(f"{path}: no header line with a `name` column")
    header = lines[0]
    for number, row in enumerate(lines[1:], start=2):
        if len(row) != len(header):
            raise ValueError(f"{path}, line {number}: {len(row)} fields, the header has {len(header)}")
    return [dict(zip(header, row)) for row in lines[1:]]


def load_set(folder, entry):
    """One set: ``X`` (float, NaN for a missing cell; categorical columns as level codes in sorted
    level order), the boolean mask of categorical columns, ``y`` (class names as strings, or
    floats) and the task."""
    path = pathlib.Path(folder) / f"{entry['name']}.csv.gz"
    categorical = set() if entry["categorical_names"] == "-" else set(entry["categorical_names"].split(","))
    with gzip.open(path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    if entry["target"] not in header:
        raise ValueError(f"{path}: no target column {entry['target']!r} (columns {header})")
    for number, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise ValueError(f"{path}, line {number}: {len(row)} fields, the header has {len(header)}")
    target = header.index(entry["target"])
    features = [j for j in range(len(header)) if j != target]
    X = np.empty((len(body), len(features)))
    mask = np.zeros(len(features), dtype=bool)
    for k, j in enumerate(features):
        cells = [row[j] for row in body]
        if header[j] in categorical:
            levels = sorted({c for c in cells if c != ""})
            if len(levels) > 255:
                raise ValueError(f"{path}: categorical column {header[j]!r} has {len(levels)} levels, "
                                 "HistGradientBoosting takes at most 255")
            code = {level: float(i) for i, level in enumerate(levels)}
            X[:, k] = [code[c] if c != "" else np.nan for c in cells]
            mask[k] = True
        else:
            for number, c in enumerate(cells, start=2):
                try:
                    X[number - 2, k] = float(c) if c != "" else np.nan
                except ValueError:
                    raise ValueError(f"{path}, line {number}, column {header[j]!r}: {c!r} is not a number "
                                     "(a categorical column missing from the manifest?)") from None
    labels = [row[target] for row in body]
    if entry["task"] == "classification":
        y = np.asarray(labels, dtype=str)
    else:
        y = np.asarray([float(v) for v in labels])
    return X, mask, y, entry["task"]


def outer_split(n, position, rep, seed, max_train, max_test):
    """Repetition ``rep``'s outer training and test rows of the set at ``position``."""
    order = np.random.default_rng([seed, position, rep]).permutation(n)
    n_train = min(n * 7 // 10, max_train)
    n_test = min(n - n_train, max_test)
    return order[:n_train], order[n_train:n_train + n_test]


# ---------------------------------------------------------------- one repetition


def repetition(X, mask, y, task, train, test, grid, seed):
    """Every procedure on one outer split: test risk, chosen rounds, fits, rounds fitted, seconds."""
    classification = task == "classification"
    Boost = HistGradientBoostingClassifier if classification else HistGradientBoostingRegressor
    base = Boost(early_stopping=False, learning_rate=LEARNING_RATE, categorical_features=mask, random_state=0)
    scoring = "accuracy" if classification else "neg_mean_squared_error"
    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    largest = max(grid)

    def risk(model):
        predicted = model.predict(Xte)
        if classification:
            return float(np.mean(predicted != yte))
        return float(np.mean((np.asarray(predicted, dtype=float) - yte) ** 2))

    out = {}
    vfold = AgghooSplitter(f"vfold:{FOLDS}", stratify=classification, random_state=seed)
    start = time.process_time()
    cv = AgghooSearchCV(base, {"max_iter": grid}, cv=vfold, method="cv", scoring=scoring).fit(Xtr, ytr)
    chosen = int(cv.best_params_["max_iter"])
    out["cv"] = {"risk": risk(cv), "seconds": time.process_time() - start, "fits": FOLDS + 1,
                 "rounds": FOLDS * largest + chosen, "chosen": float(chosen)}

    mc = list(AgghooSplitter(f"mc:{SPLITS}:{TAU}", stratify=classification, random_state=seed + 1).split(Xtr, ytr))
    start = time.process_time()
    agg = AgghooSearchCV(base, {"max_iter": grid}, cv=mc, method="majhoo" if classification else "agghoo",
                         scoring=scoring).fit(Xtr, ytr)
    members = [int(p["max_iter"]) for p in agg.selected_params_]
    out["agghoo"] = {"risk": risk(agg), "seconds": time.process_time() - start, "fits": 2 * SPLITS,
                     "rounds": SPLITS * largest + sum(members), "chosen": float(np.mean(members))}

    Wrapper = AgghooClassifier if classification else AgghooRegressor
    start = time.process_time()
    sub = Wrapper(estimator=clone(base).set_params(max_iter=chosen), param_grid={"max_iter": [chosen]}, cv=mc,
                  method="agghoo", scoring=scoring).fit(Xtr, ytr)
    out["subagging"] = {"risk": risk(sub), "seconds": out["cv"]["seconds"] + time.process_time() - start,
                        "fits": out["cv"]["fits"] + SPLITS, "rounds": out["cv"]["rounds"] + SPLITS * chosen,
                        "chosen": float(chosen)}

    start = time.process_time()
    es = Boost(early_stopping=True, validation_fraction=VALIDATION_FRACTION, n_iter_no_change=PATIENCE,
               learning_rate=LEARNING_RATE, max_iter=largest, categorical_features=mask, random_state=seed).fit(Xtr, ytr)
    out["early stopping"] = {"risk": risk(es), "seconds": time.process_time() - start, "fits": 1,
                             "rounds": int(es.n_iter_), "chosen": float(es.n_iter_)}
    return out


# ---------------------------------------------------------------- summaries


def paired(a, b, n_rows, outer, alpha):
    """Ratio of means of ``a`` over ``b``, the corrected resampled t-test's p-value and the verdict
    for ``a`` (None when the two never differ)."""
    mean_a, mean_b = float(np.mean(a)), float(np.mean(b))
    ratio = 1.0 if mean_a == mean_b else (mean_a / mean_b if mean_b > 0 else math.inf)
    folds = [(np.asarray(tr, dtype=np.int64), np.asarray(te, dtype=np.int64)) for tr, te in outer]
    test = json.loads(_native.compare_paired("a", list(a), "b", list(b), n_rows, folds))["corrected_t_test"]
    p = float(test["p_value"])
    verdict = "tie" if p >= alpha else ("win" if mean_a < mean_b else "loss")
    return {"ratio": ratio, "difference": mean_a - mean_b, "p_value": p, "verdict": verdict}


def run_set(folder, entry, position, reps, seed, grid, max_train, max_test, alpha):
    X, mask, y, task = load_set(folder, entry)
    outer = [outer_split(len(y), position, r, seed, max_train, max_test) for r in range(reps)]
    results = [repetition(X, mask, y, task, tr, te, grid, seed * 1_000_003 + position * 1_009 + r)
               for r, (tr, te) in enumerate(outer)]
    procedures = {}
    for name in PROCEDURES:
        risks = [r[name]["risk"] for r in results]
        procedures[name] = {
            "mean_risk": float(np.mean(risks)),
            "standard_error": float(np.std(risks, ddof=1) / math.sqrt(len(risks))) if len(risks) > 1 else math.nan,
            "test_risks": risks,
            "chosen_rounds": [r[name]["chosen"] for r in results],
            "fits": float(np.mean([r[name]["fits"] for r in results])),
            "rounds": float(np.mean([r[name]["rounds"] for r in results])),
            "seconds": float(np.mean([r[name]["seconds"] for r in results])),
        }
    ratios = {label: paired(procedures[a]["test_risks"], procedures[b]["test_risks"], len(y), outer, alpha)
              for label, a, b in RATIOS}
    return {"set": entry["name"], "task": task, "n_rows": len(y), "n_train": len(outer[0][0]),
            "n_test": len(outer[0][1]), "categorical": int(mask.sum()), "procedures": procedures,
            "ratios": ratios, "error": None}


def summarize(cells):
    """Per ratio and task group: geometric mean, wins / ties / losses, lower on how many sets, median."""
    done = [c for c in cells if c["error"] is None]
    out = []
    for label, _, _ in RATIOS:
        for group in ("all", "classification", "regression"):
            chosen = [c["ratios"][label] for c in done if group in ("all", c["task"])]
            finite = [r["ratio"] for r in chosen if 0 < r["ratio"] < math.inf]
            out.append({
                "ratio": label, "group": group, "sets": len(chosen),
                "geometric_mean": float(np.exp(np.mean(np.log(finite)))) if finite else math.nan,
                "geometric_mean_sets": len(finite),  # a ratio of 0 or infinity (a zero mean risk) is left out
                "median": float(np.median([r["ratio"] for r in chosen])) if chosen else math.nan,
                "wins": sum(r["verdict"] == "win" for r in chosen),
                "ties": sum(r["verdict"] == "tie" for r in chosen),
                "losses": sum(r["verdict"] == "loss" for r in chosen),
                "lower": sum(r["ratio"] < 1 for r in chosen),
            })
    return out


def costs(cells):
    """Per procedure: fits, rounds fitted and seconds per outer split, mean over the sets."""
    done = [c for c in cells if c["error"] is None]
    return [{"procedure": name, **{k: float(np.mean([c["procedures"][name][k] for c in done])) if done else math.nan
                                   for k in ("fits", "rounds", "seconds")}} for name in PROCEDURES]


def study(folder, sets=None, reps=10, seed=1, grid=None, max_train=300, max_test=1000, alpha=0.05, threads=1,
          quick=False, progress=None):
    """The whole experiment as a JSON-ready dict (``settings``, ``cells``, ``summary``, ``costs``);
    ``progress``, if given, gets the result so far after each set."""
    manifest = read_manifest(folder)
    if quick:
        sets, reps, grid = sets or QUICK_SETS, QUICK_REPS, grid or QUICK_GRID
    grid = sorted(set(grid or range(10, 201, 10)))
    if not grid or grid[0] < 1:
        raise ValueError(f"grid: positive numbers of rounds, got {grid}")
    if reps < 2:
        raise ValueError(f"reps: at least 2 outer splits for the paired tests, got {reps}")
    names = [e["name"] for e in manifest]
    chosen = names if not sets else list(sets)
    unknown = [s for s in chosen if s not in names]
    if unknown:
        raise ValueError(f"sets {unknown} are not in {pathlib.Path(folder) / 'manifest.tsv'} (it has {', '.join(names)})")
    settings = {"data": str(folder), "sets": chosen, "reps": reps, "seed": seed, "grid": grid,
                "max_train": max_train, "max_test": max_test, "alpha": alpha, "threads": threads,
                "folds": FOLDS, "splits": SPLITS, "tau": TAU, "learning_rate": LEARNING_RATE,
                "early_stopping": {"validation_fraction": VALIDATION_FRACTION, "n_iter_no_change": PATIENCE},
                "quick": quick}
    started, wall = time.process_time(), time.perf_counter()
    cells = []

    def result():
        done = {"cpu_seconds": time.process_time() - started, "wall_seconds": time.perf_counter() - wall}
        return {"settings": {**settings, **done}, "cells": cells, "summary": summarize(cells), "costs": costs(cells)}

    with threadpool_limits(limits=threads):
        for name in chosen:
            position = names.index(name)
            t0 = time.perf_counter()
            try:
                cell = run_set(folder, manifest[position], position, reps, seed, grid, max_train, max_test, alpha)
            except Exception as e:  # one failed set is reported, the others still run
                cell = {"set": name, "task": manifest[position]["task"], "error": f"{type(e).__name__}: {e}"}
            cell["wall_seconds"] = time.perf_counter() - t0
            cells.append(cell)
            if progress:
                progress(result())
    return result()


# ---------------------------------------------------------------- output


def _verdicts(rows):
    return f"{sum(r['verdict'] == 'win' for r in rows)}/{sum(r['verdict'] == 'tie' for r in rows)}/" \
           f"{sum(r['verdict'] == 'loss' for r in rows)}"


def markdown(result):
    """The summary, cost and per-set tables as Markdown."""
    s = result["settings"]
    done = [c for c in result["cells"] if c["error"] is None]
    lines = [
        f"HistGradientBoosting, learning rate {s['learning_rate']}, max_iter in {s['grid'][0]}..{s['grid'][-1]} "
        f"({len(s['grid'])} points); {len(done)} of {len(result['cells'])} sets, {s['reps']} outer splits, "
        f"at most {s['max_train']} training and {s['max_test']} test rows, seed {s['seed']}; "
        f"{s['cpu_seconds']:.0f} CPU-s, {s['wall_seconds']:.0f} s wall, {s['threads']} thread(s).",
        "",
        "Geometric mean over the sets of each ratio of mean test risks; wins / ties / losses of the numerator "
        f"(corrected resampled t-test, alpha = {s['alpha']}); on how many sets the numerator is lower; the median ratio.",
        "",
        "| ratio | all | classification | regression |",
        "|---|---|---|---|",
    ]
    for label, _, _ in RATIOS:
        cols = []
        for group in ("all", "classification", "regression"):
            row = next(r for r in result["summary"] if r["ratio"] == label and r["group"] == group)
            left_out = row["sets"] - row["geometric_mean_sets"]
            note = f", {left_out} with a zero risk left out of the mean" if left_out else ""
            cols.append(f"{row['geometric_mean']:.3f} ({row['wins']}/{row['ties']}/{row['losses']}; "
                        f"{row['lower']} of {row['sets']}{note}; median {row['median']:.3f})" if row["sets"] else "-")
        lines.append(f"| {label} | " + " | ".join(cols) + " |")
    lines += ["", "Cost per outer split (mean over the sets; subagging includes CV's fits, whose choice it needs):", "",
              "| procedure | model fits | boosting rounds fitted | CPU seconds |", "|---|---|---|---|"]
    for c in result["costs"]:
        lines.append(f"| {c['procedure']} | {c['fits']:.1f} | {c['rounds']:.0f} | {c['seconds']:.3f} |")
    lines += ["", "Per set: mean test risk of CV (0-1 loss or squared error), each ratio with its p-value, "
              "mean rounds chosen (CV / Agghoo members / early stopping).", "",
              "| set | task | n_train | cv risk | " + " | ".join(label for label, _, _ in RATIOS) + " | rounds |",
              "|---|---|---|---|" + "---|" * len(RATIOS) + "---|"]
    for c in result["cells"]:
        if c["error"] is not None:
            lines.append(f"| {c['set']} | {c['task']} | failed: {c['error']} |")
            continue
        p = c["procedures"]
        ratios = " | ".join(f"{c['ratios'][label]['ratio']:.3f} (p {c['ratios'][label]['p_value']:.2f})"
                            for label, _, _ in RATIOS)
        rounds = "/".join(f"{np.mean(p[k]['chosen_rounds']):.0f}" for k in ("cv", "agghoo", "early stopping"))
        lines.append(f"| {c['set']} | {c['task'][:5]}. | {c['n_train']} | {p['cv']['mean_risk']:.4g} | {ratios} | {rounds} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default="data/study", help="the study folder (manifest.tsv, NAME.csv.gz)")
    parser.add_argument("--sets", help="comma-separated set names (default: every set of the manifest)")
    parser.add_argument("--reps", type=int, default=10, help="outer splits per set")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--grid", default="10:200:10", help="max_iter grid FIRST:LAST:STEP")
    parser.add_argument("--max-train", type=int, default=300)
    parser.add_argument("--max-test", type=int, default=1000)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--threads", type=int, default=1, help="OpenMP threads of the boosting fits")
    parser.add_argument("--out", help="folder for boosting.json and boosting.md")
    parser.add_argument("--quick", action="store_true",
                        help=f"{', '.join(QUICK_SETS)}; {QUICK_REPS} outer splits; max_iter 5..40")
    args = parser.parse_args(argv)
    try:
        first, last, step = (int(v) for v in args.grid.split(":"))
    except ValueError:
        parser.error(f"--grid: FIRST:LAST:STEP (integers), got {args.grid!r}")
    grid = list(range(first, last + 1, step)) if step > 0 else []
    if not grid:
        parser.error(f"--grid {args.grid!r} gives no rounds")

    def write(result):
        text = markdown(result)
        if args.out:
            out = pathlib.Path(args.out)
            out.mkdir(parents=True, exist_ok=True)
            (out / "boosting.json").write_text(json.dumps(result, indent=1) + "\n")
            (out / "boosting.md").write_text(text)
        return text

    def progress(result):  # the files hold every finished set, so an interrupted run keeps them
        cell = result["cells"][-1]
        status = f"failed: {cell['error']}" if cell["error"] else "done"
        print(f"{cell['set']}: {status} ({cell['wall_seconds']:.0f} s)", file=sys.stderr, flush=True)
        write(result)

    result = study(args.data, sets=args.sets.split(",") if args.sets else None, reps=args.reps, seed=args.seed,
                   grid=None if args.quick and args.grid == "10:200:10" else grid, max_train=args.max_train,
                   max_test=args.max_test, alpha=args.alpha, threads=args.threads, quick=args.quick,
                   progress=progress)
    print(write(result), end="")
    return 1 if any(c["error"] for c in result["cells"]) else 0


if __name__ == "__main__":
    sys.exit(main())
