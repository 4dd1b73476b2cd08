#!/usr/bin/env bash
# Regenerates docs/results/redistribute_one_pass.{csv,png} (issue 10): 10^7 doubles, r, s in
# {1, 3, 7, 64, BLOCK}, on 2 and 4 ranks: all at once with every message in one pass over each block
# (the default), all at once message by message, what Strategy::Auto runs, MPI_Alltoallw and one
# memcpy of the local block, in one job per rank count (medians of 9; see one_pass.cpp). `uptime`
# before each job goes to redistribute_one_pass_load.txt. Extra arguments go to the benchmark.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_one_pass -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
csv=docs/results/redistribute_one_pass.csv
load=docs/results/redistribute_one_pass_load.txt
rm -f "$csv"
: > "$load"
for np in 2 4; do
  echo "before ranks $np: $(uptime)" >> "$load"
  mpirun --oversubscribe --bind-to none -n "$np" "$build/bench/redistribute/bench_redistribute_one_pass" \
    --M 1e7 --repeats 9 --csv "$csv" "$@"
done
echo "after: $(uptime)" >> "$load"
/usr/bin/python3 bench/redistribute/one_pass_plot.py "$csv" docs/results/redistribute_one_pass.png
echo "results: $csv, $load, docs/results/redistribute_one_pass.png"
