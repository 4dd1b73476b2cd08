#!/usr/bin/env bash
# Regenerates docs/results/redistribute_in_place.{csv,png}: what moving messages in place (MPI datatypes
# built from the runs, RedistOptions::in_place_min_piece_bytes) does against packing every message, in
# one job per case. bench_redistribute_speed times, round-robin, medians of 9 on 2 ranks at 8*10^6
# doubles: `executor` (the default: messages whose pieces average >= 256 bytes in place) and
# `executor-packed` (every message packed) into the same preallocated target, with MPI_Alltoallw
# (derived datatypes, MPI packs) and memcpy as references. `uptime` goes to redistribute_in_place_load.txt.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_speed -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
csv=docs/results/redistribute_in_place.csv
load=docs/results/redistribute_in_place_load.txt
rm -f "$csv"
: > "$load"
# r s (0 = BLOCK): long pieces both ways, long on one side only, and short pieces (packed either way).
for rs in "0 64" "64 0" "1 64" "64 1" "0 7" "3 5"; do
  read -r r s <<< "$rs"
  echo "before r=$r s=$s: $(uptime)" >> "$load"
  mpirun --oversubscribe --bind-to none -n 2 "$build/bench/redistribute/bench_redistribute_speed" \
    --M 8e6 --r "$r" --s "$s" --repeats 9 --csv "$csv" > /dev/null
done
echo "after: $(uptime)" >> "$load"
/usr/bin/python3 - "$csv" docs/results/redistribute_in_place.png <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
cases = list(dict.fromkeys(r["case"] for r in rows))
t = {(r["case"], r["method"]): float(r["median_s"]) for r in rows}
methods = [("executor", "in place where pieces >= 256 B (default)"), ("executor-packed", "every message packed"),
           ("redistribute", "A.redistribute (default)")]
fig, ax = plt.subplots(figsize=(10, 4.2))
w = 0.27
for k, (m, label) in enumerate(methods):
    ax.bar([i + (k - 1) * w for i in range(len(cases))], [t[(c, m)] / t[(c, "alltoallw")] for c in cases], w, label=label)
ax.axhline(1, color="k", lw=0.8, ls="--")
ax.set_xticks(range(len(cases)))
ax.set_xticklabels([c.replace("1d-", "") for c in cases], rotation=15, fontsize=8)
ax.set_ylabel("median / MPI_Alltoallw (same job)")
ax.set_title("8*10^6 doubles on 2 ranks: in-place messages vs packing (medians of 9)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=100)
PY
echo "results: $csv, $load, docs/results/redistribute_in_place.png"
