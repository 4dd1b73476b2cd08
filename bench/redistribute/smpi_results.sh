#!/usr/bin/env bash
# The SMPI records of docs/performance.md: smpi_run.sh on the mesh (Paragon-style) platform at 16, 64, 256 and
# 1024 simulated ranks, and on the torus and the cluster at 16 to 1024 ranks, CYCLIC(3) -> CYCLIC(5)
# (Example 1 of Desprez et al. at 16 ranks) of M = 131072 P doubles (1 MiB per rank, so that the smallest
# message is 70 KB >= 64 KiB at every P). Writes docs/results/redistribute_smpi.csv and .png. One
# configuration at a time, niced, each running its smpiruns one per core at a time (smpi_run.sh --jobs);
# --repeats 3 up to 256 ranks and 1 at 1024, to keep the time down (the simulation is deterministic; at
# 1024 ranks the alltoallv rows include the executor's first-call MPI_Allreduce).
# At 1024 ranks SMPI's ompi selector is left out (smpi_run.sh's default there: its basic linear
# alltoallv does not advance in the simulation).
#   bench/redistribute/smpi_results.sh      (an hour or more on a loaded 2-core machine)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
csv="$root/docs/results/redistribute_smpi.csv"
rm -f "$csv"
run() { # platform ranks repeats
  nice -n 10 "$here/smpi_run.sh" --ranks "$2" --platform "$1" --M $((131072 * $2)) --repeats "$3" --csv "$csv"
}
for p in 16 64 256; do run mesh "$p" 3; done
for plat in torus cluster; do for p in 16 64 256; do run "$plat" "$p" 3; done; done
run mesh 1024 1
run torus 1024 1
run cluster 1024 1
python3 "$here/smpi_plot.py" "$csv" "$root/docs/results/redistribute_smpi.png"
echo "results: $csv, docs/results/redistribute_smpi.png"
