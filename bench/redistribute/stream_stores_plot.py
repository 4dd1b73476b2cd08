#!/usr/bin/env python3
"""Merges the per-job CSVs of stream_stores.sh (DIR/roundK_STORES_R_S.csv, bench_redistribute_sweep's
format) into one CSV with the round and the setting of the non-temporal stores, and plots
A.redistribute over one memcpy per cell, stores on against off.

usage: stream_stores_plot.py DIR OUT.csv OUT.png"""
import csv
import glob
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FIELDS = ["ranks", "M", "r", "s", "round", "stream_stores", "method", "median_s", "over_memcpy",
          "over_best_peer", "best_peer", "ok"]


def blk(b):
    return "BLOCK" if int(b) == 0 else f"CYCLIC({int(b)})"


def main(src_dir, out_csv, out_png):
    rows = []
    for path in sorted(glob.glob(os.path.join(src_dir, "round*_*.csv"))):
        m = re.match(r"round(\d+)_(on|off)_", os.path.basename(path))
        for row in csv.DictReader(open(path)):
            if row["case"] != "1d":
                continue
            row["round"], row["stream_stores"] = m.group(1), m.group(2)
            rows.append({k: row[k] for k in FIELDS})
    if not rows:
        sys.exit("stream_stores_plot.py: no rows in " + src_dir)
    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows)

    cells = sorted({(r["r"], r["s"]) for r in rows}, key=lambda c: (int(c[0]) == 0, int(c[0]) or int(c[1])))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.38
    for j, (stores, colour) in enumerate((("off", "tab:gray"), ("on", "tab:blue"))):
        for i, (r, s) in enumerate(cells):
            v = sorted(float(x["over_memcpy"]) for x in rows
                       if x["method"] == "redistribute" and x["r"] == r and x["s"] == s and x["stream_stores"] == stores)
            if not v:
                continue
            mid = v[len(v) // 2]
            ax.bar(i + (j - 0.5) * width, mid, width, color=colour, label=f"non-temporal stores {stores}" if i == 0 else None,
                   yerr=[[mid - v[0]], [v[-1] - mid]], capsize=3)
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(cells)))
    ax.set_xticklabels([f"{blk(r)} -> {blk(s)}" for r, s in cells], rotation=15)
    ax.set_ylabel("A.redistribute / one memcpy (median of 9)")
    ax.set_title("non-temporal stores into the target on and off, 10^7 doubles, 2 ranks\n"
                 "bars: median of the jobs, whiskers: their range; dashed: the memcpy")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)


if __name__ == "__main__":
    main(*sys.argv[1:4])
