#!/usr/bin/env bash
# Lasso / elastic-net paths and logistic paths: agghoo (release) vs scikit-learn on the same data. Prints two
# markdown tables: both sides on one thread (RAYON_NUM_THREADS=1, OPENBLAS/OMP/MKL_NUM_THREADS=1), then both with
# their default threading (rayon: all cores; NumPy's BLAS: all cores).
# Needs the peer venv (bench/setup-venv.sh) at ./.venv or $PYTHON.
#   --only TEXT   run only the cases whose name contains TEXT (both sides)
#   --rounds R    rounds per threading mode (default 3); each round runs ours, then the peer, each taking the
#                 best of 3 per case. The VM's speed drifts between minutes, so the table reports each side's
#                 median and the median (and range) of the per-round speed-ups, each from one round's pair.
#   --small       generate toy-sized data in a separate directory (a smoke test of the scripts, not a benchmark)
# Any failing bench or peer, or a case one side did not report, stops the script with a non-zero exit.
cd "$(dirname "$0")/.."
source bench/lib.sh
PYTHON="${PYTHON:-.venv/bin/python}"
ONLY=""
SMALL=""
ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --only) ONLY="$2"; shift 2 ;;
    --small) SMALL="--small"; shift ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "run-linear.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$ROUNDS" in ''|*[!0-9]*|0) echo "run-linear.sh: --rounds needs a positive integer, got '$ROUNDS'" >&2; exit 2 ;; esac
DATA="${LINEAR_BENCH_DATA:-$PWD/target/linear-bench${SMALL:+-small}}"
mkdir -p "$DATA"
[ -f "$DATA/logit20_x.bin" ] || "$PYTHON" bench/peers/linear.py "$DATA" gen $SMALL
cargo build -q --release -p agghoo --benches

ours_file=$(mktemp)
peer_file=$(mktemp)
trap 'rm -f "$ours_file" "$peer_file"' EXIT

# rounds LABEL ENV...: ROUNDS alternating runs of ours and the peer under the environment ENV, then the table.
rounds() {
  local label=$1 r out
  shift
  : > "$ours_file"
  : > "$peer_file"
  for r in $(seq "$ROUNDS"); do
    echo "$label: round $r of $ROUNDS" >&2
    out=$(run env "$@" LINEAR_BENCH_ONLY="$ONLY" LINEAR_BENCH_DATA="$DATA" cargo bench -q -p agghoo --bench linear)
    printf '%s\n' "$out" | awk -v r="$r" '{ print r, $1, $2 }' >> "$ours_file"
    out=$(run env "$@" "$PYTHON" -W ignore bench/peers/linear.py "$DATA" --only "$ONLY")
    printf '%s\n' "$out" | awk -v r="$r" '{ print r, $1, $2 }' >> "$peer_file"
  done
  speedup_table "$ours_file" "$peer_file"
}

echo "### One thread each"
echo
rounds "one thread" RAYON_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
echo
echo "### Default threading"
echo
rounds "default threading"
echo
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)"
