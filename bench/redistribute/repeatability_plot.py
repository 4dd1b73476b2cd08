#!/usr/bin/env python3
"""Collects repeatability.sh's runs into one CSV and draws them.

usage: repeatability_plot.py DIR RUNS OUT.csv OUT.png
DIR holds tpetra1.csv and tpetra2.csv (tpetra_alone.cpp's rows) and sweep1.csv .. sweepRUNS.csv
(bench_redistribute_sweep's rows). The PNG shows, per size and rank count, the ratio of the standalone
Tpetra program's second job to its first, and, per run, A.redistribute over the best peer in the
10^5 cells on 4 ranks."""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def blk(b):
    return "B" if int(b) == 0 else str(int(b))


def main(tmp, runs, out_csv, out_png):
    runs = int(runs)
    key = lambda r: (r["ranks"], r["M"], r["r"], r["s"])  # noqa: E731
    first = {key(r): float(r["median_s"]) for r in csv.DictReader(open(os.path.join(tmp, "tpetra1.csv")))}
    second = {key(r): float(r["median_s"]) for r in csv.DictReader(open(os.path.join(tmp, "tpetra2.csv")))}
    sweeps = []
    for k in range(1, runs + 1):
        rows = csv.DictReader(open(os.path.join(tmp, f"sweep{k}.csv")))
        sweeps.append({key(r): float(r["over_best_peer"]) for r in rows if r["method"] == "redistribute"})
    with open(out_csv, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kind", "run", "ranks", "M", "r", "s", "value", "over_run1"])
        for k in sorted(first):
            w.writerow(["tpetra", 1, *k, f"{first[k]:.9g}", ""])
            w.writerow(["tpetra", 2, *k, f"{second[k]:.9g}", f"{second[k] / first[k]:.4f}"])
        for i, s in enumerate(sweeps, 1):
            for k in sorted(s):
                w.writerow(["sweep", i, *k, f"{s[k]:.6g}", ""])

    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 4.8))
    groups = sorted({(int(k[0]), int(k[1])) for k in first})
    data = [[second[k] / first[k] for k in first if (int(k[0]), int(k[1])) == g] for g in groups]
    a.boxplot(data, whis=(0, 100))
    a.set_xticks(range(1, len(groups) + 1), [f"{P} ranks\nM=1e{len(str(M)) - 1}" for P, M in groups])
    a.axhspan(0.9, 1.1, color="green", alpha=0.15, label="within 10 %")
    a.set_ylabel("second job / first job")
    a.set_title(f"The standalone Tpetra program against itself ({len(data[0])} cells per box)", fontsize=9)
    a.legend(fontsize=8)
    for i, s in enumerate(sweeps, 1):
        ks = sorted(s, key=lambda k: (int(k[2]), int(k[3])))
        b.plot(range(len(ks)), [s[k] for k in ks], "o-", ms=3, lw=0.7, label=f"run {i}")
    b.axhline(1, color="black", lw=0.8)
    b.set_xticks(range(len(ks)), [f"{blk(k[2])}->{blk(k[3])}" for k in ks], rotation=90, fontsize=6)
    b.set_ylabel("A.redistribute / best peer")
    b.set_title("Sweep cells at 10^5 on 4 ranks (oversubscribed), one job per cell and run (B: BLOCK)", fontsize=9)
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    print(f"repeatability_plot: {out_csv}, {out_png}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
