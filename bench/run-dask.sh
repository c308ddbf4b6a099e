#!/usr/bin/env bash
# agghoo on a Dask LocalCluster (2, 4, 8 worker processes, one thread each) against the local run:
# bytes moved by the distributed TreeCV (from the workers' transfer logs) and the cluster's
# overhead. Needs the package and dask in .venv (./test.sh installs both).
# Usage: bench/run-dask.sh [--quick]   (from the repository root)
cd "$(dirname "$0")/.."
source bench/lib.sh
PY=${PY:-.venv/bin/python}
res=$(run "$PY" bench/dask_bench.py "$@")
require "$res" treecv_loo_chunk_bytes_moved treecv_loo_model_bytes_moved nested_10x10_cluster_seconds forest_agghoo_cluster_seconds forest_agghoo_outcome_bytes
get() { printf '%s\n' "$res" | awk -F'\t' -v k="$1" '$1 == k { print $2 }'; }
echo "| run | n | workers | tasks | transfers | chunk bytes moved | model bytes moved | local (s) | cluster (s) |"
echo "|---|---|---|---|---|---|---|---|---|"
for t in treecv_loo treecv_scale2 treecv_scale4 treecv_scale8; do
  echo "| TreeCV LOO, PEGASOS, d = 54 | $(get ${t}_n) | $(get ${t}_workers) | $(get ${t}_tasks) | $(get ${t}_transfers) | $(get ${t}_chunk_bytes_moved) | $(get ${t}_model_bytes_moved) | $(get ${t}_local_seconds) | $(get ${t}_cluster_seconds) |"
done
echo
echo "| run | local (s) | LocalCluster, 2 workers (s) | outcome bytes gathered |"
echo "|---|---|---|---|"
echo "| nested 10 × 10 comparison (k-NN, agghoo vs cv) | $(get nested_10x10_local_seconds) | $(get nested_10x10_cluster_seconds) | $(get nested_10x10_outcome_bytes) |"
echo "| forest Agghoo (50 trees, mtry 2 and 5, 10 splits) | $(get forest_agghoo_local_seconds) | $(get forest_agghoo_cluster_seconds) | $(get forest_agghoo_outcome_bytes) |"
