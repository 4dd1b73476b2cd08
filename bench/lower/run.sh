#!/usr/bin/env bash
# Times the Jacobi program bench/lower/jacobi_block.f90 ((BLOCK, BLOCK)) and its variant
# jacobi_cyclic ((CYCLIC(64), CYCLIC(64)), made by CMakeLists.txt) lowered by `hpfrt lower` on 1, 2
# and 4 ranks against the serial program compiled by gfortran -O2, and writes
# docs/results/lower_loops.csv and docs/results/lower_loops.png.
#   bench/lower/run.sh [build dir]   (default: build-release, configured Release here)
# HPF_BENCH_JOBS (default 5) jobs, each running every configuration HPF_BENCH_REPEATS (default 9)
# times in a row; the order of the configurations alternates from one job to the next.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${1:-$HPF_ROOT/build-release}"
jobs="${HPF_BENCH_JOBS:-5}"
repeats="${HPF_BENCH_REPEATS:-9}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
fi
cmake --build "$build" --target bench_lower_jacobi_block bench_lower_jacobi_cyclic -j "$HPF_JOBS" > /dev/null
here="$HPF_ROOT/bench/lower"
bin="$build/bench/lower"
# The serial program: the directives are comments, so both variants compile to this same program.
gfortran -O2 "$here/jacobi_block.f90" -o "$bin/jacobi_serial"
cd "$HPF_ROOT"
raw="$bin/lower_loops_raw.csv" # every run: job, variant, ranks, repeat, wall, cpu
rm -f "$raw"

# run VARIANT RANKS: one run; prints "wall cpu" (seconds of the sweeps, rank 0's clocks).
run() {
  local out
  if [ "$1" = serial ]; then
    out=$("$bin/jacobi_serial")
  else
    out=$(mpirun --oversubscribe --bind-to none -np "$2" "$bin/bench_lower_jacobi_$1")
  fi
  echo "$out" | awk '$1 == "seconds" { w = $2 } $1 == "cpu" { c = $2 } END { print w, c }'
}

configs=("serial 1" "block 1" "block 2" "block 4" "cyclic 1" "cyclic 2" "cyclic 4")
load_start
for job in $(seq 1 "$jobs"); do
  order=("${configs[@]}")
  if [ $((job % 2)) -eq 0 ]; then
    order=()
    for ((k = ${#configs[@]} - 1; k >= 0; k--)); do order+=("${configs[$k]}"); done
  fi
  load_note "before job $job"
  for c in "${order[@]}"; do
    read -r variant ranks <<< "$c"
    for rep in $(seq 1 "$repeats"); do
      read -r wall cpu <<< "$(run "$variant" "$ranks")"
      echo "$job,$variant,$ranks,$rep,$wall,$cpu" >> "$raw"
    done
    echo "job $job: $variant on $ranks rank(s) done" >&2
  done
  # The results so far, after every job (a run cut short keeps the jobs it finished).
  load_note "after job $job"
  /usr/bin/python3 "$here/summary.py" "$raw" 2000 50 > docs/results/lower_loops.csv
  csv_stamp docs/results/lower_loops.csv
  /usr/bin/python3 "$here/plot.py" docs/results/lower_loops.csv docs/results/lower_loops.png
done
cat docs/results/lower_loops.csv
