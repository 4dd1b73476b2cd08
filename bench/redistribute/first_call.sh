#!/usr/bin/env bash
# Regenerates docs/results/redistribute_first_call.{csv,png}: the first REDISTRIBUTE (plan cache miss)
# against a repeated one (hit), at 10^6 doubles per rank, on 2 and 4 ranks, medians of 25 (single
# cells moved between runs of 9 on this shared machine).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_first_call -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
out="${HPF_FIRST_CALL_OUT:-docs/results/redistribute_first_call}" # the CSV and PNG, without extension
csv="$out.csv"
rm -f "$csv"
load_start
for np in 2 4; do
  load_note "before ranks $np"
  mpirun --oversubscribe --bind-to none -n "$np" "$build/bench/redistribute/bench_redistribute_first_call" \
    --repeats 25 --csv "$csv" "$@"
done
load_note after
csv_stamp "$csv"
gnuplot <<GP
set terminal pngcairo size 900,420 noenhanced
set output '$out.png'
set datafile separator ','
set style data histograms
set style histogram clustered
set style fill solid 0.8
set ylabel 'first / repeated REDISTRIBUTE (median of 25)'
set title 'first call (plans) vs repeated call (cached plan), 10^6 doubles per rank, medians of 25'
set yrange [0:*]
set grid ytics
set arrow from graph 0, first 1.2 to graph 1, first 1.2 nohead dt 2
plot '< grep ",2," $csv' using 6:xtic(1) title '2 ranks', '< grep ",4," $csv' using 6 title '4 ranks'
GP
echo "results: $csv, $out.png"
