#!/usr/bin/env bash
# The adaptive broadcast of Steffenel at scale under SimGrid SMPI: N simulated ranks
# of the two-level Grid'5000 platform of Table 4 of Steffenel (make_platforms.py twolevel: six clusters of
# different sizes, slow links between sites), broadcasting from rank 0. Builds smpi_driver.cpp and the
# Kokkos-free sources it needs (core/, schedule/, exec/, adaptive/) with smpicxx into
# build-smpi/adaptive/ (or $HPF_SMPI_BUILD/adaptive/), runs hpfrt's methods in one smpirun (the
# one-level adaptive choice, the two-level plan with each inter-cluster heuristic of Section 5 of Steffenel,
# and hier-auto, the heuristic of smallest predicted makespan) and MPI_Bcast once per SMPI algorithm
# (--cfg=smpi/bcast:X), and prints CSV rows
#   ranks,bytes,method,simulated_seconds,predicted_seconds,ratio_to_best_mpi,what,wall_seconds
# ratio_to_best_mpi: to the fastest MPI_Bcast algorithm at that size; what: the algorithm (and segment)
# or heuristic that ran; wall_seconds: the real time of the smpirun that produced the row. Every
# method's result is checked on every rank before its time is printed (see smpi_driver.cpp).
#
#   bench/adaptive/smpi_run.sh --ranks N [--bytes 1024,65536,1048576] [--bcast a,b,...] [--repeats 1]
#                              [--csv file (rows appended)] [--hpfrt 0|1] [--methods a,b,...]
# --hpfrt 0: only the MPI_Bcast runs (their rows' ratios are then to the best of those alone).
# --methods: which of hpfrt's methods run (default all: adaptive and hier-<each heuristic>, hier-auto).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/platforms/smpi_common.sh"
usage="usage: $0 --ranks N [--bytes list] [--bcast list of SMPI bcast algorithms] [--repeats R] [--csv file] [--hpfrt 0|1] [--methods list]"
ranks="" bytes=1024,65536,1048576 bcasts=binomial_tree,scatter_LR_allgather,ompi_pipeline,ompi,mpich repeats=1 csv="" hpfrt=1
methods=adaptive,hier-auto,hier-flat,hier-fef,hier-ecef,hier-ecef-la,hier-ecef-lat,hier-ecef-lat-max,hier-bottom-up
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || { echo "$1: missing value; $usage" >&2; exit 2; }
  case "$1" in
    --ranks) ranks="$2" ;; --bytes) bytes="$2" ;; --bcast) bcasts="$2" ;; --repeats) repeats="$2" ;;
    --csv) csv="$2" ;; --hpfrt) hpfrt="$2" ;; --methods) methods="$2" ;;
    *) echo "unknown option '$1'; $usage" >&2; exit 2 ;;
  esac
  shift 2
done
[[ "$ranks" =~ ^[0-9]+$ ]] && [ "$ranks" -ge 6 ] || { echo "--ranks: expected a number >= 6 (six clusters), got '$ranks'; $usage" >&2; exit 2; }
for m in ${methods//,/ }; do
  case "$m" in adaptive|hier-auto|hier-flat|hier-fef|hier-ecef|hier-ecef-la|hier-ecef-lat|hier-ecef-lat-max|hier-bottom-up) ;;
    *) echo "--methods: expected adaptive or hier-<heuristic>, got '$m'; $usage" >&2; exit 2 ;;
  esac
done

out="${HPF_SMPI_BUILD:-$HPF_ROOT/build-smpi}/adaptive"  # HPF_SMPI_BUILD: CTest's build tree
smpi_build "$out" bench_adaptive_smpi runtime/core/error.cpp runtime/core/mpi.cpp runtime/core/agree.cpp \
  runtime/core/text.cpp runtime/core/memory.cpp runtime/schedule/schedule.cpp runtime/schedule/matching.cpp \
  runtime/schedule/strategy.cpp runtime/exec/exchange.cpp runtime/exec/model.cpp runtime/exec/plogp.cpp \
  runtime/adaptive/broadcast.cpp runtime/adaptive/broadcast_model.cpp runtime/adaptive/hierarchical.cpp \
  bench/adaptive/smpi_driver.cpp
xml=$(smpi_platform twolevel "$ranks" "$out")
hosts=$(smpi_hostfile "$ranks" "$out")
sizes=$(python3 "$HPF_ROOT/bench/platforms/make_platforms.py" twolevel-sizes "$ranks")
results="$out/results_${ranks}_$$.txt"
log="$out/smpirun_${ranks}_$$"
: > "$results"
sim() { # driver args...
  local t0 t1
  t0=$(date +%s.%N)
  smpirun -np "$ranks" -platform "$xml" -hostfile "$hosts" "${smpi_cfg[@]}" ${cfg_extra[@]+"${cfg_extra[@]}"} \
    "$out/bench_adaptive_smpi" --sizes "$sizes" --bytes "$bytes" --repeats "$repeats" --overhead "$overhead" "$@" > "$log.out" 2> "$log.err" ||
    { cat "$log.out" "$log.err" >&2; echo "smpirun failed" >&2; exit 1; }
  t1=$(date +%s.%N)
  grep -a '^RESULT,' "$log.out" | sed "s/\$/,$(python3 -c "print(f'{$t1 - $t0:.1f}')")/" >> "$results"
}
# Every message costs its sender and its receiver 1 us (smpi/os, smpi/or; Open MPI's per-message overhead
# is of that order). Without it a segment costs nothing but its bytes in the simulation, the pLogP model
# (told the same 1 us, --overhead) picks 1-byte segments, and the simulation of their millions of messages
# does not finish.
overhead=1e-6
smpi_cfg+=(--cfg=smpi/os:0:$overhead:0 --cfg=smpi/or:0:$overhead:0)
cfg_extra=()
[ "$hpfrt" = 0 ] || sim --methods "$methods"
for alg in ${bcasts//,/ }; do
  cfg_extra=(--cfg=smpi/bcast:"$alg")
  sim --methods mpi --label "bcast_$alg"
done
rm -f "$log.out" "$log.err"

python3 "$HPF_ROOT/bench/adaptive/smpi_summary.py" "$results" "$ranks" "$sizes" "$csv"
rm -f "$results"
