#!/usr/bin/env bash
# Feature-selection benchmark: ours (release) and mlxtend on the same data and folds, one run;
# prints a markdown table. Usage: bench/run-features.sh [--quick]   (needs bench/setup-venv.sh once)
cd "$(dirname "$0")/.."
source bench/lib.sh
py=.venv/bin/python
[ -x "$py" ] || py=.venv/bin/python
[ -x "$py" ] || { bash bench/setup-venv.sh; py=.venv/bin/python; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ours=$(run cargo bench -q -p agghoo --bench features -- "$@" --write-data "$dir")
peer=$("$py" bench/peers/features.py "$dir" "$@")
# the n_jobs=2 peer run is skipped with --quick (it takes as long as the n_jobs=1 one)
peer2=""
case " $* " in *" --quick "*) ;; *) peer2=$("$py" bench/peers/features.py "$dir" --jobs 2 "$@") ;; esac
get() { printf '%s\n' "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
a=$(get "$ours" sffs_knn_d30_n600); a1=$(get "$ours" sffs_knn_d30_n600_1thread); ac=$(get "$ours" sffs_knn_d30_n600_cpu)
m=$(get "$peer" sffs_knn_d30_n600_mlxtend); mc=$(get "$peer" sffs_knn_d30_n600_mlxtend_cpu); m2=$(get "$peer2" sffs_knn_d30_n600_mlxtend_jobs2)
echo "| case | agghoo (s) | peer | peer (s) | speed-up |"
echo "|---|---|---|---|---|"
awk -v a="$a" -v a1="$a1" -v ac="$ac" -v m="$m" -v mc="$mc" -v m2="$m2" 'BEGIN {
  printf "| SFFS k-NN wrapper (k = 5, 5-fold), d = 30, n = 600, best size, 1 thread, wall | %.2f | mlxtend SFS(floating=True), n_jobs=1 | %.1f | %.0fx |\n", a1, m, m / a1;
  printf "| same, CPU time (user + system) | %.2f | mlxtend, n_jobs=1, CPU | %.1f | %.0fx |\n", ac, mc, mc / ac;
  if (m2 != "") printf "| same, all threads (2 cores), wall | %.2f | mlxtend, n_jobs=2 | %.1f | %.0fx |\n", a, m2, m2 / a;
  else printf "| same, all threads (2 cores), wall | %.2f | (mlxtend n_jobs=2 not run with --quick) | | |\n", a }'
printf '%s\n' "$ours" | awk '$1 ~ /^cfs/ { printf "| CFS forward search %s (no peer has CFS) | %.3f | | | |\n", $1, $2 }'
echo
printf '%s\n' "$ours" "$peer" "$peer2" | grep '^#' || true
