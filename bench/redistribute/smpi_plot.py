#!/usr/bin/env python3
"""Plots docs/results/redistribute_smpi.csv: per platform, simulated time / caterpillar's against the
number of simulated ranks, one line per method (seed 004 section 5's 0.56-0.64 band at 16 ranks shaded).
    smpi_plot.py in.csv out.png"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

rows = list(csv.DictReader(open(sys.argv[1])))
platforms = sorted({r["platform"] for r in rows}, key=["mesh", "torus", "cluster"].index)
fig, axes = plt.subplots(1, len(platforms), figsize=(5 * len(platforms), 4.2), squeeze=False)
for ax, plat in zip(axes[0], platforms):
    series = defaultdict(list)
    for r in rows:
        if r["platform"] == plat and r["method"] != "caterpillar-steps":
            series[r["method"]].append((int(r["ranks"]), float(r["ratio_to_caterpillar"])))
    for method, pts in sorted(series.items()):
        pts.sort()
        ax.plot([p for p, _ in pts], [v for _, v in pts], marker="o", label=method,
                linestyle="--" if method.startswith("alltoallv") else "-")
    ax.axhspan(0.56, 0.64, color="grey", alpha=0.2, label="seed 004: 0.56-0.64 (16-node Paragon)")
    ax.set_xscale("log", base=2)
    ax.set_title(f"{plat}: CYCLIC(3) -> CYCLIC(5), 1 MiB per rank")
    ax.set_xlabel("simulated ranks (P = Q)")
    ax.set_ylabel("simulated time / caterpillar")
    ax.grid(alpha=0.3)
axes[0][0].legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
