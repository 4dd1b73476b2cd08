#!/usr/bin/env bash
# Runs bench_element_access from a Release build: docs/results/element_access.{csv,png}.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${1:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_element_access -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
mpirun -n 1 "$build/bench/forall/bench_element_access" --repeats 31 --csv docs/results/element_access.csv
gnuplot <<'GP'
set terminal pngcairo size 800,420 noenhanced
set output 'docs/results/element_access.png'
set datafile separator ','
set title 'Reading every element of a 1-D CYCLIC(7) array of 2^20 doubles (median of 31, 1 process)'
set style data histogram
set style fill solid 0.8 border -1
set ylabel 'ns per element'
set yrange [0:*]
set key off
plot 'docs/results/element_access.csv' every ::1 using 3:xtic(1)
GP
echo "plot: docs/results/element_access.png"
