#!/usr/bin/env bash
# CV of a binary RBF SVC over 12 C values spanning 1e-2..1e3 (n = 2000, d = 10, 10 Monte-Carlo splits):
# the whole `agghoo select` process against a whole Python process running GridSearchCV(n_jobs=-1) on
# the same splits (bench/peers/svc_wide.py). Usage: bench/run-svc-wide.sh [reps]   (from the repository root)
cd "$(dirname "$0")/.."
source bench/lib.sh
PY=${PY:-.venv/bin/python}
cargo build -q --release -p agghoo-cli
out=$(run "$PY" bench/peers/svc_wide.py "${1:-3}")
require "$out" ours_seconds peer_seconds ratio curve_max_abs_diff
get() { printf '%s\n' "$out" | awk -F'\t' -v k="$1" '$1 == k { print $2 }'; }
echo "| case | agghoo (whole process) | GridSearchCV(n_jobs=-1) (whole process) | ratio | curves differ by |"
echo "|---|---|---|---|---|"
echo "| RBF SVC, n = 2000, d = 10, 12 C over 1e-2..1e3, 10 splits | $(get ours_seconds) s | $(get peer_seconds) s | **$(get ratio)×** | $(get curve_max_abs_diff) |"
