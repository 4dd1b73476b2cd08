#!/usr/bin/env bash
# Regenerates docs/results/redistribute_targets.{csv,png}: a repeated and a first REDISTRIBUTE of
# CYCLIC(3) -> CYCLIC(5) against ScaLAPACK's pdgemr2d and one memcpy of each rank's block (every rank
# copying at once), at 10^6 and 8*10^6 doubles on 2 ranks, in --jobs separate jobs (default 5) of
# bench_redistribute_speed (medians of --repeats calls each, default 9), under Open MPI's defaults.
# Every ratio is taken inside one job; the CSV keeps one row per job, method and size, and the plot
# shows the median over the jobs with the spread between jobs.
#   bench/redistribute/targets.sh [--jobs 5] [--repeats 9] [--ranks 2]
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
jobs=5
repeats=9
ranks=2
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    *) echo "targets.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_speed -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
out="${HPF_TARGETS_OUT:-docs/results/redistribute_targets}"
csv="$out.csv"
tmp=$(mktemp)
echo "job,case,ranks,M,method,median_s,min_s,over_memcpy,over_pdgemr2d" > "$csv"
load_start
for job in $(seq 1 "$jobs"); do
  for M in 1e6 8e6; do
    load_note "job $job M $M"
    rm -f "$tmp"
    mpirun --oversubscribe --bind-to none -n "$ranks" "$build/bench/redistribute/bench_redistribute_speed" \
      --M "$M" --r 3 --s 5 --repeats "$repeats" --csv "$tmp" > /dev/null
    tail -n +2 "$tmp" | sed "s/^/$job,/" >> "$csv"
  done
done
rm -f "$tmp"
csv_stamp "$csv"
/usr/bin/python3 "$(dirname "$0")/targets_plot.py" "$csv" "$out.png"
