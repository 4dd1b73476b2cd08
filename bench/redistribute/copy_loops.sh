#!/usr/bin/env bash
# Regenerates docs/results/redistribute_copy_loops.{csv,png}: the offset tables against the strided
# loops (redist/runs.hpp) on the messages of the sweep's 1-D cells at 10^3 and 10^5 doubles on 2 and 4
# processes, in one process (no MPI; see copy_loops.cpp). `uptime` before and after goes to
# redistribute_copy_loops_load.txt. Extra arguments go to bench_redistribute_copy_loops.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_copy_loops -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
csv=docs/results/redistribute_copy_loops.csv
load=docs/results/redistribute_copy_loops_load.txt
echo "before: $(uptime)" > "$load"
"$build/bench/redistribute/bench_redistribute_copy_loops" --csv "$csv" "$@"
echo "after: $(uptime)" >> "$load"
/usr/bin/python3 bench/redistribute/copy_loops_plot.py "$csv" docs/results/redistribute_copy_loops.png
echo "results: $csv, docs/results/redistribute_copy_loops.png"
