#!/usr/bin/env bash
# Lasso / elastic-net paths and logistic paths: agghoo (release) vs scikit-learn on the same data. Prints two
# markdown tables: both sides on one thread (RAYON_NUM_THREADS=1, OPENBLAS/OMP/MKL_NUM_THREADS=1), then both with
# their default threading (rayon: all cores; NumPy's BLAS: all cores).
# Needs the peer venv (bench/setup-venv.sh) at ./.venv or $PYTHON.
#   --only TEXT   run only the cases whose name contains TEXT (both sides)
#   --small       generate toy-sized data in a separate directory (a smoke test of the scripts, not a benchmark)
# Any failing bench or peer, or a case one side did not report, stops the script with a non-zero exit.
cd "$(dirname "$0")/.."
source bench/lib.sh
PYTHON="${PYTHON:-.venv/bin/python}"
ONLY=""
SMALL=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) ONLY="$2"; shift 2 ;;
    --small) SMALL="--small"; shift ;;
    *) echo "run-linear.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
DATA="${LINEAR_BENCH_DATA:-$PWD/target/linear-bench${SMALL:+-small}}"
mkdir -p "$DATA"
[ -f "$DATA/logit20_x.bin" ] || "$PYTHON" bench/peers/linear.py "$DATA" gen $SMALL
cargo build -q --release -p agghoo --benches

table() {
  local ours="$1" peer="$2"
  echo "| case | agghoo (s) | scikit-learn (s) | ratio (agghoo / sklearn) |"
  echo "|---|---|---|---|"
  while read -r case secs; do
    base=${case%_ours_cold}
    p=$(echo "$peer" | awk -v c="$base" '$1 == c { print $2 }')
    if [ -z "$p" ]; then
      echo "run-linear.sh: FAILED: the peer reported no time for $base" >&2
      exit 1
    fi
    label=$case
    [ "$base" != "$case" ] && label="$case (no warm start)"
    echo "| $label | $secs | $p | $(awk -v a="$secs" -v b="$p" 'BEGIN { printf "%.2f", a / b }') |"
  done <<< "$ours"
}

echo "### One thread each"
echo
ours=$(RAYON_NUM_THREADS=1 LINEAR_BENCH_ONLY="$ONLY" LINEAR_BENCH_DATA="$DATA" run cargo bench -q -p agghoo --bench linear)
peer=$(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 run "$PYTHON" -W ignore bench/peers/linear.py "$DATA" --only "$ONLY")
table "$ours" "$peer"
echo
echo "### Default threading"
echo
ours=$(LINEAR_BENCH_ONLY="$ONLY" LINEAR_BENCH_DATA="$DATA" run cargo bench -q -p agghoo --bench linear)
peer=$(run "$PYTHON" -W ignore bench/peers/linear.py "$DATA" --only "$ONLY")
table "$ours" "$peer"
echo
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
