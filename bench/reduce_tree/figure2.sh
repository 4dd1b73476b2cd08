#!/usr/bin/env bash
# Regenerates Figure 2 of seed 002 (binomial and Fibonacci strategies over the optimum, 2 <= n <= 10000)
# as docs/results/reduce_figure2.csv and docs/results/reduce_figure2.png.
#   bench/reduce_tree/figure2.sh [build-dir]     (about 40 s)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${1:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_reduce_figure2 -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
"$build/bench/reduce_tree/bench_reduce_figure2" --max-n 10000 > docs/results/reduce_figure2.csv
gnuplot <<'GP'
set terminal pngcairo size 900,500 noenhanced
set output 'docs/results/reduce_figure2.png'
set datafile separator ','
set title 'Seed 002, Figure 2: strategy length / optimal length (Algorithm 1)'
set xlabel 'number of elements n'
set ylabel 'ratio to the optimum'
set logscale x
set xrange [2:10000]
set yrange [0.95:2.05]
set key at graph 0.02, graph 0.88 left top box opaque
set grid
plot 'docs/results/reduce_figure2.csv' every ::1 using 1:2 with points pt 7 ps 0.3 lc rgb '#1f77b4' title 'binomial strategy, d = c', \
     '' every ::1 using 1:3 with points pt 7 ps 0.3 lc rgb '#d62728' title 'Fibonacci strategy, min(d, c) = 0', \
     2 with lines dt 2 lc rgb 'black' title 'bound of Theorems 18 and 19'
GP
echo "figure: docs/results/reduce_figure2.png"
