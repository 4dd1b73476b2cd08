#!/usr/bin/env bash
# The TreeReducer benchmark under SimGrid SMPI, where this 2-core machine cannot show the overlap that
# Canon and Antoniu model: builds bench.cpp and the Kokkos-free sources it needs (core/, schedule/, exec/,
# reduce/) with smpicxx into build-smpi/ (separate from the CMake build, which never needs SimGrid), then
# simulates n = 2..64 ranks on smpi_cluster.xml (d = c, and c = d/4, 4d for some n) and writes
# docs/results/reduce_smpi.csv and .png. The operator's cost is injected into the simulated clock
# (smpi_execute, simulate-computation off), so the results are deterministic.
#   bench/reduce_tree/smpi_run.sh [bytes]        (default 1 MiB messages; about a minute)
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
command -v smpicxx > /dev/null || { echo "smpicxx missing: apt-get install -y libsimgrid-dev simgrid" >&2; exit 2; }
bytes="${1:-1048576}"
here="$HPF_ROOT/bench/reduce_tree"
out="$HPF_ROOT/build-smpi"
mkdir -p "$out"
srcs=(runtime/core/error.cpp runtime/core/mpi.cpp runtime/core/memory.cpp runtime/core/text.cpp runtime/core/agree.cpp runtime/schedule/schedule.cpp runtime/exec/exchange.cpp
      runtime/exec/model.cpp runtime/exec/plogp.cpp runtime/reduce/tree.cpp runtime/reduce/tree_reducer.cpp
      bench/reduce_tree/bench.cpp)
objs=()
for s in "${srcs[@]}"; do
  o="$out/$(basename "${s%.cpp}").o"
  if [ ! -f "$o" ] || [ "$HPF_ROOT/$s" -nt "$o" ] || [ -n "$(find "$HPF_ROOT/include/hpf/core" "$HPF_ROOT/include/hpf/schedule" "$HPF_ROOT/include/hpf/exec" "$HPF_ROOT/include/hpf/reduce" -newer "$o" -name '*.hpp' | head -1)" ]; then
    smpicxx -std=c++20 -O2 -DHPF_SMPI -Wall -Wextra -include "$here/smpi_shim.h" -I"$HPF_ROOT/include" -c "$HPF_ROOT/$s" -o "$o"
  fi
  objs+=("$o")
done
smpicxx "${objs[@]}" -o "$out/bench_reduce_tree_smpi"

csv="$HPF_ROOT/docs/results/reduce_smpi.csv"
rm -f "$csv"
hosts="$out/hostfile"
for i in $(seq 0 63); do echo "node-$i"; done > "$hosts"
# smpi/host-speed:1Gf: smpi_execute(seconds) converts seconds to flops at this speed, and the hosts
#   run at 1 Gflop/s, so an injected second is a simulated second.
# smpi/iprobe:0: SMPI charges every MPI_Iprobe a growing delay (to tame polling loops); the executor
#   probes between chunks only to drive progress, which costs next to nothing in Open MPI.
# smpi/test:0: likewise SMPI charges every MPI_Test 100 us by default; hpf::Exchange (Pipelined)
#   tests its requests while it makes progress, which is just as cheap in Open MPI.
# smpi/reduce:ompi: MPI_Reduce picks its algorithm as Open MPI's tuned component does.
cfg=(--cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1Gf --cfg=smpi/iprobe:0 --cfg=smpi/test:0
     --cfg=smpi/reduce:ompi --log=root.thres:warning)
run() { # n c_over_d
  smpirun -np "$1" -platform "$here/smpi_cluster.xml" -hostfile "$hosts" "${cfg[@]}" \
    "$out/bench_reduce_tree_smpi" --bytes "$bytes" --c-over-d "$2" --repeats 3 --csv "$csv"
}
for n in 2 3 4 6 8 12 16 24 32 48 64; do run "$n" 1; done
for ratio in 0.25 4; do for n in 8 16 32 64; do run "$n" "$ratio"; done; done

# Plot: d = c, simulated times (points) against the model (lines), in units of d.
gnuplot -e "csv='$csv'; png='$HPF_ROOT/docs/results/reduce_smpi.png'" "$here/smpi_plot.gp"
echo "results: $csv, docs/results/reduce_smpi.png"
