#!/usr/bin/python3
"""Bars of bench_sections: each method's median time over the best peer of its case (log scale), one
panel per case, groups by ranks and n. The standalone cross-checks (*-alone) and the planning time are
in the CSV, not in the figure.

usage: plot.py SECTIONS.csv OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CASES = [
    ("transpose", "B = TRANSPOSE(A), (*, BLOCK)"),
    ("transpose-bc", "B = TRANSPOSE(A), (CYCLIC(64), CYCLIC(64)) on 1x2 / 2x2"),
    ("patch", "B(:, 0:n-h-1) = A(:, h:n-1), (*, BLOCK), h = n/3+1"),
    ("strided", "B(0:(n+1)/2-1, :) = A(n-1:0:-2, :), (CYCLIC(3), *) -> (BLOCK, *)"),
    ("transform-n", "B = 2 A + 0.5 B, (CYCLIC(64), CYCLIC(64))"),
    ("transform-t", "B = 2 A^T + 0.5 B, (CYCLIC(64), CYCLIC(64))"),
    ("transform-c", "B = 2 A^H + 0.5 B, complex, (CYCLIC(64), CYCLIC(64))"),
]
SHOWN = ["hpf-section-step", "hpf-section-allatonce", "hpf-section-packed", "hpf-transform", "mpi-alltoall",
         "ga-copy-patch", "pdtran", "pdgeadd", "pztranc", "naive-alltoallv", "memcpy"]
LABEL = {
    "hpf-section-step": "hpfrt SectionPlan (König steps)",
    "hpf-section-allatonce": "hpfrt SectionPlan (all at once)",
    "hpf-section-packed": "hpfrt SectionPlan (all at once, every message packed)",
    "hpf-transform": "hpfrt hpf::transform",
    "mpi-alltoall": "hand-written MPI_Alltoall",
    "ga-copy-patch": "Global Arrays NGA_Copy_patch",
    "pdtran": "ScaLAPACK pdtran",
    "pdgeadd": "ScaLAPACK pdgeadd",
    "pztranc": "ScaLAPACK pztranc",
    "naive-alltoallv": "naive MPI_Alltoallv",
    "memcpy": "one memcpy of the local bytes",
}


def main(path, out):
    rows = list(csv.DictReader(line for line in open(path) if not line.startswith("#")))
    cases = [c for c in CASES if any(r["case"] == c[0] for r in rows)]
    fig, axes = plt.subplots(1, len(cases), figsize=(5 * len(cases) + 2, 5.5), sharey=True, squeeze=False)
    axes = axes[0]
    colors = plt.get_cmap("tab20").colors  # one colour per entry of SHOWN
    for ax, (case, title) in zip(axes, cases):
        mine = [r for r in rows if r["case"] == case]
        # One group per (ranks, n), and per round where the CSV has rounds.
        key = lambda r: (int(r["ranks"]), int(r["n"]), int(r.get("round") or 0))  # noqa: E731
        groups = sorted({key(r) for r in mine})
        methods = [m for m in SHOWN if any(r["method"] == m for r in mine)]
        width = 0.8 / max(1, len(methods))
        for k, m in enumerate(methods):
            xs, ys = [], []
            for g, grp in enumerate(groups):
                for r in mine:
                    if key(r) == grp and r["method"] == m:
                        xs.append(g + (k - (len(methods) - 1) / 2) * width)
                        ys.append(float(r["vs_best_peer"]))
            ax.bar(xs, ys, width, label=LABEL[m], color=colors[SHOWN.index(m) % len(colors)])
        ax.axhline(0.7, color="k", linestyle="--", linewidth=0.8)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([f"P={p}\nn={n}" + (f"\nround {rd}" if rd else "") for p, n, rd in groups])
        ax.set_yscale("log")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
    axes[0].set_ylabel("median time / best peer's (log; dashed: the 0.7x goal)")
    fig.suptitle("bench_sections: n x n doubles on 2 and 4 ranks\n(one job per rank count, median of the repeats, "
                 "slowest rank between barriers)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
