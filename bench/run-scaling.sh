#!/usr/bin/env bash
# Thread scaling per family: the whole `agghoo select` process (generated data included) at 1, 2, 4, …
# threads up to the machine's cores, the median of --rounds runs each; prints a markdown table with
# the speed-up from one thread to all. Units of work: every run has 10 splits (Agghoo, Monte-Carlo
# splits, τ = 0.8), so split-level parallelism alone stops at 10; the families whose kernels also
# spread (k-NN blocks, forest trees, OvO pairs, CART, Lasso) can use more.
# Usage: bench/run-scaling.sh [--quick] [--rounds R]   (needs a release build: cargo build --release)
cd "$(dirname "$0")/.."
source bench/lib.sh
quick=0
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; rounds=1 ;;
    --rounds) rounds=$2; shift ;;
    *) echo "run-scaling.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
bin=${AGGHOO_BIN:-target/release/agghoo}
[ -x "$bin" ] || run cargo build -q --release -p agghoo-cli >/dev/null
cores=$(nproc)
threads="1"
t=2
while [ "$t" -le "$cores" ]; do threads="$threads $t"; t=$((t * 2)); done
[ "${threads##* }" = "$cores" ] || threads="$threads $cores"

# family | data | rows (full) | rows (quick) | extra flags
cases=(
  "knn|gen:covertype|20000|500|--grid 1:99:2"
  "logistic|gen:covertype|20000|500|"
  "svc|gen:covertype|3000|300|"
  "cart|gen:covertype|20000|500|"
  "forest|gen:covertype|3000|300|--param trees=50"
  "ridge|gen:msd|20000|500|"
  "lasso|gen:msd|20000|500|"
  "enet|gen:msd|20000|500|"
  "kernel-ridge|gen:msd|2000|300|"
  "svr|gen:msd|3000|300|"
)

# seconds CMD...: the wall time of one successful run of CMD (stops the script if it fails).
seconds() {
  local start end
  start=$(date +%s.%N)
  run "$@" >/dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

header="| family | data | rows |"
rule="|---|---|---|"
for t in $threads; do header="$header $t thr (s) |"; rule="$rule---|"; done
echo "$header speed-up 1 → $cores |"
echo "$rule---|"
for c in "${cases[@]}"; do
  IFS='|' read -r family data full small extra <<<"$c"
  n=$full
  [ "$quick" = 1 ] && n=$small
  row="| $family | $data | $n |"
  first=""
  last=""
  for t in $threads; do
    times=""
    for _ in $(seq "$rounds"); do
      # shellcheck disable=SC2086 # $extra is a list of flags
      times="$times $(seconds "$bin" --threads "$t" select --data "$data" --n "$n" --family "$family" $extra --method agghoo --json)"
    done
    m=$(echo "$times" | median)
    row="$row $m |"
    [ -z "$first" ] && first=$m
    last=$m
  done
  echo "$row $(awk -v a="$first" -v b="$last" 'BEGIN { printf "%.1fx", a / b }') |"
done
echo
echo "Machine: $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')); median of $rounds run(s) per cell."
