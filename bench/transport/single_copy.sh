#!/usr/bin/env bash
# Open MPI's shared-memory transport with and without its single-copy mechanism (CMA), against one
# memcpy of the same bytes (bench_single_copy, 2 ranks): why scripts/env.sh sets
# btl_vader_single_copy_mechanism=none for every test and benchmark. --rounds jobs per setting
# (default 3; the CSV on record has 6), alternating, each of --repeats repeats (default 21); writes
# docs/results/transport_single_copy.csv (a column `round` added), the load to
# docs/results/transport_single_copy_load.txt and the plot to docs/results/transport_single_copy.png.
# Usage: bench/transport/single_copy.sh [--rounds R] [--repeats K]
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/common/bench_common.sh"
rounds_options "$@"
bench_build bench_single_copy
cd "$HPF_ROOT"
round_outputs transport_single_copy
for ((round = 1; round <= rounds; ++round)); do
  for mechanism in none cma; do
    echo "round $round, $mechanism: $(uptime)" >> "$load"
    rm -f "$tmp"
    OMPI_MCA_btl_vader_single_copy_mechanism=$mechanism mpirun --bind-to none -np 2 \
      "$build/bench/transport/bench_single_copy" --mechanism "$mechanism" --repeats "$repeats" --csv "$tmp"
    append_round "$tmp" "$csv" "$round"
  done
done
round_finish bench/transport/plot.py
