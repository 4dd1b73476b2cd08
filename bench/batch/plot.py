#!/usr/bin/python3
"""Bars of bench_batch: each method's time over its case's baseline (the median over jobs of each job's
median), one panel per case, groups by ranks and pattern; the memcpy of the same bytes as a marker.
Prints the same medians as a table.

usage: plot.py REDISTRIBUTE_BATCH.csv OUT.png"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CASES = [
    ("small", "8 arrays of 10^4 doubles: one exchange vs 8 calls\n(baseline: 8 x A.redistribute; goal 0.4x)", 0.4),
    ("large", "k arrays of n/k vs one array of n = 8e6 doubles\n(baseline: one array, held executor; goal 1.1x)", 1.1),
]
LABEL = {
    "separate": "8 x A.redistribute",
    "separate-executors": "8 held executors",
    "batch": "RedistributionBatch (reused)",
    "redistribute-many": "hpf::redistribute_many",
    "one-array": "one array of n",
}


def medians(rows):
    """(case, ranks, pattern, k, method) -> (median ratio over jobs, median time, median memcpy time)."""
    groups = {}
    for r in rows:
        key = (r["case"], int(r["ranks"]), r["pattern"], int(r["k"]), r["method"])
        groups.setdefault(key, []).append(r)
    out = {}
    for key, rs in groups.items():
        out[key] = (statistics.median(float(r["ratio"]) for r in rs),
                    statistics.median(float(r["median_s"]) for r in rs),
                    statistics.median(float(r["memcpy_s"]) for r in rs), len(rs))
    return out


def main(path, out):
    rows = list(csv.DictReader(line for line in open(path) if not line.startswith("#")))
    med = medians(rows)
    print("case,ranks,pattern,k,method,jobs,median_ratio,median_s,memcpy_s")
    for key in sorted(med):
        ratio, t, mc, jobs = med[key]
        print(f"{key[0]},{key[1]},{key[2]},{key[3]},{key[4]},{jobs},{ratio:.3f},{t:.3e},{mc:.3e}")
    fig, axes = plt.subplots(1, len(CASES), figsize=(14, 5.5), squeeze=False)
    colors = plt.get_cmap("tab10").colors
    for ax, (case, title, goal) in zip(axes[0], CASES):
        keys = sorted({(k[1], k[2]) for k in med if k[0] == case})
        series = sorted({(k[3], k[4]) for k in med if k[0] == case}, key=lambda s: (s[0], s[1]))
        width = 0.8 / max(1, len(series))
        for j, (k, method) in enumerate(series):
            xs, ys = [], []
            for g, (ranks, pattern) in enumerate(keys):
                v = med.get((case, ranks, pattern, k, method))
                if v:
                    xs.append(g + (j - (len(series) - 1) / 2) * width)
                    ys.append(v[0])
            label = LABEL[method] + (f", k={k}" if case == "large" else "")
            ax.bar(xs, ys, width, label=label, color=colors[j % len(colors)])
        for g, (ranks, pattern) in enumerate(keys):  # one memcpy of the same bytes, over the baseline
            base = [v for kk, v in med.items() if kk[:3] == (case, ranks, pattern) and v[0] == 1.0]
            if base:
                ax.plot([g - 0.4, g + 0.4], [base[0][2] / base[0][1]] * 2, color="k", linewidth=2)
        ax.axhline(goal, color="r", linestyle="--", linewidth=0.8)
        ax.set_xticks(range(len(keys)))
        ax.set_xticklabels([f"P={p}\n{pat}" for p, pat in keys], fontsize=8)
        ax.set_title(title, fontsize=9)
        ax.set_ylabel("time / baseline (median over jobs; black bar: one memcpy of the bytes)")
        ax.legend(fontsize=7)
    fig.suptitle("bench_batch: several arrays in one exchange (medians of 11 repeats, slowest rank between "
                 "barriers; median over jobs)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
