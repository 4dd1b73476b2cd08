#!/usr/bin/env bash
# REDISTRIBUTE CYCLIC(r) -> CYCLIC(s) of M doubles on N simulated ranks under SimGrid SMPI:
# builds smpi_driver.cpp and the Kokkos-free sources it needs (core/, layout/, schedule/, exec/,
# redist/) with smpicxx (through ccache if present) into build-smpi/redistribute/ (or $HPF_SMPI_BUILD/redistribute/) (once; rebuilt when a source or header is newer),
# takes the platform bench/platforms/<platform>_<N>.xml (generated there by make_platforms.py for
# other N), runs each hpfrt strategy and each of SMPI's own MPI_Alltoallv algorithms (pair, ring,
# bruck, and ompi, the selector of Open MPI's tuned component) in its own smpirun, --jobs of them at a
# time (independent simulations: each is deterministic, so running them side by side changes their
# real time only), and prints CSV rows
#   platform,ranks,M,r,s,method,simulated_seconds,ratio_to_caterpillar,ratio_to_best_alltoallv,
#   steps,total_cost,largest_message_bytes,smallest_message_bytes,checked_elements,wall_seconds
# (ratio_to_caterpillar: to caterpillar, or above 256 ranks to caterpillar-steps; steps and total cost, in elements, of the step strategies' schedules, empty for the others; messages without the locally
# kept part; wall_seconds is the real time of the smpirun that produced the row, with --jobs
# smpiruns sharing the machine). Every method's result is checked element by element before it is
# timed (see smpi_driver.cpp), except MPI_Alltoallv from 1024 ranks on (--check below). The simulation is deterministic; repeats of the hpfrt methods give the
# same time, while an alltoallv row's first execution also agrees on the counts (one MPI_Allreduce),
# so medians of >= 3 repeats leave it out.
#
#   bench/redistribute/smpi_run.sh --ranks N --platform cluster|torus|mesh [--M elements] [--r R --s S]
#                                  [--repeats K] [--csv file (rows appended)] [--shared 0|1] [--jobs J]
#                                  [--alltoallv pair,ring,bruck,ompi]
# --M: default 131072 N (1 MiB of doubles per rank, the problem of docs/performance.md).
# --repeats: default 3, and 1 from 1024 ranks on (as smpi_results.sh).
# --shared: SMPI_SHARED_MALLOC source and target blocks (default 1 from 256 ranks on; the check then
# runs on a smaller problem with the same pattern, and the timed runs skip packing, see smpi_driver.cpp).
# From 1024 ranks on the MPI_Alltoallv rows are not checked (checked_elements 0; see sim below).
# --jobs: smpiruns at a time (default $HPF_JOBS, the number of cores); the longest start first.
# --alltoallv: SMPI's algorithms to run (default pair,ring,bruck,ompi, and pair,ring,bruck from 1024
# ranks on: there SMPI's ompi selector picks basic_linear, every one of the P^2 messages posted at
# once, whose simulation hardly advances).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/platforms/smpi_common.sh"
usage="usage: $0 --ranks N --platform cluster|torus|mesh [--M elements] [--r R --s S] [--repeats K] [--csv file] [--shared 0|1] [--jobs J] [--alltoallv a,b,...]"
ranks="" platform="" M="" r=3 s=5 repeats="" csv="" shared="" jobs="$HPF_JOBS" a2a=""
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || { echo "$1: missing value; $usage" >&2; exit 2; }
  case "$1" in
    --ranks) ranks="$2" ;; --platform) platform="$2" ;; --M) M="$2" ;; --r) r="$2" ;; --s) s="$2" ;;
    --repeats) repeats="$2" ;; --csv) csv="$2" ;; --shared) shared="$2" ;; --jobs) jobs="$2" ;; --alltoallv) a2a="$2" ;;
    *) echo "unknown option '$1'; $usage" >&2; exit 2 ;;
  esac
  shift 2
done
[[ "$ranks" =~ ^[0-9]+$ ]] && [ "$ranks" -ge 1 ] || { echo "--ranks: expected a number >= 1, got '$ranks'; $usage" >&2; exit 2; }
case "$platform" in cluster|torus|mesh) ;; *) echo "--platform: expected cluster, torus or mesh, got '$platform'; $usage" >&2; exit 2 ;; esac
[[ "$jobs" =~ ^[0-9]+$ ]] && [ "$jobs" -ge 1 ] || { echo "--jobs: expected a number >= 1, got '$jobs'; $usage" >&2; exit 2; }
[ -n "$M" ] || M=$((131072 * ranks))
[ -n "$repeats" ] || { if [ "$ranks" -ge 1024 ]; then repeats=1; else repeats=3; fi; }
[ -n "$shared" ] || { if [ "$ranks" -ge 256 ]; then shared=1; else shared=0; fi; }
[ -n "$a2a" ] || { if [ "$ranks" -ge 1024 ]; then a2a=pair,ring,bruck; else a2a=pair,ring,bruck,ompi; fi; }
IFS=, read -r -a a2a_algs <<< "$a2a"
for alg in "${a2a_algs[@]}"; do
  case "$alg" in pair|ring|bruck|ompi) ;; *) echo "--alltoallv: expected pair, ring, bruck or ompi, got '$alg'; $usage" >&2; exit 2 ;; esac
done

out="${HPF_SMPI_BUILD:-$HPF_ROOT/build-smpi}/redistribute"  # HPF_SMPI_BUILD: CTest's build tree
mkdir -p "$out"
srcs=(runtime/core/error.cpp runtime/core/mpi.cpp runtime/core/agree.cpp runtime/core/text.cpp runtime/core/memory.cpp runtime/layout/distribution.cpp runtime/layout/process_grid.cpp
      runtime/schedule/schedule.cpp runtime/schedule/matching.cpp runtime/schedule/strategy.cpp
      runtime/schedule/all_to_many.cpp runtime/schedule/routing.cpp runtime/exec/exchange.cpp
      runtime/exec/model.cpp runtime/exec/plogp.cpp runtime/redist/pattern.cpp runtime/redist/plan.cpp
      runtime/redist/runs.cpp runtime/redist/runs_datatype.cpp runtime/exec/datatype.cpp runtime/schedule/gen_block.cpp bench/redistribute/smpi_driver.cpp)
smpi_build "$out" bench_redistribute_smpi "${srcs[@]}"
exe="$out/bench_redistribute_smpi"
xml=$(smpi_platform "$platform" "$ranks" "$out")
hosts=$(smpi_hostfile "$ranks" "$out")
results="$out/results_${platform}_${ranks}_$$"  # per invocation: runs may go on side by side
log="$out/smpirun_${platform}_${ranks}_$$"
sim() { # id methods label [smpirun options...]: one smpirun, its RESULT rows with its wall time in
  # $results.id (left empty, with the output on stderr, when it fails)
  local id="$1" args=(--methods "$2") t0 t1 wall
  [ -z "$3" ] || args+=(--label "$3")
  # From 1024 ranks on, MPI_Alltoallv runs unchecked (checked_elements 0): its check would be a second
  # MPI_Alltoallv of P^2 messages, about a third of the run's real time (bruck: minutes). The same
  # executor path (Exchange's Alltoallv mode) is checked at 16-256 ranks, and the same messages by
  # all-at-once at this rank count.
  if [ "$2" = alltoallv ] && [ "$ranks" -ge 1024 ]; then args+=(--check 0); fi
  shift 3
  : > "$results.$id"
  t0=$(date +%s.%N)
  if ! smpirun -np "$ranks" -platform "$xml" -hostfile "$hosts" "${smpi_cfg[@]}" "$@" \
    "$exe" --M "$M" --r "$r" --s "$s" --repeats "$repeats" --shared "$shared" "${args[@]}" \
    > "$log.$id.out" 2> "$log.$id.err"; then
    cat "$log.$id.out" "$log.$id.err" >&2
    echo "smpirun failed: ${args[*]} $*" >&2
    return 1
  fi
  t1=$(date +%s.%N)
  wall=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
  grep -a '^RESULT,' "$log.$id.out" | sed "s/\$/,$wall/" > "$results.$id"
  rm -f "$log.$id.out" "$log.$id.err"
}
# The caterpillar's plan holds P^2 messages on every rank (16 GB for 1024 simulated ranks): above
# 256 ranks only caterpillar-steps runs (the same messages in the same steps, see smpi_driver.cpp).
if [ "$ranks" -le 256 ]; then cat_methods=(caterpillar caterpillar-steps); else cat_methods=(caterpillar-steps); fi
hpf_methods=("${cat_methods[@]}" class koenig-stepwise koenig-greedy all-at-once)
# One smpirun per method, at most --jobs at a time, longest first (by their real times at 1024 ranks
# on the torus): bruck, all-at-once, the other alltoallv algorithms, the step methods.
a2a_methods=("${a2a_algs[@]/#/alltoallv_}")
runs=()
for m in alltoallv_bruck all-at-once alltoallv_pair alltoallv_ring alltoallv_ompi koenig-stepwise koenig-greedy class \
  "${cat_methods[@]}"; do
  case "$m" in alltoallv_*) [[ " ${a2a_methods[*]} " == *" $m "* ]] || continue ;; esac
  runs+=("$m")
done
for i in "${!runs[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  case "${runs[$i]}" in
    alltoallv_*) sim "$i" alltoallv "${runs[$i]}" --cfg=smpi/alltoallv:"${runs[$i]#alltoallv_}" & ;;
    *) sim "$i" "${runs[$i]}" "" & ;;
  esac
done
wait
# Rows in the CSV's order: the hpfrt methods, then pair, ring, bruck, ompi. A failed smpirun left
# no rows, which the check below reports.
: > "$results"
for want in "${hpf_methods[@]}" "${a2a_methods[@]}"; do
  for i in "${!runs[@]}"; do if [ "${runs[$i]}" = "$want" ]; then cat "$results.$i" >> "$results"; fi; done
done
for i in "${!runs[@]}"; do rm -f "$results.$i"; done

python3 - "$results" "$platform" "$ranks" "$M" "$r" "$s" "$csv" "${#a2a_methods[@]}" <<'PY'
import os, sys
results, platform, ranks, M, r, s, csv, n_a2a = sys.argv[1:]
rows = [l.strip().split(",")[1:] for l in open(results) if l.strip()]
t = {x[0]: float(x[1]) for x in rows}
cat = "caterpillar" if "caterpillar" in t else "caterpillar-steps"
if cat not in t or len(rows) != 5 + int(n_a2a) + ("caterpillar" in t):
    sys.exit(f"smpi_run.sh: expected the caterpillar, 4 other hpfrt methods and {n_a2a} alltoallv, "
             f"got {[x[0] for x in rows]}")
best_a2a = min(v for k, v in t.items() if k.startswith("alltoallv_"))
header = ("platform,ranks,M,r,s,method,simulated_seconds,ratio_to_caterpillar,ratio_to_best_alltoallv,"
          "steps,total_cost,largest_message_bytes,smallest_message_bytes,checked_elements,wall_seconds")
# Steps and total cost describe the step schedules only: all-at-once posts every message at once, and
# SMPI's alltoallv algorithms make their own steps.
stepwise = ("caterpillar", "caterpillar-steps", "class", "koenig-stepwise", "koenig-greedy")
lines = [f"{platform},{ranks},{M},{r},{s},{x[0]},{x[1]},{float(x[1]) / t[cat]:.4f},"
         f"{float(x[1]) / best_a2a:.4f},{x[2] if x[0] in stepwise else ''},{x[3] if x[0] in stepwise else ''},"
         f"{','.join(x[4:])}" for x in rows]
print(header)
print("\n".join(lines))
if csv:
    new = not os.path.exists(csv) or os.path.getsize(csv) == 0
    with open(csv, "a") as f:
        if new:
            f.write(header + "\n")
        f.write("\n".join(lines) + "\n")
PY
rm -f "$results"
