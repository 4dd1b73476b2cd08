#!/usr/bin/env bash
# Regenerates docs/results/redistribute_np{2,4}.csv and docs/results/redistribute.png: REDISTRIBUTE
# CYCLIC(3) -> CYCLIC(5) by every hpfrt strategy, a naive MPI_Alltoallv and ScaLAPACK pdgemr2d
# (Release build, median of 7 repeats, on 2 and on 4 ranks). Extra arguments go to the benchmark.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
for np in 2 4; do
  mpirun --oversubscribe --bind-to none -n "$np" "$build/bench/redistribute/bench_redistribute" \
    --repeats 7 --csv "docs/results/redistribute_np$np.csv" "$@" | tee "docs/results/redistribute_np$np.md"
done

# In the style of seed 004's Figure 2: time against the global size, one line per method (1-D case).
plot_panel() { # $1 = csv, $2 = title
  cat <<GP
set title '$2'
plot for [m in "caterpillar class koenig-stepwise koenig-greedy all-at-once alltoallv naive-alltoallv pdgemr2d"] \
  '< grep "^1d.*,'.m.'," $1' using 3:(\$5*1e6) with linespoints title m
GP
}
gnuplot <<GP
set terminal pngcairo size 1200,480 noenhanced
set output 'docs/results/redistribute.png'
set datafile separator ','
set logscale xy
set xlabel 'global size of the redistributed vector (doubles)'
set ylabel 'microseconds (median of 7)'
set key top left
set grid
set multiplot layout 1,2
$(plot_panel docs/results/redistribute_np2.csv 'CYCLIC(3) -> CYCLIC(5), 2 ranks')
$(plot_panel docs/results/redistribute_np4.csv 'CYCLIC(3) -> CYCLIC(5), 4 ranks')
unset multiplot
GP
echo "results: docs/results/redistribute_np{2,4}.{csv,md}, plot: docs/results/redistribute.png"
