#!/usr/bin/env bash
# Risk-estimation benchmark, ours and the Python peers in one run; prints a markdown table.
# Usage: bench/run-estimate.sh [--quick]   (needs bench/setup-venv.sh once, or PYTHON=/path/to/python)
cd "$(dirname "$0")/.."
source bench/lib.sh
py=${PYTHON:-.venv/bin/python}
[ -x "$py" ] || { bash bench/setup-venv.sh; py=.venv/bin/python; }
ours=$(run cargo bench -q -p agghoo --bench estimate -- "$@")
peer=$("$py" bench/peers/estimate.py "$@")
get() { printf '%s\n%s\n' "$ours" "$peer" | awk -v k="$1" '$1 == k { print $2 }'; }
echo "Load average while running: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
echo
echo "| case | agghoo (s) | peer | peer (s) | speed-up |"
echo "|---|---|---|---|---|"
awk -v a="$(get nested_agghoo)" -v c="$(get nested_cv)" -v s1="$(get nested_sklearn_1job)" -v sa="$(get nested_sklearn_alljobs)" \
    -v ea="$(get nested_agghoo_error)" -v ec="$(get nested_cv_error)" -v es="$(get nested_sklearn_error)" \
    -v b="$(get bootstrap632plus_n1000_b20)" -v m="$(get bootstrap632plus_n1000_b20_mlxtend)" -v big="$(get bootstrap632plus_n10000_b200)" 'BEGIN {
  best = (s1 < sa) ? s1 : sa;
  printf "| nested 10x10 CV, Breast Cancer (683 rows), k-NN k = 1..99 odd, **Agghoo** inside (error %.4f) | %.3f | cross_validate(GridSearchCV(KNeighborsClassifier)), best of n_jobs 1 / all (error %.4f) | %.2f | **%.0fx** |\n", ea, a, es, best, best / a;
  printf "| same, **CV selection** inside (error %.4f) — the same procedure as GridSearchCV | %.3f | same | %.2f | **%.0fx** |\n", ec, c, best, best / c;
  printf "| bootstrap .632+, k-NN regression k = 10, n = 1000, B = 20 | %.3f | mlxtend bootstrap_point632_score(.632+) | %.2f | %.0fx |\n", b, m, m / b;
  printf "| bootstrap .632+, k-NN regression k = 10, n = 10 000, B = 200 | %.2f | (mlxtend: n^2 Python pairs per resample, not run) | | |\n", big }'
