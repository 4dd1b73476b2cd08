#!/usr/bin/env bash
# Regenerates docs/results/redistribute_relabel.{csv,png}: bytes a REDISTRIBUTE moves between random
# 2-D block-cyclic layout pairs of 4 to 1024 ranks with no relabeling, with COSTA's greedy pairwise
# swaps and with the exact arrangement of best_relabeling, and the time each arrangement takes to
# compute (bench_redistribute_relabel; pure computation on one process, no MPI ranks). Extra arguments
# go to the driver. HPF_BUILD names the build tree (default build-release; an existing tree is used as
# it is configured).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
fi
cmake --build "$build" --target bench_redistribute_relabel -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
csv=docs/results/redistribute_relabel.csv
load_start
load_note before
"$build/bench/redistribute/bench_redistribute_relabel" --csv "$csv" "$@"
load_note after
csv_stamp "$csv"
/usr/bin/python3 "$(dirname "$0")/relabel_plot.py" "$csv" docs/results/redistribute_relabel.png
