#!/usr/bin/env bash
# Lasso / logistic paths: agghoo (release) vs scikit-learn on the same data. Prints a markdown table.
# Needs the peer venv (bench/setup-venv.sh) at ./.venv or $PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-.venv/bin/python}"
DATA="${LINEAR_BENCH_DATA:-$PWD/target/linear-bench}"
mkdir -p "$DATA"
[ -f "$DATA/lasso_x.bin" ] || "$PYTHON" bench/peers/linear.py "$DATA" gen
ours=$(LINEAR_BENCH_DATA="$DATA" cargo bench -q -p agghoo --bench linear 2>/dev/null)
peer=$("$PYTHON" bench/peers/linear.py "$DATA")
echo "| case | agghoo (s) | scikit-learn (s) | ratio (agghoo / sklearn) |"
echo "|---|---|---|---|"
while read -r case secs; do
  base=${case%_ours_cold}
  p=$(echo "$peer" | awk -v c="$base" '$1 == c { print $2 }')
  if [ "$base" != "$case" ]; then
    echo "| $case (no warm start) | $secs | $p | $(awk -v a="$secs" -v b="$p" 'BEGIN { printf "%.2f", a / b }') |"
  else
    echo "| $case | $secs | $p | $(awk -v a="$secs" -v b="$p" 'BEGIN { printf "%.2f", a / b }') |"
  fi
done <<< "$ours"
