#!/usr/bin/env bash
# Regenerates docs/results/redistribute_sweep.csv and .png: a repeated A.redistribute()
# against every peer (pdgemr2d, Tpetra::Import, the naive MPI_Alltoallv, MPI_Alltoallw) for r, s in
# {1, 3, 7, 64, BLOCK} x M in {10^3, 10^5, 10^7} on 2 and 4 ranks, plus COSTA's 2-D case (8000 x 8000
# doubles, 36 x 36 -> 128 x 128, grid 2 x 1 -> 1 x 2) on 2 ranks; medians of 99 below 10^7 elements,
# of 9 at 10^7 and in 2-D. One job per cell, and the minimal standalone Tpetra program runs the cell
# again right after it (redistribute_sweep_tpetra_alone.csv); the machine, the MPI settings and `uptime`
# before and after each rank count go to the CSV's '#' header lines (the machine is shared).
# Extra arguments go to bench_redistribute_sweep.
# HPF_SWEEP_SIZES (default "1e3 1e5 1e7") reruns only some sizes, and then skips the 2-D case;
# HPF_SWEEP_NAME (default redistribute_sweep) names the files it writes in docs/results/ (a partial
# rerun beside the whole sweep: HPF_SWEEP_SIZES=1e3 HPF_SWEEP_NAME=redistribute_sweep_small).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_sweep bench_redistribute_tpetra_alone -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
sizes="${HPF_SWEEP_SIZES:-1e3 1e5 1e7}"
name="${HPF_SWEEP_NAME:-redistribute_sweep}"
csv="docs/results/$name.csv"
alone="docs/results/${name}_tpetra_alone.csv"
bin="$build/bench/redistribute"
run() { mpirun --oversubscribe --bind-to none "$@"; }
rm -f "$csv"
echo "case,ranks,M,r,s,median_s" > "$alone"
load_start
# One job per cell, the standalone Tpetra program right after it: a whole sweep takes minutes and the
# machine's load drifts meanwhile, which a cross-check run minutes later would compare too.
for np in 2 4; do
  load_note "before ranks $np"
  for M in $sizes; do
    # Medians of 99 below 10^7 elements, where a call takes micro- to milliseconds (with 9, the count
    # of cells lost at 10^3 moved by several cells from one run to the next: 23, 27, 28); 9 at 10^7,
    # where each call takes tens of milliseconds.
    repeats=99
    [ "$M" = 1e7 ] && repeats=9
    for r in 1 3 7 64 0; do
      for s in 1 3 7 64 0; do
        cell=(--M "$M" --r "$r" --s "$s" --repeats "$repeats")
        run -n "$np" "$bin/bench_redistribute_sweep" "${cell[@]}" --csv "$csv" "$@"
        run -n "$np" "$bin/bench_redistribute_tpetra_alone" "${cell[@]}" --csv "$alone"
      done
    done
  done
done
if [ -z "${HPF_SWEEP_SIZES:-}" ]; then
  load_note "before 2-d"
  run -n 2 "$bin/bench_redistribute_sweep" --M 0 --n2d 8000 --r2d 36 --s2d 128 --tpetra2d 1 --repeats 9 --csv "$csv" "$@"
  run -n 2 "$bin/bench_redistribute_tpetra_alone" --M 0 --n2d 8000 --r2d 36 --s2d 128 --repeats 9 --csv "$alone"
fi
load_note after
csv_stamp "$csv"
/usr/bin/python3 bench/redistribute/sweep_plot.py "$csv" "$alone" "docs/results/$name.png"
echo "results: $csv, $alone, docs/results/$name.png"
