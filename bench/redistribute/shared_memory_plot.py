#!/usr/bin/env python3
"""Plots docs/results/redistribute_shared_memory.csv: per case, each method's median over one memcpy of
the local block (same job), one panel per rank count.
    shared_memory_plot.py in.csv out.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def short(case: str) -> str:
    """1d-CYCLIC(3)-to-CYCLIC(5) -> C(3)->C(5)"""
    return case[3:].replace("CYCLIC", "C").replace("BLOCK", "B").replace("-to-", "->")


def main(src: str, out: str) -> None:
    rows = list(csv.DictReader(open(src)))
    ranks = sorted({int(r["ranks"]) for r in rows})
    methods = ["redistribute", "executor", "executor-mpi"]
    fig, axes = plt.subplots(1, len(ranks), figsize=(6 * len(ranks), 4.2), squeeze=False)
    for ax, p in zip(axes[0], ranks):
        mine = [r for r in rows if int(r["ranks"]) == p]
        cases = []
        for r in mine:
            key = (r["case"], int(r["M"]))
            if key not in cases:
                cases.append(key)
        width = 0.8 / len(methods)
        for k, m in enumerate(methods):
            ys = [next(float(r["over_memcpy"]) for r in mine if (r["case"], int(r["M"])) == c and r["method"] == m)
                  for c in cases]
            ax.bar([i + k * width for i in range(len(cases))], ys, width, label=m)
        ax.axhline(3, color="grey", linestyle="--", linewidth=1, label="goal: 3x memcpy")
        ax.set_xticks([i + width for i in range(len(cases))])
        ax.set_xticklabels([f"{short(c[0])}\nM={c[1]:.0e}" for c in cases], fontsize=7)
        ax.set_yscale("log")
        ax.set_ylabel("median / one memcpy of the local block")
        ax.set_title(f"{p} ranks: shared-memory segments vs MPI (same job, medians of 21)", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
