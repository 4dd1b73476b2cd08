#!/usr/bin/env bash
# Runs bench_series (ReductionSeries vs back-to-back MPI_Reduce) natively on 2 and 4 ranks
# for K = 100 and 1000, and writes docs/results/series_native.csv (the machine and its load around
# each run in its '#' header lines) and .png.
#   bench/steady/series_run.sh [build-dir]     (default: a Release build in build-release)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
if [ $# -ge 1 ]; then
  build="$1"
else
  build="$HPF_ROOT/build-release"
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_series -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
load=$(cut -d' ' -f1-3 /proc/loadavg)
out=docs/results/series_native.csv
rm -f "$out"
load_start
for np in 2 4; do
  load_note "before np=$np"
  mpiexec --oversubscribe --bind-to none -n "$np" "$build/bench/steady/bench_series" \
    --ops 100,1000 --repeats "${REPEATS:-15}" --csv "$out"
  load_note "after np=$np"
done
csv_stamp "$out"
gnuplot <<'GP'
set terminal pngcairo size 900,450 noenhanced
set output 'docs/results/series_native.png'
set datafile separator ','
set title 'ReductionSeries vs back-to-back MPI_Reduce (native, median time per reduction)'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set ylabel 'time / MPI_Reduce (goal <= 1.1)'
set yrange [0:*]
set key outside bottom center horizontal
set xtics rotate by -20
plot '< awk -F, ''NR > 1 && $3 == "series-steady"'' docs/results/series_native.csv' using 7:xtic(sprintf("P=%d K=%d", $1, $2)) title 'steady state', \
     '< awk -F, ''NR > 1 && $3 == "series-tree"'' docs/results/series_native.csv' using 7 title 'tree per operation', \
     '< awk -F, ''NR > 1 && $3 == "series-collective"'' docs/results/series_native.csv' using 7 title 'vendor MPI_Reduce per batch (collective)', \
     '< awk -F, ''NR > 1 && $3 == "series-auto"'' docs/results/series_native.csv' using 7 title 'auto', \
     '< awk -F, ''NR > 1 && $3 == "mpi-reduce-batch"'' docs/results/series_native.csv' using 7 title 'MPI_Reduce of the K values in one call (by hand)', \
     1.1 with lines dt 2 lc rgb 'black' title '1.1 x MPI_Reduce'
GP
echo "results: $out, docs/results/series_native.png ($(nproc) cores; load before the run: $load)"
