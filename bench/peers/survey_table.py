"""A survey-like table with badly scaled columns, for the solvers' unscaled-data tests.

Run once: `.venv/bin/python bench/peers/survey_table.py > crates/agghoo-cli/tests/fixtures/survey.csv`
(numpy's `default_rng`, so the file is the same on every machine with numpy ≥ 1.17).

2 700 rows: `population` (~1e5, log-normal), `income` (~1e5), `age` (18–90), `score` (±1.5), three text
columns (`region`, `education`, `employment`) and the target `vote` (4 classes, drawn from a softmax of the
standardised features and the levels). About 1 % of the numeric cells are empty (`--missing median`).
The scales span five decades, as in real survey extracts that nobody standardised.
"""
import sys

import numpy as np

rng = np.random.default_rng(20260530)
n = 2700
regions = np.array(["north", "south", "east", "west", "centre"])
educations = np.array(["primary", "secondary", "bachelor", "master"])
employments = np.array(["employed", "unemployed", "retired"])
region = rng.integers(0, len(regions), n)
education = rng.integers(0, len(educations), n)
employment = rng.integers(0, len(employments), n)
population = np.round(np.exp(rng.normal(11.5, 0.8, n)))
income = np.round(np.maximum(8_000.0, rng.normal(60_000, 25_000, n) + 15_000 * education), -1)
age = rng.integers(18, 91, n).astype(float)
score = np.round(rng.uniform(-1.5, 1.5, n), 3)


def z(v):
    return (v - v.mean()) / v.std()


lp = np.log(population)
logits = np.stack([
    0.0 * lp,
    0.8 * z(lp) - 0.6 * z(income) + 0.5 * score + 0.3 * (region == 1),
    -0.5 * z(lp) + 0.7 * z(income) + 0.4 * z(age) - 0.4 * score + 0.4 * (education == 3),
    0.3 * z(age) + 0.9 * score - 0.5 * (employment == 1) + 0.3 * (region == 4),
], axis=1)
p = np.exp(logits - logits.max(axis=1, keepdims=True))
p /= p.sum(axis=1, keepdims=True)
vote = np.array([rng.choice(4, p=row) for row in p])
names = np.array(["left", "centre", "right", "green"])

columns = {"population": population, "income": income, "age": age, "score": score}
missing = {k: rng.random(n) < 0.01 for k in columns}
out = sys.stdout
out.write("region,population,income,age,score,education,employment,vote\n")
for i in range(n):
    cells = [regions[region[i]]]
    for k in ["population", "income", "age", "score"]:
        v = columns[k][i]
        cells.append("" if missing[k][i] else (f"{v:.3f}".rstrip("0").rstrip(".") if k == "score" else f"{v:.0f}"))
    cells += [educations[education[i]], employments[employment[i]], names[vote[i]]]
    out.write(",".join(cells) + "\n")
