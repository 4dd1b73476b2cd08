#!/usr/bin/env bash
# Regenerates docs/results/redistribute_overhead.{csv,png}: where the time of a small REDISTRIBUTE
# (10^3 doubles, CYCLIC(3) -> CYCLIC(5)) goes, each part timed alone in one job beside the whole call
# and MPI_Alltoallw, on 2 and 4 ranks (medians of 2001; see overhead.cpp). `uptime` before each job
# goes to the CSV's '#' header lines. Extra arguments go to bench_redistribute_overhead.
# HPF_OVERHEAD_NAME (default redistribute_overhead) names the files it writes in docs/results/.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_overhead -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
name="docs/results/${HPF_OVERHEAD_NAME:-redistribute_overhead}"
csv="$name.csv"
rm -f "$csv"
load_start
for np in 2 4; do
  load_note "before ranks $np"
  mpirun --oversubscribe --bind-to none -n "$np" "$build/bench/redistribute/bench_redistribute_overhead" \
    --M 1000 --r 3 --s 5 --csv "$csv" "$@"
done
load_note after
csv_stamp "$csv"
gnuplot <<GP
set terminal pngcairo size 900,420 noenhanced
set output '$name.png'
set datafile separator ','
set style data histograms
set style histogram clustered
set style fill solid 0.8
set ylabel 'median / the executor alone'
set title 'A.redistribute(), --M 1000 --r 3 --s 5 $*: each part over the executor (same job)'
set key top right
set xtics rotate by -20
set grid ytics
plot '< grep "^2," $csv' using 7:xtic(5) title '2 ranks', '< grep "^4," $csv' using 7 title '4 ranks (oversubscribed)'
GP
echo "results: $csv, $name.png"
