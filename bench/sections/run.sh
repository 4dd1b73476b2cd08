#!/usr/bin/env bash
# Runs bench_sections (transpose and strided section) on 2 and 4 ranks and plots docs/results/sections.png from docs/results/sections.csv.
# Usage: bench/sections/run.sh [build dir]   (default: a Release build in build-release; an existing
# build dir given here is used as it is configured)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${1:-$HPF_ROOT/build-release}"
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_sections -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
csv=docs/results/sections.csv
rm -f "$csv"
for np in 2 4; do
  mpirun --oversubscribe --bind-to none -np "$np" "$build/bench/sections/bench_sections" --n 1024,2048 \
    --repeats 15 --csv "$csv"
done
gnuplot <<'GP'
set terminal pngcairo size 1200,520 noenhanced
set output 'docs/results/sections.png'
set datafile separator ','
set title 'B = TRANSPOSE(A) and B(0:(n+1)/2-1, :) = A(n-1:0:-2, :), n x n doubles: median of 15, time / MPI peer'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set ylabel 'time relative to the MPI peer (log scale)'
set logscale y
set key inside top center horizontal maxrows 2
set yrange [0.001:300]
set bmargin 4
plot '< grep ,hpf-section-step, docs/results/sections.csv' using 6:xtic(sprintf("%s\nP=%d n=%d", strcol(3), $1, $2)) title 'hpf SectionPlan (König steps)', \
     '< grep ,hpf-section-allatonce, docs/results/sections.csv' using 6 title 'hpf SectionPlan (all at once)', \
     '< grep -E ",(mpi-alltoall|naive-alltoallv)," docs/results/sections.csv' using 6 title 'MPI peer: hand-written Alltoall transpose / naive Alltoallv', \
     '< grep ,memcpy, docs/results/sections.csv' using 6 title 'one memcpy of the local bytes'
GP
echo "plot: docs/results/sections.png"
