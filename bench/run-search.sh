#!/usr/bin/env bash
# AgghooSearchCV(method="cv") against GridSearchCV, whole fit, same folds and cores: k-NN
# n_neighbors 1..99 on breast cancer (10 ShuffleSplit folds) and HistGradientBoostingClassifier
# max_iter 10..200 (20 points, 3 folds). Fails (non-zero, error shown) if a curve differs or a run
# fails. Needs the package in .venv (./test.sh installs it).
# Usage: bench/run-search.sh [--reps R] [--quick]   (from the repository root)
cd "$(dirname "$0")/.."
source bench/lib.sh
PY=${PY:-.venv/bin/python}
res=$(run "$PY" bench/search_bench.py "$@")
require "$res" knn_ours_seconds knn_peer_seconds hgb_ours_seconds hgb_peer_seconds
get() { printf '%s\n' "$res" | awk -F'\t' -v k="$1" '$1 == k { print $2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
echo "| case | AgghooSearchCV (s) | GridSearchCV (s) | speed-up | curves differ by |"
echo "|---|---|---|---|---|"
echo "| k-NN n_neighbors 1..99, breast cancer, 10 ShuffleSplit folds | $(get knn_ours_seconds) | $(get knn_peer_seconds) | $(ratio "$(get knn_peer_seconds)" "$(get knn_ours_seconds)")× | $(get knn_max_curve_difference) |"
echo "| HistGradientBoostingClassifier max_iter 10..200 (20 points), 3 folds | $(get hgb_ours_seconds) | $(get hgb_peer_seconds) | $(ratio "$(get hgb_peer_seconds)" "$(get hgb_ours_seconds)")× | $(get hgb_max_curve_difference) |"
