#!/usr/bin/env bash
# Runs bench_batch (several arrays in one exchange against one at a time: 8 small arrays, and k arrays
# of n/k against one of n) on 2 and 4 ranks, HPF_BATCH_JOBS jobs per rank count (default 3; each job
# a new mpirun, its rows tagged with its number), writes docs/results/redistribute_batch.csv (the
# machine and its load before and after each job in its '#' header lines) and plots
# docs/results/redistribute_batch.png (bench/batch/plot.py: the median over jobs).
# Usage: bench/batch/run.sh [build dir] [extra bench_batch arguments]   (default: a Release build in
# build-release; an existing build dir given here is used as it is configured)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${1:-$HPF_ROOT/build-release}"
shift || true
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_batch -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
csv=docs/results/redistribute_batch.csv
rm -f "$csv"
load_start
for job in $(seq 1 "${HPF_BATCH_JOBS:-3}"); do
  for np in 2 4; do
    load_note "before job $job, ranks $np"
    mpirun --oversubscribe --bind-to none -np "$np" "$build/bench/batch/bench_batch" --repeats 11 --job "$job" \
      --csv "$csv" "$@"
  done
done
load_note after
csv_stamp "$csv"
/usr/bin/python3 bench/batch/plot.py "$csv" docs/results/redistribute_batch.png
echo "plot: docs/results/redistribute_batch.png"
