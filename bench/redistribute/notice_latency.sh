#!/usr/bin/env bash
# Regenerates docs/results/redistribute_notice_latency.{csv,png}: one small exchange between the two
# ranks of a pair through MPI (persistent requests, as Exchange's settled path) and through a flag in
# shared memory, 8 B - 4 KiB each way, on 2 and 4 ranks (pairs), medians of 21 blocks of 200 calls
# (see notice_latency.cpp). `uptime` before each job goes to redistribute_notice_latency_load.txt.
# Extra arguments go to bench_redistribute_notice_latency.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_notice_latency -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
csv=docs/results/redistribute_notice_latency.csv
load=docs/results/redistribute_notice_latency_load.txt
rm -f "$csv"
: > "$load"
for np in 2 4; do
  echo "before ranks $np: $(uptime)" >> "$load"
  mpirun --oversubscribe --bind-to none -n "$np" "$build/bench/redistribute/bench_redistribute_notice_latency" \
    --csv "$csv" "$@"
done
echo "after: $(uptime)" >> "$load"
gnuplot <<GP
set terminal pngcairo size 900,420 noenhanced
set output 'docs/results/redistribute_notice_latency.png'
set datafile separator ','
set style data histograms
set style histogram clustered
set style fill solid 0.8
set ylabel 'flag in shared memory / MPI (median)'
set xlabel 'bytes each way'
set title 'one exchange between two ranks: a shared-memory flag over MPI persistent requests (same job)'
set yrange [0:1.2]
set key top left
set grid ytics
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot '< grep "^2,.*,flag," $csv' using 5:xtic(2) title '2 ranks', '< grep "^4,.*,flag," $csv' using 5 title '4 ranks (2 pairs, oversubscribed)'
GP
echo "results: $csv, docs/results/redistribute_notice_latency.png"
