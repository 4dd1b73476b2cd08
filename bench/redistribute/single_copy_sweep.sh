#!/usr/bin/env bash
# The sweep's M = 10^7 cells on 2 ranks (bench_redistribute_sweep, r, s in {1, 3, 7, 64, BLOCK}, medians
# of 9) run twice, once with Open MPI's single-copy mechanism off (scripts/env.sh's setting, as in
# docs/results/redistribute_sweep.csv) and once with CMA, one job each, --rounds times alternating:
# do the cells hpfrt wins at 10^7 stay won when the MPI peers copy large messages once? Writes
# docs/results/redistribute_sweep_single_copy.csv (the sweep's columns, then `mechanism` and `round`),
# the load to docs/results/redistribute_sweep_single_copy_load.txt, the plot to
# docs/results/redistribute_sweep_single_copy.png.
# Usage: bench/redistribute/single_copy_sweep.sh [--rounds R] [--repeats K]   (defaults 1 and 9)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/common/bench_common.sh"
rounds_options --rounds 1 --repeats 9 "$@"
bench_build bench_redistribute_sweep
cd "$HPF_ROOT"
round_outputs redistribute_sweep_single_copy
both=$(mktemp)
trap 'rm -f "$tmp" "$both"' EXIT
for ((round = 1; round <= rounds; ++round)); do
  for mechanism in none cma; do
    echo "round $round, $mechanism: $(uptime)" >> "$load"
    rm -f "$tmp" "$both"
    OMPI_MCA_btl_vader_single_copy_mechanism=$mechanism mpirun --oversubscribe --bind-to none -n 2 \
      "$build/bench/redistribute/bench_redistribute_sweep" --M 1e7 --r 1,3,7,64,0 --s 1,3,7,64,0 \
      --repeats "$repeats" --csv "$tmp" > /dev/null
    append_column "$tmp" "$both" mechanism "$mechanism"
    append_round "$both" "$csv" "$round"
  done
done
round_finish bench/redistribute/single_copy_sweep_plot.py
