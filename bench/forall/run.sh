#!/usr/bin/env bash
# Runs bench_forall from a Release build and plots docs/results/forall.png.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${1:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_forall -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
"$build/bench/forall/bench_forall" --repeats 31 --csv docs/results/forall.csv
gnuplot <<'GP'
set terminal pngcairo size 800,450 noenhanced
set output 'docs/results/forall.png'
set datafile separator ','
set title 'hpf::forall vs hand-written loops (median of 31 repeats, 1 process)'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set ylabel 'time relative to the Kokkos view loop'
set yrange [0:*]
set key outside bottom center horizontal
plot 'docs/results/forall.csv' every ::1 using ($2/$3):xtic(1) title 'hpf::forall', \
     '' every ::1 using ($3/$3) title 'view loop + l2g tables', \
     '' every ::1 using ($4/$3) title 'raw pointer + cyclic formula'
GP
echo "plot: docs/results/forall.png"
