#!/usr/bin/env bash
# Steady-state series (Legrand, Marchal and Robert) under SimGrid SMPI: builds bench.cpp with the Kokkos-free
# sources it needs (core/, schedule/, exec/, steady/) with smpicxx into build-smpi/ (separate from the CMake
# build, which never needs SimGrid), exports each platform to SimGrid XML with per-node port links (one-port
# approximation, `hpfrt steady --simgrid-xml F --port-links`), runs K = 10..1000 scatters,
# gossips and reductions on the steady-state schedule and naively, and writes docs/results/steady_smpi.csv and
# docs/results/steady_smpi.png.
#   bench/steady/smpi_run.sh [path/to/hpfrt]   (default build/hpfrt; a few minutes)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
command -v smpicxx > /dev/null || { echo "smpicxx missing: apt-get install -y libsimgrid-dev simgrid" >&2; exit 2; }
cli="${1:-$HPF_ROOT/build/hpfrt}"
[ -x "$cli" ] || [ "${SMPI_ONLY:-}" = cluster64-reduce ] ||
  { echo "$cli missing: build the CMake tree first (it exports the platforms)" >&2; exit 2; }
here="$HPF_ROOT/bench/steady"
plats="$HPF_ROOT/examples/steady/platforms"
out="$HPF_ROOT/build-smpi/steady"
mkdir -p "$out"
srcs=(runtime/core/error.cpp runtime/core/mpi.cpp runtime/core/memory.cpp runtime/core/text.cpp runtime/core/agree.cpp runtime/schedule/schedule.cpp runtime/schedule/matching.cpp
      runtime/exec/exchange.cpp
      runtime/steady/platform.cpp runtime/steady/lp.cpp
      runtime/steady/steady.cpp runtime/steady/trees.cpp runtime/steady/pipeline.cpp
      runtime/steady/executor.cpp runtime/exec/model.cpp runtime/exec/plogp.cpp runtime/reduce/tree.cpp
      runtime/reduce/tree_reducer.cpp bench/steady/bench.cpp)
objs=()
for s in "${srcs[@]}"; do
  o="$out/$(basename "${s%.cpp}").o"
  if [ ! -f "$o" ] || [ "$HPF_ROOT/$s" -nt "$o" ] || [ -n "$(find "$HPF_ROOT/include/hpf/core" "$HPF_ROOT/include/hpf/schedule" "$HPF_ROOT/include/hpf/exec" "$HPF_ROOT/include/hpf/steady" "$HPF_ROOT/include/hpf/reduce" -newer "$o" -name '*.hpp' | head -1)" ]; then
    smpicxx -std=c++20 -O2 -DHPF_SMPI -Wall -Wextra -include "$HPF_ROOT/bench/reduce_tree/smpi_shim.h" \
      -I"$HPF_ROOT/include" -c "$HPF_ROOT/$s" -o "$o"
  fi
  objs+=("$o")
done
smpicxx "${objs[@]}" -o "$out/bench_steady_smpi" -lqsopt_ex -lglpk -lgmp

# SMPI_ONLY=name runs that platform only, into SMPI_CSV (default docs/results/steady_smpi_<name>.csv),
# without the plot; e.g. SMPI_ONLY=figure6-reduce SMPI_OPS=1000 for the series comparison.
csv="${SMPI_CSV:-$HPF_ROOT/docs/results/steady_smpi${SMPI_ONLY:+_$SMPI_ONLY}.csv}"
rm -f "$csv"
# 1 MB per unit-size message (the export's bytes-per-unit) and 1 Gflop per unit task: one time unit of the
# paper = one simulated second. No SMPI bandwidth/latency correction factors and no TCP cross-traffic, so
# links are the paper's c(i, j); combinations are charged with smpi_execute_flops (simulate-computation off).
# smpi/test:0: SMPI charges every MPI_Test a delay by default; the executor tests between computations.
bytes=1000000
cfg=(--cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
     --cfg=network/crosstraffic:0 --cfg=smpi/reduce:binomial --cfg=smpi/test:0 --log=root.thres:warning)
ops=${SMPI_OPS:-10,30,100,300,1000}
run() { # name platform.json args...   ($bench_extra: options for bench_steady only)
  local name="$1" json="$2"; shift 2
  if [ -n "${SMPI_ONLY:-}" ] && [ "$name" != "$SMPI_ONLY" ]; then return 0; fi
  "$cli" steady --platform "$json" "$@" --simgrid-xml "$out/$name.xml" --port-links > "$out/$name.txt"
  local n
  n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['nodes']))" "$json")
  python3 -c "import json,sys; [print(x['name']) for x in json.load(open(sys.argv[1]))['nodes']]" "$json" > "$out/$name.hosts"
  smpirun -np "$n" -platform "$out/$name.xml" -hostfile "$out/$name.hosts" "${cfg[@]}" \
    "$out/bench_steady_smpi" --platform "$json" "$@" ${bench_extra:-} --bytes "$bytes" --ops "$ops" --name "$name" --csv "$csv"
}
# The 64-host two-level cluster platform of Table 4 of Steffenel (cluster_platform.py): K reductions
# as the two-level series, back-to-back MPI_Reduce and Canon and Antoniu's tree repeated (run by
# SMPI_ONLY=cluster64-reduce).
if [ "${SMPI_ONLY:-}" = cluster64-reduce ]; then
  python3 "$here/cluster_platform.py" "$out/cluster64.xml" "$out/cluster64.hosts" "$out/cluster64.json" \
    "$out/cluster64-level2.json"
  smpirun -np 64 -platform "$out/cluster64.xml" -hostfile "$out/cluster64.hosts" "${cfg[@]}" \
    "$out/bench_steady_smpi" --clusters "$out/cluster64.json" --platform "$out/cluster64-level2.json" \
    --chunk "${SMPI_CHUNK:-10}" --tree 1 --ops "$ops" --name cluster64-reduce --csv "$csv"
fi
run figure2-scatter "$plats/figure2_scatter.json" --op scatter --source Ps --targets P0,P1
bench_extra="--tree 1" run figure6-reduce "$plats/figure6_reduce.json" --op reduce --target P0 --participants P0,P1,P2
run hetero6-scatter "$plats/hetero6.json" --op scatter --source S --targets C,D,E
run hetero6-reduce "$plats/hetero6.json" --op reduce --target C
run figure2-gossip "$plats/figure2_scatter.json" --op gossip --sources Ps,Pb --targets P0,P1
run hetero6-gossip "$plats/hetero6.json" --op gossip --sources S,D --targets C,E

if [ -n "${SMPI_ONLY:-}" ]; then # one platform: rate / TP per variant and K, as bars
  gnuplot -e "csv='$csv'; png='${csv%.csv}.png'; name='$SMPI_ONLY'" - <<'GP'
set terminal pngcairo size 800,400 noenhanced
set output png
set datafile separator ','
set title name.' under SMPI: operations per simulated second / TP'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set yrange [0:1.1]
set ylabel 'rate / TP'
set xtics rotate by -15
plot csv every ::1 using ($6/$7):xtic(sprintf("%s K=%d", strcol(3), $4)) notitle
GP
  echo "results: $csv, ${csv%.csv}.png"
  exit 0
fi
gnuplot -e "csv='$csv'; png='$HPF_ROOT/docs/results/steady_smpi.png'" "$here/smpi_plot.gp"
echo "results: $csv, docs/results/steady_smpi.png"
