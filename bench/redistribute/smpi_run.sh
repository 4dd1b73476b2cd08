#!/usr/bin/env bash
# REDISTRIBUTE CYCLIC(r) -> CYCLIC(s) of M doubles on N simulated ranks under SimGrid SMPI (issue 11):
# builds smpi_driver.cpp and the Kokkos-free sources it needs (core/, layout/, schedule/, exec/,
# redist/) with smpicxx (through ccache if present) into build-smpi/redistribute/ (or $HPF_SMPI_BUILD/redistribute/) (once; rebuilt when a source or header is newer),
# takes the platform bench/platforms/<platform>_<N>.xml (generated there by make_platforms.py for
# other N), runs the hpfrt strategies in one smpirun and SMPI's own MPI_Alltoallv once per algorithm
# (pair, ring, bruck, and ompi, the selector of Open MPI's tuned component), and prints CSV rows
#   platform,ranks,M,r,s,method,simulated_seconds,ratio_to_caterpillar,ratio_to_best_alltoallv,
#   steps,total_cost,largest_message_bytes,smallest_message_bytes,checked_elements,wall_seconds
# (ratio_to_caterpillar: to caterpillar, or above 256 ranks to caterpillar-steps; steps and total cost, in elements, of the step strategies' schedules, empty for the others; messages without the locally
# kept part; wall_seconds is the real time of the smpirun that produced the row). Every method's result
# is checked element by element before it is timed (see smpi_driver.cpp). The simulation is
# deterministic; repeats of the hpfrt methods give the same time, while an alltoallv row's first
# execution also agrees on the counts (one MPI_Allreduce), so medians of >= 3 repeats leave it out.
#
#   bench/redistribute/smpi_run.sh --ranks N --platform cluster|torus|mesh [--M elements] [--r R --s S]
#                                  [--repeats K] [--csv file (rows appended)] [--shared 0|1]
# --shared: SMPI_SHARED_MALLOC source and target blocks (default 1 from 256 ranks on; the check then
# runs on a smaller problem with the same pattern).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$HPF_ROOT/bench/platforms/smpi_common.sh"
usage="usage: $0 --ranks N --platform cluster|torus|mesh [--M elements] [--r R --s S] [--repeats K] [--csv file] [--shared 0|1]"
ranks="" platform="" M=1000000 r=3 s=5 repeats=3 csv="" shared=""
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || { echo "$1: missing value; $usage" >&2; exit 2; }
  case "$1" in
    --ranks) ranks="$2" ;; --platform) platform="$2" ;; --M) M="$2" ;; --r) r="$2" ;; --s) s="$2" ;;
    --repeats) repeats="$2" ;; --csv) csv="$2" ;; --shared) shared="$2" ;;
    *) echo "unknown option '$1'; $usage" >&2; exit 2 ;;
  esac
  shift 2
done
[[ "$ranks" =~ ^[0-9]+$ ]] && [ "$ranks" -ge 1 ] || { echo "--ranks: expected a number >= 1, got '$ranks'; $usage" >&2; exit 2; }
case "$platform" in cluster|torus|mesh) ;; *) echo "--platform: expected cluster, torus or mesh, got '$platform'; $usage" >&2; exit 2 ;; esac
[ -n "$shared" ] || { if [ "$ranks" -ge 256 ]; then shared=1; else shared=0; fi; }

out="${HPF_SMPI_BUILD:-$HPF_ROOT/build-smpi}/redistribute"  # HPF_SMPI_BUILD: CTest's build tree
mkdir -p "$out"
srcs=(runtime/core/error.cpp runtime/core/mpi.cpp runtime/core/agree.cpp runtime/core/text.cpp runtime/core/memory.cpp runtime/layout/distribution.cpp runtime/layout/process_grid.cpp
      runtime/schedule/schedule.cpp runtime/schedule/matching.cpp runtime/schedule/strategy.cpp
      runtime/schedule/all_to_many.cpp runtime/schedule/routing.cpp runtime/exec/exchange.cpp
      runtime/exec/model.cpp runtime/exec/plogp.cpp runtime/redist/pattern.cpp runtime/redist/plan.cpp
      runtime/redist/runs.cpp runtime/redist/runs_datatype.cpp runtime/schedule/gen_block.cpp bench/redistribute/smpi_driver.cpp)
smpi_build "$out" bench_redistribute_smpi "${srcs[@]}"
exe="$out/bench_redistribute_smpi"
xml=$(smpi_platform "$platform" "$ranks" "$out")
hosts=$(smpi_hostfile "$ranks" "$out")
results="$out/results_${platform}_${ranks}_$$.txt"  # per invocation: runs may go on side by side
log="$out/smpirun_${platform}_${ranks}_$$"
: > "$results"
sim() { # label-of-wall-time args...
  local t0 t1
  t0=$(date +%s.%N)
  smpirun -np "$ranks" -platform "$xml" -hostfile "$hosts" "${smpi_cfg[@]}" "$@" \
    "$exe" --M "$M" --r "$r" --s "$s" --repeats "$repeats" --shared "$shared" ${methods_args[@]+"${methods_args[@]}"} \
    > "$log.out" 2> "$log.err" || { cat "$log.out" "$log.err" >&2; echo "smpirun failed" >&2; exit 1; }
  t1=$(date +%s.%N)
  local wall
  wall=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
  grep -a '^RESULT,' "$log.out" | sed "s/\$/,$wall/" >> "$results"
}
# The caterpillar's plan holds P^2 messages on every rank (16 GB for 1024 simulated ranks): above
# 256 ranks only caterpillar-steps runs (the same messages in the same steps, see smpi_driver.cpp).
if [ "$ranks" -le 256 ]; then cat_methods=caterpillar,caterpillar-steps; else cat_methods=caterpillar-steps; fi
methods_args=(--methods "$cat_methods",class,koenig-stepwise,koenig-greedy,all-at-once)
sim
for alg in pair ring bruck ompi; do
  methods_args=(--methods alltoallv --label "alltoallv_$alg")
  sim --cfg=smpi/alltoallv:"$alg"
done
rm -f "$log.out" "$log.err"

python3 - "$results" "$platform" "$ranks" "$M" "$r" "$s" "$csv" <<'PY'
import os, sys
results, platform, ranks, M, r, s, csv = sys.argv[1:]
rows = [l.strip().split(",")[1:] for l in open(results) if l.strip()]
t = {x[0]: float(x[1]) for x in rows}
cat = "caterpillar" if "caterpillar" in t else "caterpillar-steps"
if cat not in t or len(rows) != 9 + ("caterpillar" in t):
    sys.exit(f"smpi_run.sh: expected the caterpillar and 8 other methods, got {[x[0] for x in rows]}")
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
