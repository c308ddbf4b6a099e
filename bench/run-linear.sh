#!/usr/bin/env bash
# Lasso / logistic paths: agghoo (release) vs scikit-learn on the same data. Prints two markdown tables:
# both sides on one thread (RAYON_NUM_THREADS=1, OPENBLAS/OMP/MKL_NUM_THREADS=1), then both with their
# default threading (rayon: all cores; NumPy's BLAS: all cores).
# Needs the peer venv (bench/setup-venv.sh) at ./.venv or $PYTHON.
cd "$(dirname "$0")/.."
source bench/lib.sh
PYTHON="${PYTHON:-.venv/bin/python}"
DATA="${LINEAR_BENCH_DATA:-$PWD/target/linear-bench}"
mkdir -p "$DATA"
[ -f "$DATA/lasso_x.bin" ] || "$PYTHON" bench/peers/linear.py "$DATA" gen
cargo build -q --release -p agghoo --benches

table() {
  local ours="$1" peer="$2"
  echo "| case | agghoo (s) | scikit-learn (s) | ratio (agghoo / sklearn) |"
  echo "|---|---|---|---|"
  while read -r case secs; do
    base=${case%_ours_cold}
    p=$(echo "$peer" | awk -v c="$base" '$1 == c { print $2 }')
    label=$case
    [ "$base" != "$case" ] && label="$case (no warm start)"
    echo "| $label | $secs | $p | $(awk -v a="$secs" -v b="$p" 'BEGIN { printf "%.2f", a / b }') |"
  done <<< "$ours"
}

echo "### One thread each"
echo
ours=$(RAYON_NUM_THREADS=1 LINEAR_BENCH_DATA="$DATA" run cargo bench -q -p agghoo --bench linear)
peer=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 "$PYTHON" -W ignore bench/peers/linear.py "$DATA")
table "$ours" "$peer"
echo
echo "### Default threading"
echo
ours=$(LINEAR_BENCH_DATA="$DATA" run cargo bench -q -p agghoo --bench linear)
peer=$("$PYTHON" -W ignore bench/peers/linear.py "$DATA")
table "$ours" "$peer"
echo
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
