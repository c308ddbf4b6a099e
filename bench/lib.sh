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
