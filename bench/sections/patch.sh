#!/usr/bin/env bash
# The blocked patch copy of bench_sections alone (issue 13: the cell that misses the 0.7x goal), with
# the hpfrt plan all at once both ways: in place through MPI datatypes (the default for its long column
# pieces) and packed into shared-memory segments (SectionOptions::in_place_min_piece_bytes = SIZE_MAX).
# Each of --rounds jobs per rank count (default 3) runs --repeats repeats (default 21) at n = 4096 on 2
# and 4 ranks and appends to docs/results/sections_patch.csv (a column `round` added); the machine load
# goes to docs/results/sections_patch_load.txt, the plot (every round's bars side by side) to
# docs/results/sections_patch.png.
# With --probe single-copy (first), the jobs add bench_sections' two single-copy probe rows (each
# receiver copies its pieces once, from the owners' blocks with process_vm_readv, cma-read-probe, or from
# their MPI-3 shared windows, window-read-probe) and write docs/results/sections_patch_probe.{csv,png}
# and _load.txt instead.
# Usage: bench/sections/patch.sh [--probe single-copy] [--rounds R] [--repeats K]
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/common/bench_common.sh"
out=sections_patch
probe=()
if [ "${1:-}" = --probe ]; then
  [ "${2:-}" = single-copy ] || { echo "--probe: expected single-copy, got '${2:-}'" >&2; exit 2; }
  out=sections_patch_probe probe=(--probe single-copy)
  shift 2
fi
rounds_options "$@"
bench_build bench_sections
cd "$HPF_ROOT"
round_outputs "$out"
for ((round = 1; round <= rounds; ++round)); do
  for np in 2 4; do
    echo "round $round, before ranks $np: $(uptime)" >> "$load"
    rm -f "$tmp"
    mpirun --oversubscribe --bind-to none -np "$np" "$build/bench/sections/bench_sections" --n 4096 \
      --repeats "$repeats" --cases patch "${probe[@]}" --csv "$tmp" > /dev/null
    append_round "$tmp" "$csv" "$round"
  done
done
round_finish bench/sections/plot.py
