#!/usr/bin/env bash
# k-NN Majhoo as whole processes side by side (bench/peers/knn_process.py): the `agghoo select` process
# against a Python process doing the peer's work on the same CSV and splits (reading included).
# Usage: bench/run-knn-process.sh [--quick] [--large] [--reps R]   (from the repository root)
cd "$(dirname "$0")/.."
source bench/lib.sh
PY=${PY:-.venv/bin/python}
cargo build -q --release -p agghoo-cli
out=$(run "$PY" bench/peers/knn_process.py "$@")
require "$out" n500_d2_sklearn
echo "| case | agghoo process (s) | peer process (s) | ratio |"
echo "|---|---|---|---|"
printf '%s\n' "$out" | awk -F'\t' '{ printf "| %s | %s | %s | **%s×** |\n", $1, $2, $3, $4 }'
