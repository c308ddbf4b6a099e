#!/usr/bin/env bash
# Times ridge / kernel ridge (ours, release build) and scikit-learn on the same problems and prints
# a markdown table. Usage: bench/run-ridge.sh [REPEATS]   (default 3; best of REPEATS per task)
# Both sides run single-threaded by default (RAYON_NUM_THREADS=1, OPENBLAS/OMP_NUM_THREADS=1): on
# this shared 2-core machine OpenBLAS with 2 threads was 30× slower than with 1 (busy-waiting
# threads), and one thread each is the reproducible comparison. Override by exporting them.
source "$(dirname "$0")/lib.sh"
export RAYON_NUM_THREADS="${RAYON_NUM_THREADS:-1}" OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
cd "$(dirname "$0")/.."
repeats="${1:-3}"
python="${PYTHON:-.venv/bin/python}"
dir="$(pwd)/target/ridge-bench"
mkdir -p "$dir"
RIDGE_BENCH_DIR="$dir" RIDGE_BENCH_REPEATS="$repeats" cargo bench -q -p agghoo --bench ridge > "$dir/ours.tsv"
"$python" bench/peers/ridge.py "$dir" "$repeats" > "$dir/peer.tsv"
echo "| task | agghoo (s) | scikit-learn (s) | ratio (sklearn / ours) |"
echo "|---|---:|---:|---:|"
join -t $'\t' <(sort "$dir/ours.tsv") <(sort "$dir/peer.tsv") |
  awk -F'\t' '{ printf "| %s | %.4f | %.4f | %.1f× |\n", $1, $2, $3, $3 / $2 }'
echo
echo "threads: RAYON_NUM_THREADS=$RAYON_NUM_THREADS, OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS, OMP_NUM_THREADS=$OMP_NUM_THREADS; $(nproc --all) cores; $("$python" -c 'import sklearn, numpy; print(f"scikit-learn {sklearn.__version__}, numpy {numpy.__version__}")')"
