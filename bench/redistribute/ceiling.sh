#!/usr/bin/env bash
# Regenerates docs/results/redistribute_ceiling.{csv,png}: REDISTRIBUTE of 32 MiB per rank under memory
# ceilings of 1/4 to 1/256 of the local block, and with none, on 2 and 3 ranks: time (medians of 9
# calls) and peak extra memory, in HPF_CEILING_JOBS jobs (default 3) whose medians the plot takes.
# Extra arguments go to the driver. HPF_BUILD names the build tree (default build-release).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_redistribute_ceiling -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
csv=docs/results/redistribute_ceiling.csv
rm -f "$csv"
load_start
for job in $(seq 1 "${HPF_CEILING_JOBS:-3}"); do
  for np in 2 3; do
    load_note "job $job, $np ranks"
    mpirun --oversubscribe --bind-to none -np "$np" "$build/bench/redistribute/bench_redistribute_ceiling" \
      --job "$job" --csv "$csv" "$@"
  done
done
load_note after
csv_stamp "$csv"
/usr/bin/python3 "$(dirname "$0")/ceiling_plot.py" "$csv" docs/results/redistribute_ceiling.png
