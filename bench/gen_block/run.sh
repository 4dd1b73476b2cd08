#!/usr/bin/env bash
# Runs bench_gen_block on 2 and 4 ranks (and the planning rows once) and plots
# docs/results/gen_block.png from docs/results/gen_block.csv.
# Usage: bench/gen_block/run.sh [build dir]   (default: a Release build in build-release; an existing
# build dir given here is used as it is configured)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${1:-$HPF_ROOT/build-release}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_gen_block -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
csv=docs/results/gen_block.csv
rm -f "$csv"
mpirun --oversubscribe --bind-to none -np 2 "$build/bench/gen_block/bench_gen_block" --n 4e6 --repeats 9 \
  --plan-P 2048 --csv "$csv"
mpirun --oversubscribe --bind-to none -np 4 "$build/bench/gen_block/bench_gen_block" --n 4e6 --repeats 9 --csv "$csv"
gnuplot <<'GP'
set terminal pngcairo size 1200,520 noenhanced
set output 'docs/results/gen_block.png'
set datafile separator ','
set title 'REDISTRIBUTE to and from GEN_BLOCK, 4e6 doubles: median of 9 / one memcpy of the largest local block'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set ylabel 'time / memcpy (log scale)'
set logscale y
set xtics rotate by -30 font ',8'
set bmargin 8
plot '< grep -v -e ^planning -e ,memcpy, -e ^case docs/results/gen_block.csv' using 6:xtic(sprintf("%s P=%d %s", strcol(1), $2, strcol(4))) notitle
GP
echo "results: $csv, docs/results/gen_block.png"
