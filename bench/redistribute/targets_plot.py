"""Plots docs/results/redistribute_targets.csv (bench/redistribute/targets.sh) and prints its summary.

For each size and method, the median over the jobs of the ratio to pdgemr2d and to memcpy (each
ratio taken inside one job), with the lowest and highest job as an error bar.

    python3 targets_plot.py redistribute_targets.csv redistribute_targets.png
"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

METHODS = ["redistribute", "redistribute-first", "executor", "alltoallw", "pdgemr2d"]


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def summary(rows):
    """{(M, method): (median, low, high) of over_pdgemr2d, and the same of over_memcpy}."""
    out = {}
    for key in sorted({(int(float(r["M"])), r["method"]) for r in rows}):
        sel = [r for r in rows if int(float(r["M"])) == key[0] and r["method"] == key[1]]
        pd = [float(r["over_pdgemr2d"]) for r in sel]
        mc = [float(r["over_memcpy"]) for r in sel]
        out[key] = ((statistics.median(pd), min(pd), max(pd)), (statistics.median(mc), min(mc), max(mc)))
    return out


def main():
    rows = read(sys.argv[1])
    s = summary(rows)
    sizes = sorted({m for m, _ in s})
    jobs = len({r["job"] for r in rows})
    for (m, method), (pd, mc) in s.items():
        print(f"M {m:>9}  {method:<20} /pdgemr2d {pd[0]:.3f} ({pd[1]:.3f}-{pd[2]:.3f})"
              f"  /memcpy {mc[0]:.2f} ({mc[1]:.2f}-{mc[2]:.2f})")
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, which, title in ((axes[0], 0, "time / pdgemr2d"), (axes[1], 1, "time / one memcpy")):
        width = 0.8 / len(sizes)
        for k, m in enumerate(sizes):
            names = [x for x in METHODS if (m, x) in s]
            med = [s[(m, x)][which][0] for x in names]
            low = [s[(m, x)][which][0] - s[(m, x)][which][1] for x in names]
            high = [s[(m, x)][which][2] - s[(m, x)][which][0] for x in names]
            xs = [i + k * width for i in range(len(names))]
            ax.bar(xs, med, width, yerr=[low, high], capsize=3, label=f"{m:.0e} doubles")
            ax.set_xticks([i + width * (len(sizes) - 1) / 2 for i in range(len(names))])
            ax.set_xticklabels(names, rotation=20, ha="right")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_title(f"{title}, median of {jobs} jobs", fontsize=10)
        ax.legend()
    fig.suptitle("CYCLIC(3) -> CYCLIC(5) on 2 ranks, Open MPI defaults (bars: lowest and highest job)")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
