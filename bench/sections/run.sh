#!/usr/bin/env bash
# Runs bench_sections on 2 and 4 ranks and plots docs/results/sections.png from docs/results/sections.csv.
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
set terminal pngcairo size 900,450 noenhanced
set output 'docs/results/sections.png'
set datafile separator ','
set title 'transpose of n x n doubles, (*, BLOCK) -> (*, BLOCK): median of 15, time / hand-written MPI_Alltoall'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set ylabel 'time relative to MPI_Alltoall transpose'
set yrange [0:*]
set key outside bottom center horizontal
plot '< grep ,hpf-section-step, docs/results/sections.csv' using 5:xtic(sprintf("P=%d n=%d", $1, $2)) title 'hpf SectionPlan (König steps)', \
     '< grep ,hpf-section-allatonce, docs/results/sections.csv' using 5 title 'hpf SectionPlan (all at once)', \
     '< grep ,mpi-alltoall, docs/results/sections.csv' using 5 title 'hand-written MPI_Alltoall', \
     '< grep ,memcpy, docs/results/sections.csv' using 5 title 'one memcpy of the local bytes'
GP
echo "plot: docs/results/sections.png"
