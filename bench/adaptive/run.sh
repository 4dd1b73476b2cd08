#!/usr/bin/env bash
# Runs bench_adaptive_bcast on 2 and 4 ranks and writes docs/results/adaptive_bcast.csv and
# docs/results/adaptive_bcast.png (median time of each variant against the message size); the machine
# and its load around each run go to the CSV's '#' header lines.
#   bench/adaptive/run.sh [build-dir]     (default: build)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${1:-$HPF_ROOT/build}"
nice -n 10 cmake --build "$build" --target bench_adaptive_bcast -j 2 > /dev/null
cd "$HPF_ROOT"
out=docs/results/adaptive_bcast.csv
rm -f "$out"
load_start
for n in 2 4; do
  load_note "before np=$n"
  mpiexec --oversubscribe --bind-to none -n "$n" "$build/bench/adaptive/bench_adaptive_bcast" --repeats 201 --csv "$out"
  load_note "after np=$n"
done
csv_stamp "$out"
gnuplot -e "csv='$out'; png='docs/results/adaptive_bcast.png'" bench/adaptive/plot.gp
echo "results: $out, docs/results/adaptive_bcast.png ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
