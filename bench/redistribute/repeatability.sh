#!/usr/bin/env bash
# Regenerates docs/results/redistribute_repeatability.{csv,png} (issue 10): how far two jobs of the
# same program agree on this machine, for the two criteria of the issue that compare separate jobs.
#   - tpetra: the standalone Tpetra program (tpetra_alone.cpp) run twice in a row, one job each, for
#     every cell of the sweep (r, s in {1, 3, 7, 64, BLOCK} x M in {10^3, 10^5, 10^7}, 2 and 4 ranks;
#     medians of 99 below 10^7, of 9 at 10^7, as sweep.sh runs it). The issue asks that the sweep's
#     Tpetra match this program within 10 %; here the program is compared with itself.
#   - sweep: the sweep's 10^5 cells on 4 ranks (where the Xeon record lost its one r != s cell)
#     rerun HPF_REPEAT_RUNS times (default 3), one job per cell as in sweep.sh: A.redistribute over
#     the sweep's best peer in each run.
# Rows: kind, run, ranks, M, r, s, value (tpetra: seconds; sweep: over_best_peer), and for tpetra
# run 2 the ratio to run 1. `uptime` goes to redistribute_repeatability_load.txt.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_sweep bench_redistribute_tpetra_alone -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
out=docs/results/redistribute_repeatability.csv
load=docs/results/redistribute_repeatability_load.txt
bin="$build/bench/redistribute"
runs="${HPF_REPEAT_RUNS:-3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
run() { mpirun --oversubscribe --bind-to none "$@"; }
: > "$load"
for k in 1 2; do echo "case,ranks,M,r,s,median_s" > "$tmp/tpetra$k.csv"; done
for np in 2 4; do
  echo "before tpetra, ranks $np: $(uptime)" >> "$load"
  for M in 1e3 1e5 1e7; do
    repeats=99
    [ "$M" = 1e7 ] && repeats=9
    for r in 1 3 7 64 0; do
      for s in 1 3 7 64 0; do
        for k in 1 2; do
          run -n "$np" "$bin/bench_redistribute_tpetra_alone" --M "$M" --r "$r" --s "$s" --repeats "$repeats" \
            --csv "$tmp/tpetra$k.csv" > /dev/null
        done
      done
    done
  done
done
for k in $(seq 1 "$runs"); do
  echo "before sweep run $k: $(uptime)" >> "$load"
  for r in 1 3 7 64 0; do
    for s in 1 3 7 64 0; do
      run -n 4 "$bin/bench_redistribute_sweep" --M 1e5 --r "$r" --s "$s" --repeats 99 \
        --csv "$tmp/sweep$k.csv" > /dev/null
    done
  done
done
echo "after: $(uptime)" >> "$load"
/usr/bin/python3 bench/redistribute/repeatability_plot.py "$tmp" "$runs" "$out" docs/results/redistribute_repeatability.png
