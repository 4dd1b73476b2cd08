#!/usr/bin/python3
"""job_kind.sh: per job, the memcpy's median against A.redistribute's and MPI_Alltoallw's, one panel per
cell (BLOCK -> CYCLIC(64), CYCLIC(64) -> BLOCK; 2 ranks, 10^7 doubles).

usage: job_kind_plot.py JOB_KIND.csv OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def times(rows, r, s, method):
    """Job (round) -> the method's median in ms, for the cell CYCLIC(r) -> CYCLIC(s)."""
    return {int(x["round"]): float(x["median_s"]) * 1e3 for x in rows
            if x["r"] == r and x["s"] == s and x["method"] == method}


def main(path, out):
    rows = list(csv.DictReader(open(path)))
    cells = [("0", "64", "BLOCK -> CYCLIC(64)"), ("64", "0", "CYCLIC(64) -> BLOCK")]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharey=True)
    for ax, (r, s, title) in zip(axes, cells):
        memcpy = times(rows, r, s, "memcpy")
        for method, style in [("redistribute", "o"), ("alltoallw", "^"), ("executor", "x")]:
            t = times(rows, r, s, method)
            ax.plot([memcpy[k] for k in sorted(t)], [t[k] for k in sorted(t)], style, label=method)
        ax.set_xlabel("memcpy of a rank's block in the same job (ms)")
        ax.set_title(f"{title}, 2 ranks, 10^7 doubles: one point per job", fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("median (ms)")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
