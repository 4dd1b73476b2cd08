#!/usr/bin/env bash
# Runs bench_stencil on 2 and 4 ranks (4096^2 doubles, widths 1 and 2) and plots
# docs/results/stencil.png from docs/results/stencil.csv.
#   bench/stencil/run.sh [build dir]   (default: build-release, configured Release here)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${1:-$HPF_ROOT/build-release}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_stencil -j "$HPF_JOBS" > /dev/null
standalone="$build/bench/stencil/bench_stencil_petsc_standalone"
if grep -q HPF_PETSC_FOUND:INTERNAL=1 "$build/CMakeCache.txt"; then
  cmake --build "$build" --target bench_stencil_petsc_standalone -j "$HPF_JOBS" > /dev/null
fi
cd "$HPF_ROOT"
rm -f docs/results/stencil.csv
# The petsc-dmda rows are cross-checked against a minimal standalone PETSc program run right after
# each bench job (stencil_petsc_standalone.csv in the build tree, printed: its median and the ratio
# to the row).
check="$build/stencil_petsc_standalone.csv"
rm -f "$check"
[ -x "$standalone" ] && echo "ranks,width,standalone_seconds,bench_seconds,bench_over_standalone" > "$check"
load_start
for np in 2 4; do
  load_note "before ranks $np"
  mpirun --oversubscribe --bind-to none -np "$np" "$build/bench/stencil/bench_stencil" \
    --n 4096 --widths 1,2 --repeats 31 --csv docs/results/stencil.csv
  if [ -x "$standalone" ]; then
    p1=1; f=1; while [ $((f * f)) -le "$np" ]; do [ $((np % f)) -eq 0 ] && p1=$f; f=$((f + 1)); done
    for w in 1 2; do
      row=$(mpirun --oversubscribe --bind-to none -np "$np" "$standalone" 4096 "$w" 31 $((np / p1)) "$p1")
      bench=$(awk -F, -v np="$np" -v w="$w" '$1 == "petsc-dmda" && $2 == np && $5 == w { print $6 }' docs/results/stencil.csv)
      echo "$row" | awk -F, -v b="$bench" '{ printf "%s,%s,%s,%s,%.4f\n", $1, $2, $3, b, b / $3 }' >> "$check"
    done
  fi
done
load_note after
csv_stamp docs/results/stencil.csv
[ -f "$check" ] && cat "$check"
gnuplot <<'GP'
set terminal pngcairo size 1000,520 noenhanced
set output 'docs/results/stencil.png'
set datafile separator ','
set title "Shadow update, 4096^2 doubles, BLOCK x BLOCK, corners included: time / hand-written MPI exchange\n(median of 31, slowest rank; 2 ranks = 2x1 grid, 4 ranks = 2x2, oversubscribed on 2 cores; lower is better)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set ylabel 'time / hand-written MPI_Sendrecv exchange'
set logscale y
set key outside bottom center horizontal
set xtics rotate by -15
plot '< grep "^hpfrt," docs/results/stencil.csv' using 7:xtic(sprintf("%s ranks (%s), w=%s", stringcolumn(2), stringcolumn(3), stringcolumn(5))) title 'hpfrt update_shadow', \
     '< grep "^hpfrt-split," docs/results/stencil.csv' using 7 title 'hpfrt post/wait', \
     '< grep "^hpfrt-periodic," docs/results/stencil.csv' using 7 title 'hpfrt periodic', \
     '< grep "^ga-ghosts," docs/results/stencil.csv' using 7 title 'GA_Update_ghosts (periodic)', \
     '< grep "^petsc-dmda," docs/results/stencil.csv' using 7 title 'PETSc DMGlobalToLocal', \
     '< grep "^memcpy," docs/results/stencil.csv' using 7 title 'memcpy of the received bytes'
GP
echo "plot: docs/results/stencil.png"
