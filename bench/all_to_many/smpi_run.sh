#!/usr/bin/env bash
# Figure 5 of Wang and Ranka under SimGrid SMPI: which of AC, LP, RS_N and RS_NL wins as the
# density d and the message size change, on N simulated ranks of a hypercube (the iPSC/860 of the paper:
# e-cube routes, 2.8 MB/s links) and of a 2-D mesh (Paragon-style: XY routes, 175 MB/s links), both with
# link contention (bench/platforms/make_platforms.py). Builds smpi_driver.cpp and the Kokkos-free
# sources it needs (core/, schedule/, exec/, irregular/com) with smpicxx into build-smpi/all_to_many/ (or
# $HPF_SMPI_BUILD/all_to_many/), checks that SimGrid's routes are hpf::Routing's paths for every pair
# (so RS_NL schedules with the platform's own routes), runs every (d, size) in one smpirun per platform
# (each variant's received data checked byte by byte first), prints the winner per (d, size) and, with
# --csv, writes one row per (platform, d, size, variant):
#   platform,ranks,d,bytes,algo,exec,phases,simulated_seconds,ratio_to_best,winner,phased_winner,patterns,repeats,
#   wall_seconds
# simulated_seconds: the median over the patterns of each pattern's median over the repeats (the paper
# averages; the simulation is deterministic, so the repeats agree); ratio_to_best: to the fastest of the
# paper's four (AC/S2, LP/S1, RS_N/S2, RS_NL/S1); winner: 1 on the fastest of those four. RS_N under S1
# (always) and LP and RS_NL under S2 (--all-modes 1) are reported but never win; phased_winner: 1 on the
# fastest of the phased (S1) variants LP, RS_N and RS_NL. wall_seconds: the real time of the
# platform's smpirun. --png draws the region map (smpi_plot.py).
#
#   bench/all_to_many/smpi_run.sh [--platform hypercube|mesh|both] [--ranks 64] [--d 4,8,16,32,48]
#       [--bytes 16,128,1024,8192,32768,131072] [--patterns 2] [--repeats 3] [--all-modes 0|1]
#       [--csv file (overwritten)] [--png file] [--model hypercube|mesh2d]
# --model: RS_NL's routing model instead of the platform's own (for the test that the route check fails
# when they differ).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/platforms/smpi_common.sh"
usage="usage: $0 [--platform hypercube|mesh|both] [--ranks N] [--d list] [--bytes list] [--patterns P] [--repeats R] [--all-modes 0|1] [--csv file] [--png file] [--model hypercube|mesh2d]"
platform=both ranks=64 ds=4,8,16,32,48 sizes=16,128,1024,8192,32768,131072 patterns=2 repeats=3 all_modes=0 csv="" png="" model=""
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || { echo "$1: missing value; $usage" >&2; exit 2; }
  case "$1" in
    --platform) platform="$2" ;; --ranks) ranks="$2" ;; --d) ds="$2" ;; --bytes) sizes="$2" ;;
    --patterns) patterns="$2" ;; --repeats) repeats="$2" ;; --all-modes) all_modes="$2" ;;
    --csv) csv="$2" ;; --png) png="$2" ;; --model) model="$2" ;;
    *) echo "unknown option '$1'; $usage" >&2; exit 2 ;;
  esac
  shift 2
done
[[ "$ranks" =~ ^[0-9]+$ ]] && [ "$ranks" -ge 2 ] || { echo "--ranks: expected a number >= 2, got '$ranks'; $usage" >&2; exit 2; }
case "$platform" in
  hypercube|mesh) platforms=("$platform") ;; both) platforms=(hypercube mesh) ;;
  *) echo "--platform: expected hypercube, mesh or both, got '$platform'; $usage" >&2; exit 2 ;;
esac
if [[ " ${platforms[*]} " == *" hypercube "* ]] && [ $((ranks & (ranks - 1))) -ne 0 ]; then
  echo "--ranks: the hypercube needs a power of two, got $ranks; $usage" >&2; exit 2
fi

out="${HPF_SMPI_BUILD:-$HPF_ROOT/build-smpi}/all_to_many"  # HPF_SMPI_BUILD: CTest's build tree
smpi_build "$out" bench_all_to_many_smpi runtime/core/error.cpp runtime/core/mpi.cpp runtime/core/agree.cpp \
  runtime/core/text.cpp runtime/core/memory.cpp runtime/schedule/schedule.cpp runtime/schedule/matching.cpp \
  runtime/schedule/strategy.cpp runtime/schedule/all_to_many.cpp runtime/schedule/routing.cpp \
  runtime/exec/exchange.cpp runtime/exec/model.cpp runtime/exec/plogp.cpp runtime/irregular/com.cpp \
  bench/all_to_many/smpi_driver.cpp
hosts=$(smpi_hostfile "$ranks" "$out")
results="$out/results_$$.txt"
: > "$results"
for plat in "${platforms[@]}"; do
  xml=$(smpi_platform "$plat" "$ranks" "$out")
  routing=$([ "$plat" = hypercube ] && echo hypercube || echo mesh2d)
  routing="${model:-$routing}"
  log="$out/smpirun_${plat}_$$"
  t0=$(date +%s.%N)
  smpirun -np "$ranks" -platform "$xml" -hostfile "$hosts" "${smpi_cfg[@]}" "$out/bench_all_to_many_smpi" \
    --routing "$routing" --check-routes 1 --d "$ds" --bytes "$sizes" --patterns "$patterns" \
    --repeats "$repeats" --all-modes "$all_modes" > "$log.out" 2> "$log.err" ||
    { cat "$log.out" "$log.err" >&2; echo "smpirun failed on $plat" >&2; exit 1; }
  t1=$(date +%s.%N)
  grep -q '^ROUTES,' "$log.out" || { echo "no route check on $plat" >&2; exit 1; }
  echo "$plat: SimGrid's routes equal hpf::Routing ($routing) for $(grep -a '^ROUTES,' "$log.out" | cut -d, -f2) pairs" >&2
  grep -a '^RESULT,' "$log.out" | sed "s/^RESULT,/$plat,/; s/\$/,$(python3 -c "print(f'{$t1 - $t0:.1f}')")/" >> "$results"
  rm -f "$log.out" "$log.err"
done

python3 "$HPF_ROOT/bench/all_to_many/smpi_summary.py" "$results" "$ranks" "$patterns" "$repeats" "$csv"
rm -f "$results"
if [ -n "$png" ]; then
  [ -n "$csv" ] || { echo "--png needs --csv" >&2; exit 2; }
  python3 "$HPF_ROOT/bench/all_to_many/smpi_plot.py" "$csv" "$png"
fi
