#!/usr/bin/env bash
# Regenerates docs/results/redistribute_disturbed.{csv,png} (issue 10): why the sweep's times at 10^7
# elements scatter. On 2 ranks, BLOCK -> CYCLIC(1) and CYCLIC(3) -> CYCLIC(5) of 10^7 doubles: the kept
# executor with and without shared-memory segments, MPI_Alltoallw and a memcpy between the arrays,
# right after an untimed call of the same method (quiet) and after every rank writes and frees
# 200 MiB of 4 KiB pages (disturbed); medians of 15.
# `uptime` before and after goes to redistribute_disturbed_load.txt. Extra arguments go to the driver.
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_redistribute_disturbed -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
csv=docs/results/redistribute_disturbed.csv
load=docs/results/redistribute_disturbed_load.txt
rm -f "$csv"
echo "before: $(uptime)" > "$load"
for rs in "0 1" "3 5"; do
  read -r r s <<< "$rs"
  mpirun --bind-to none -n 2 "$build/bench/redistribute/bench_redistribute_disturbed" \
    --M 1e7 --r "$r" --s "$s" --disturb 200 --repeats 15 --csv "$csv" "$@"
done
echo "after: $(uptime)" >> "$load"
/usr/bin/python3 - "$csv" docs/results/redistribute_disturbed.png <<'PY'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
cells = sorted({(r["r"], r["s"]) for r in rows}, key=lambda c: (int(c[0]), int(c[1])))
methods = [m for m in dict.fromkeys(r["method"] for r in rows)]
name = lambda b: "BLOCK" if b == "0" else f"CYCLIC({b})"
fig, axes = plt.subplots(1, len(cells), figsize=(5.5 * len(cells), 4.2), squeeze=False)
for ax, (r, s) in zip(axes[0], cells):
    for k, cond in enumerate(("quiet", "disturbed")):
        v = [float(x["median_s"]) * 1e3 for m in methods for x in rows
             if x["r"] == r and x["s"] == s and x["condition"] == cond and x["method"] == m]
        ax.bar([i + 0.4 * k for i in range(len(methods))], v, width=0.4, label=cond)
    ax.set_xticks([i + 0.2 for i in range(len(methods))], methods, rotation=15, fontsize=8)
    ax.set_ylabel("ms per call (median of 15, slowest rank)")
    ax.set_title(f"2 ranks, 10^7 doubles, {name(r)} -> {name(s)}", fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
fig.suptitle("quiet vs. after 200 MiB of other 4 KiB pages were written (shadow page tables)", fontsize=10)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
PY
echo "results: $csv, $load, docs/results/redistribute_disturbed.png"
