#!/usr/bin/env bash
# The Python package against scikit-learn on identical splits and grids (built-in k-NN and RBF SVC
# families vs GridSearchCV, Agghoo over a scikit-learn estimator vs GridSearchCV), and the Python
# layer against the compiled call it wraps. Needs the package in .venv (./test.sh installs it).
# Usage: bench/run-python.sh [--reps R] [--quick]   (from the repository root)
cd "$(dirname "$0")/.."
source bench/lib.sh
PY=${PY:-.venv/bin/python}
res=$(run "$PY" bench/python_bench.py "$@")
require "$res" bc_knn_ours_seconds syn_knn_peer_seconds bc_svc_ours_seconds meta_peer_seconds knn_majhoo_native_seconds ridge_agghoo_fit_seconds
get() { printf '%s\n' "$res" | awk -F'\t' -v k="$1" '$1 == k { print $2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
echo "| case | agghoo (s) | scikit-learn (s) | ratio |"
echo "|---|---|---|---|"
for t in bc syn; do
  echo "| k-NN, 25 k, 10 Monte-Carlo splits ($t) | $(get ${t}_knn_ours_seconds) | $(get ${t}_knn_peer_seconds) | $(ratio "$(get ${t}_knn_peer_seconds)" "$(get ${t}_knn_ours_seconds)") |"
  echo "| RBF SVC, 9 C, 10 splits ($t; curves differ by $(get ${t}_svc_max_curve_difference)) | $(get ${t}_svc_ours_seconds) | $(get ${t}_svc_peer_seconds) | $(ratio "$(get ${t}_svc_peer_seconds)" "$(get ${t}_svc_ours_seconds)") |"
done
echo "| estimator=KNeighborsClassifier, 7 k, 10 splits (fits in Python) | $(get meta_ours_seconds) | $(get meta_peer_seconds) | $(ratio "$(get meta_peer_seconds)" "$(get meta_ours_seconds)") |"
echo
echo "| Python layer | estimator fit (s) | compiled call (s) | overhead |"
echo "|---|---|---|---|"
for t in knn_majhoo ridge_agghoo; do
  f=$(get ${t}_fit_seconds); n=$(get ${t}_native_seconds)
  echo "| $t | $f | $n | $(awk -v a="$f" -v b="$n" 'BEGIN { printf "%+.1f %%", 100 * (a - b) / b }') |"
done
