#!/usr/bin/env bash
# Runs bench_reduce_tree for n = 2..8 ranks and two message sizes, d ~= c, and writes
# docs/results/reduce_bench.csv (one row per variant: model prediction and measured median/min; the
# machine and its load in its '#' header lines). Rows with more ranks than cores time-share them, so
# they test correctness more than the model.
#   bench/reduce_tree/run.sh [build-dir]
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
# With a build directory argument, that build is used as configured (its bench_reduce_tree is rebuilt).
if [ $# -ge 1 ]; then
  build="$1"
else
  build="$HPF_ROOT/build-release"
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_reduce_tree -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
out=docs/results/reduce_bench.csv
rm -f "$out"
load_start
load_note before
for bytes in 65536 1048576; do   # rendezvous messages: d of tens to hundreds of microseconds
  for n in 2 3 4 5 6 7 8; do
    mpiexec --oversubscribe --bind-to none -n "$n" "$build/bench/reduce_tree/bench_reduce_tree" \
      --bytes "$bytes" --c-over-d 1 --repeats 201 --csv "$out"
  done
done
load_note after
csv_stamp "$out"
echo "results: $out"
