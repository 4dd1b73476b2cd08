"""Plot of bench/lower/run.sh: time per interior element per sweep of each configuration (median of
the job medians), on wall-clock seconds (bars from the fastest to the slowest job) and on rank 0's CPU
seconds, with serial gfortran -O2 as a dashed line.
usage: plot.py CSV PNG
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")) if r["job"] == "all"]
names = {"block": "BLOCK", "cyclic": "CYCLIC(64)"}
labels, wall, cpu, lows, highs, colours = [], [], [], [], [], []
for r in rows:
    ns = float(r["ns_per_element_sweep"])
    scale = ns / float(r["median_wall_seconds"])  # ns per element per sweep, per second
    labels.append("serial\ngfortran -O2" if r["variant"] == "serial" else f"{names[r['variant']]}\n{r['ranks']} rank(s)")
    wall.append(ns)
    cpu.append(float(r["median_cpu_seconds"]) * scale)
    lows.append(max(0.0, ns - float(r["job_min_wall"]) * scale))
    highs.append(max(0.0, float(r["job_max_wall"]) * scale - ns))
    colours.append({"serial": "grey", "block": "tab:blue", "cyclic": "tab:orange"}[r["variant"]])
fig, axes = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
for ax, values, err, what in ((axes[0], wall, [lows, highs], "wall clock (bars: fastest to slowest job)"),
                              (axes[1], cpu, None, "rank 0's CPU time")):
    ax.bar(range(len(values)), values, yerr=err, color=colours, capsize=4)
    ax.axhline(values[0], color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(values)), labels, fontsize=8)
    ax.set_title(what)
axes[0].set_ylabel("ns per element per sweep")
fig.suptitle("Jacobi 2000 x 2000, 50 sweeps + MAXVAL residual, lowered by `hpfrt lower` vs serial\n"
             "(median of job medians; 2 cores, shared and loaded: see the CSV header; 4 ranks oversubscribe)")
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
