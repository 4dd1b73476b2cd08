#!/usr/bin/env bash
# The two kinds of job (docs/redistribute.md, "One copy through CMA, and a ring of chunks"), seen in the
# sweep's own cells: --rounds jobs (default 8) of bench_redistribute_sweep for BLOCK -> CYCLIC(64) and
# CYCLIC(64) -> BLOCK at 10^7 doubles on 2 ranks, medians of --repeats (default 9), alternating the
# cells; writes docs/results/redistribute_job_kind.csv (the sweep's columns and `round`), the load to
# docs/results/redistribute_job_kind_load.txt and the plot to docs/results/redistribute_job_kind.png
# (each job's A.redistribute, MPI_Alltoallw and memcpy times).
# Usage: bench/redistribute/job_kind.sh [--rounds R] [--repeats K]
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/common/bench_common.sh"
rounds_options "$@"
# This script's defaults are 8 jobs of 9 repeats (rounds_options' are 3 and 21).
[[ " $* " == *" --rounds "* ]] || rounds=8
[[ " $* " == *" --repeats "* ]] || repeats=9
bench_build bench_redistribute_sweep
cd "$HPF_ROOT"
round_outputs redistribute_job_kind
for ((round = 1; round <= rounds; ++round)); do
  echo "round $round: $(uptime)" >> "$load"
  for cell in "0 64" "64 0"; do
    read -r r s <<< "$cell"
    rm -f "$tmp"
    mpirun --oversubscribe --bind-to none -n 2 "$build/bench/redistribute/bench_redistribute_sweep" \
      --M 1e7 --r "$r" --s "$s" --repeats "$repeats" --csv "$tmp" > /dev/null
    append_round "$tmp" "$csv" "$round"
  done
done
round_finish bench/redistribute/job_kind_plot.py
