#!/usr/bin/env bash
# Messages of long pieces between ranks of one node: packed into the receiver's shared-memory segment
# (the default since messages that may be shared are packed on both ends, exec/exchange.hpp) or moved in
# place through MPI's datatype engine (shared memory off). bench_redistribute_speed times, round-robin,
# BLOCK <-> CYCLIC(64) (512-byte pieces, in place by RedistOptions::in_place_min_piece_bytes) at 10^5
# and 8*10^6 doubles on 2 and 4 ranks, one job each: `executor` (the default) against `executor-mpi`
# (RedistOptions::shared_memory_min_bytes = SIZE_MAX: in place through MPI), with MPI_Alltoallw as the
# reference. Writes docs/results/redistribute_in_place_shared.csv (the benchmark's columns, then
# `round`), the load to docs/results/redistribute_in_place_shared_load.txt and the plot to
# docs/results/redistribute_in_place_shared.png.
# Usage: bench/redistribute/in_place_shared.sh [--rounds R] [--repeats K]   (defaults 1 and 9)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/common/bench_common.sh"
rounds_options --rounds 1 --repeats 9 "$@"
bench_build bench_redistribute_speed
cd "$HPF_ROOT"
round_outputs redistribute_in_place_shared
for ((round = 1; round <= rounds; ++round)); do
  for np in 2 4; do
    for M in 1e5 8e6; do
      for rs in "0 64" "64 0"; do
        read -r r s <<< "$rs"
        echo "round $round, $np ranks, M=$M, r=$r s=$s: $(uptime)" >> "$load"
        rm -f "$tmp"
        mpirun --oversubscribe --bind-to none -n "$np" "$build/bench/redistribute/bench_redistribute_speed" \
          --M "$M" --r "$r" --s "$s" --repeats "$repeats" --csv "$tmp" > /dev/null
        append_round "$tmp" "$csv" "$round"
      done
    done
  done
done
round_finish bench/redistribute/in_place_shared_plot.py
