#!/usr/bin/env bash
# One copy or two for a message between the ranks of one node (bench_cma_gather, 2 ranks): hpfrt's
# pack into the receiver's segment and unpack, process_vm_readv (CMA) straight from the sender's block,
# a ring of 64 KiB chunks, and MPI_Sendrecv of an MPI_Type_vector, against one memcpy of the same
# bytes, for the shapes of the sweep's lost 10^7 cells (docs/redistribute.md, "One copy through CMA,
# and a ring of chunks"). --rounds jobs (default 3; the CSV on record has 5 of 15 repeats), each of
# --repeats repeats (default 21); writes docs/results/transport_cma_gather.csv (a column `round`
# added), the load to docs/results/transport_cma_gather_load.txt and the plot to
# docs/results/transport_cma_gather.png.
# Usage: bench/transport/cma_gather.sh [--rounds R] [--repeats K]
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/common/bench_common.sh"
rounds_options "$@"
bench_build bench_cma_gather
cd "$HPF_ROOT"
round_outputs transport_cma_gather
for ((round = 1; round <= rounds; ++round)); do
  echo "round $round: $(uptime)" >> "$load"
  rm -f "$tmp"
  mpirun --bind-to none -np 2 "$build/bench/transport/bench_cma_gather" --pieces 56,512,4096,65536 \
    --repeats "$repeats" --csv "$tmp"
  append_round "$tmp" "$csv" "$round"
done
round_finish bench/transport/cma_plot.py
