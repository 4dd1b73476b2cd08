#!/usr/bin/env bash
# Runs bench_reduce_tree for n = 2..8 ranks and two message sizes, d ~= c, and writes
# docs/results/reduce_bench.csv (one row per variant: model prediction and measured median/min).
#   bench/reduce_tree/run.sh [build-dir]
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
# With a build directory argument, that build is used as configured (its bench_reduce_tree is rebuilt).
if [ $# -ge 1 ]; then
  build="$1"
else
  build="$HPF_ROOT/build-release"
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_reduce_tree -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
load=$(cut -d' ' -f1-3 /proc/loadavg)
out=docs/results/reduce_bench.csv
rm -f "$out"
for bytes in 65536 1048576; do   # rendezvous messages: d of tens to hundreds of microseconds
  for n in 2 3 4 5 6 7 8; do
    mpiexec --oversubscribe --bind-to none -n "$n" "$build/bench/reduce_tree/bench_reduce_tree" \
      --bytes "$bytes" --c-over-d 1 --repeats 201 --csv "$out"
  done
done
# The same numbers as a Markdown table, model next to measurement.
md=docs/results/reduce_bench.md
{
  echo "bench_reduce_tree, $(date -u +%Y-%m-%d), $(nproc) cores, load average before the run: $load,"
  echo "$(mpirun --version | head -1). Times in microseconds; each sample is the slowest rank's time,"
  echo "201 interleaved repetitions. model = schedule length of the tree for the measured d and c."
  echo "The model gives every rank its own machine; rows with n > $(nproc) time-share $(nproc) cores (and"
  echo "d and c are then measured while other ranks wait), so they test correctness, not the model."
  echo
  echo "| n | bytes | d (us) | c (us) | variant | model (us) | measured median (us) | min (us) | median / model |"
  echo "|---|---|---|---|---|---|---|---|---|"
  awk -F, 'NR > 1 { model = $6 == "" ? "-" : $6; ratio = $6 == "" ? "-" : sprintf("%.2f", $7 / $6);
                    printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, model, $7, $8, ratio }' "$out"
} > "$md"
echo "results: $out, $md ($(nproc) cores; load before the run: $load)"
