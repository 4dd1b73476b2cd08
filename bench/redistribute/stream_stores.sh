#!/usr/bin/env bash
# Regenerates docs/results/redistribute_stream_stores.{csv,png}: the non-temporal stores into large
# target blocks (detail::stream_store_min_bytes, 16 MiB) on and off, in one build, for the 1-D cells
# whose pieces are long enough to take them: CYCLIC(r) <-> BLOCK with r = 33, 64 and 125 (264, 512
# and 1000 bytes a piece), 10^7 doubles on 2 ranks. bench_redistribute_sweep per cell (every peer,
# medians of 9), --stream-stores on then off, one job each, three rounds.
# Extra arguments go to bench_redistribute_sweep.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_sweep -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
load=docs/results/redistribute_stream_stores_load.txt
echo "before: $(uptime)" > "$load"
for round in 1 2 3; do
  for cell in "33 0" "0 33" "64 0" "0 64" "125 0" "0 125"; do
    read -r r s <<< "$cell"
    for stores in on off; do
      mpirun --oversubscribe --bind-to none -n 2 "$build/bench/redistribute/bench_redistribute_sweep" \
        --M 1e7 --r "$r" --s "$s" --repeats 9 --stream-stores "$stores" \
        --csv "$tmp/round${round}_${stores}_${r}_${s}.csv" "$@" > /dev/null
    done
  done
done
echo "after: $(uptime)" >> "$load"
/usr/bin/python3 bench/redistribute/stream_stores_plot.py "$tmp" docs/results/redistribute_stream_stores.csv \
  docs/results/redistribute_stream_stores.png
echo "results: docs/results/redistribute_stream_stores.{csv,png}, $load"
