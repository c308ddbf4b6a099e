# Sourced by every bench/run-*.sh: a bench that fails stops the script with its error shown.
set -euo pipefail

# run CMD...: prints CMD's standard output. If CMD fails, or prints nothing, its standard error is
# shown and the script stops with a non-zero exit (also from inside `x=$(run …)`: the failed
# assignment stops the calling script under `set -e`).
run() {
  local log out
  log=$(mktemp)
  if ! out=$("$@" 2>"$log"); then
    echo "$(basename "$0"): FAILED: $*" >&2
    cat "$log" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
  if [ -z "$out" ]; then
    echo "$(basename "$0"): FAILED: $* printed nothing" >&2
    exit 1
  fi
  printf '%s\n' "$out"
}

# require TEXT KEY...: stops the script unless every KEY starts a line of TEXT ("key<TAB>value").
require() {
  local text=$1 key
  shift
  for key in "$@"; do
    if ! printf '%s\n' "$text" | awk -v k="$key" '$1 == k { found = 1 } END { exit !found }'; then
      echo "$(basename "$0"): FAILED: the output has no \`$key\`:" >&2
      printf '%s\n' "$text" >&2
      exit 1
    fi
  done
}

# speedup_table OURS PEER: OURS and PEER hold lines "ROUND CASE SECONDS", one per case and round, from
# rounds that ran ours and the peer alternately (so each round's pair saw the same machine state).
# Prints a markdown table, cases in OURS's first-round order: each side's median time over the rounds,
# the median over rounds of the per-round speed-up (peer / ours) and its range (slowest–fastest
# round). A case `X_ours_cold` is compared with the peer's `X` and labelled "(no warm start)".
# A case the peer did not time in some round stops the script.
speedup_table() {
  awk -v script="$(basename "$0")" '
    function median(list,    v, n, i, j, t) {
      n = split(list, v, " ")
      for (i = 2; i <= n; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    function range(list,    v, n, i, lo, hi) {
      n = split(list, v, " "); lo = hi = v[1] + 0
      for (i = 2; i <= n; i++) { if (v[i] + 0 < lo) lo = v[i] + 0; if (v[i] + 0 > hi) hi = v[i] + 0 }
      return sprintf("%.2f–%.2f", lo, hi)
    }
    FNR == NR { peer[$1 SUBSEP $2] = $3; next }
    {
      base = $2; sub(/_ours_cold$/, "", base)
      if (!(($1 SUBSEP base) in peer)) { printf "%s: FAILED: the peer reported no time for %s in round %s\n", script, base, $1 > "/dev/stderr"; failed = 1; exit 1 }
      if (!($2 in seen)) { seen[$2] = 1; order[++cases] = $2; label[$2] = base == $2 ? $2 : base " (no warm start)" }
      p = peer[$1 SUBSEP base]
      ours[$2] = ours[$2] " " $3; theirs[$2] = theirs[$2] " " p; ratio[$2] = ratio[$2] " " p / $3; rounds[$2]++
    }
    END {
      if (failed) exit 1
      print "| case | agghoo (s, median) | scikit-learn (s, median) | speed-up (median of rounds) | range over rounds |"
      print "|---|---|---|---|---|"
      for (i = 1; i <= cases; i++) {
        c = order[i]
        printf "| %s | %.4f | %.4f | %.2f× | %s (%d rounds) |\n", label[c], median(ours[c]), median(theirs[c]), median(ratio[c]), range(ratio[c]), rounds[c]
      }
    }' "$2" "$1"
}
