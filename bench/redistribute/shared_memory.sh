#!/usr/bin/env bash
# Regenerates docs/results/redistribute_shared_memory.{csv,png}: the executor with packed messages
# through shared-memory segments against the same executor through MPI and one memcpy, alone in its
# job, on 2 and 4 ranks (bench_redistribute_shared_memory; medians of 21), and the machine load
# before and after each job in docs/results/redistribute_shared_memory_load.txt.
# Extra arguments go to bench_redistribute_shared_memory (e.g. --cases 8e6:3:5).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_shared_memory -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
csv=docs/results/redistribute_shared_memory.csv
load=docs/results/redistribute_shared_memory_load.txt
rm -f "$csv"
: > "$load"
for np in 2 4; do
  echo "before ranks $np: $(uptime)" >> "$load"
  mpirun --oversubscribe --bind-to none -n "$np" "$build/bench/redistribute/bench_redistribute_shared_memory" \
    --repeats 21 --csv "$csv" "$@"
done
echo "after: $(uptime)" >> "$load"
/usr/bin/python3 bench/redistribute/shared_memory_plot.py "$csv" docs/results/redistribute_shared_memory.png
echo "results: $csv, docs/results/redistribute_shared_memory.png"
