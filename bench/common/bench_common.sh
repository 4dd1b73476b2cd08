# Sourced by benchmark scripts (after scripts/env.sh): the Release build they run from, and CSVs that
# collect several jobs as rounds (with their options).

# bench_build TARGET: configures $HPF_ROOT/build-release (Release, no tests) if it is not yet, builds
# TARGET there, and sets `build` to that directory.
bench_build() {
  build="$HPF_ROOT/build-release"
  [[ -f "$build/CMakeCache.txt" ]] ||
    cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
  cmake --build "$build" --target "$1" -j "$HPF_JOBS" > /dev/null
}

# append_column FROM CSV NAME VALUE: appends FROM's rows (after its header) to CSV with a last column
# NAME = VALUE; writes the header, with NAME added, when CSV does not exist yet.
append_column() {
  [ -f "$2" ] || head -1 "$1" | sed "s/\$/,$3/" > "$2"
  tail -n +2 "$1" | sed "s/\$/,$4/" >> "$2"
}

# append_round FROM CSV ROUND: append_column with the column `round`.
append_round() { append_column "$1" "$2" round "$3"; }

# round_outputs NAME: from $HPF_ROOT, sets `csv` (docs/results/NAME.csv, removed) and `load`
# (docs/results/NAME_load.txt, emptied) for a script that collects rounds, and `tmp`, a temporary file
# removed on exit.
round_outputs() {
  out_name="$1" csv="docs/results/$1.csv" load="docs/results/$1_load.txt"
  tmp=$(mktemp)
  trap 'rm -f "$tmp"' EXIT
  rm -f "$csv"
  : > "$load"
}

# round_finish PLOT: the last load line, then `python3 PLOT CSV docs/results/NAME.png`.
round_finish() {
  echo "after: $(uptime)" >> "$load"
  /usr/bin/python3 "$1" "$csv" "docs/results/$out_name.png"
  echo "csv: $csv, plot: docs/results/$out_name.png"
}

# rounds_options ARGS...: parses [--rounds R] [--repeats K] into `rounds` (default 3) and `repeats`
# (default 21), both numbers >= 1; anything else exits 2 with the usage.
rounds_options() {
  rounds=3 repeats=21
  local usage="usage: $0 [--rounds R] [--repeats K]"
  while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || { echo "$1: missing value; $usage" >&2; exit 2; }
    case "$1" in
      --rounds) rounds="$2" ;; --repeats) repeats="$2" ;;
      *) echo "unknown option '$1'; $usage" >&2; exit 2 ;;
    esac
    shift 2
  done
  [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "--rounds: expected a number >= 1, got '$rounds'; $usage" >&2; exit 2; }
  [[ "$repeats" =~ ^[1-9][0-9]*$ ]] || { echo "--repeats: expected a number >= 1, got '$repeats'; $usage" >&2; exit 2; }
}
