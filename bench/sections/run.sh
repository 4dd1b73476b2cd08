#!/usr/bin/env bash
# Runs bench_sections (transpose, block-cyclic transpose, blocked patch, strided section against GA,
# ScaLAPACK, MPI_Alltoall(v)) on 2 and 4 ranks, writes docs/results/sections.csv (the machine
# and its load before and after each job in its '#' header lines), and plots
# docs/results/sections.png (bench/sections/plot.py).
# Usage: bench/sections/run.sh [build dir] [extra bench_sections arguments]   (default: a Release build
# in build-release; an existing build dir given here is used as it is configured)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${1:-$HPF_ROOT/build-release}"
shift || true
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_sections -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
csv=docs/results/sections.csv
rm -f "$csv"
load_start
for np in 2 4; do
  load_note "before ranks $np"
  mpirun --oversubscribe --bind-to none -np "$np" "$build/bench/sections/bench_sections" --n 1024,2048,4096 \
    --repeats 11 --csv "$csv" "$@"
done
load_note after
csv_stamp "$csv"
/usr/bin/python3 bench/sections/plot.py "$csv" docs/results/sections.png
echo "plot: docs/results/sections.png"
