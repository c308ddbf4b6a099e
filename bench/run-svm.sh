#!/usr/bin/env bash
# Runs the SVM benchmark (ours, release) and its scikit-learn peer on the same data; prints a
# markdown table. Usage: bench/run-svm.sh   (from the repository root)
cd "$(dirname "$0")/.."
source bench/lib.sh
PY=${PY:-.venv/bin/python}
ours=$(run cargo bench -q -p agghoo --bench svm)
ours1=$(RAYON_NUM_THREADS=1 run cargo bench -q -p agghoo --bench svm)
peer=$("$PY" bench/peers/svm.py 3)
require "$ours" ours_seconds ours_threads ours_test_abs_risk ours_selected_j
require "$ours1" ours_seconds
require "$peer" peer_seconds peer_sklearn peer_test_abs_risk
get() { printf '%s\n' "$1" | awk -F'\t' -v k="$2" '$1 == k { print $2 }'; }
o=$(get "$ours" ours_seconds); o1=$(get "$ours1" ours_seconds); p=$(get "$peer" peer_seconds)
echo "| measure | ours ($(get "$ours" ours_threads) threads) | ours (1 thread) | scikit-learn $(get "$peer" peer_sklearn) SVR | ratio peer/ours (1 thread) |"
echo "|---|---|---|---|---|"
echo "| one Agghoo run, V = 10, 17 grid values (s, median) | $o | $o1 | $p | $(awk -v a="$p" -v b="$o1" 'BEGIN { printf "%.1f", a / b }') |"
echo "| test mean abs error vs y | $(get "$ours" ours_test_abs_risk) | $(get "$ours1" ours_test_abs_risk) | $(get "$peer" peer_test_abs_risk) | |"
echo "| test mean abs distance to exp(cos x) | $(get "$ours" ours_test_abs_dist_to_regression_fn) | | $(get "$peer" peer_test_abs_dist_to_regression_fn) | |"
echo "| selected j per split | $(get "$ours" ours_selected_j) | | $(get "$peer" peer_selected_j) | |"
