#!/usr/bin/env python3
"""Plots docs/results/redistribute_one_pass.csv: per cell CYCLIC(r) -> CYCLIC(s) of 10^7 doubles, each
method's median over MPI_Alltoallw's in the same job, one panel per rank count.
    one_pass_plot.py in.csv out.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

METHODS = ["all-at-once", "all-at-once-per-message", "auto"]


def name(b: str) -> str:
    return "B" if b == "0" else f"C({b})"


def main(src: str, out: str) -> None:
    rows = list(csv.DictReader(open(src)))
    ranks = sorted({int(r["ranks"]) for r in rows})
    fig, axes = plt.subplots(len(ranks), 1, figsize=(12, 3.6 * len(ranks)), squeeze=False)
    for ax, p in zip(axes[:, 0], ranks):
        mine = [r for r in rows if int(r["ranks"]) == p]
        cells = []
        for r in mine:
            if (r["r"], r["s"]) not in cells:
                cells.append((r["r"], r["s"]))
        width = 0.8 / len(METHODS)
        for k, m in enumerate(METHODS):
            ys = [next(float(r["over_alltoallw"]) for r in mine if (r["r"], r["s"]) == c and r["method"] == m)
                  for c in cells]
            label = m if m != "auto" else "auto (what Strategy::Auto runs: all at once where the one pass applies)"
            ax.bar([i + k * width for i in range(len(cells))], ys, width, label=label)
        ax.axhline(1, color="black", linewidth=1, label="MPI_Alltoallw")
        ax.set_xticks([i + width for i in range(len(cells))])
        ax.set_xticklabels([f"{name(a)}->{name(b)}" for a, b in cells], fontsize=7, rotation=45)
        ax.set_ylabel("median / MPI_Alltoallw")
        ax.set_title(f"{p} ranks, 10^7 doubles: one pass for all messages vs message by message "
                     "(same job, medians of 9)", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
