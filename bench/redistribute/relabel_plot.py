"""Plots docs/results/redistribute_relabel.csv (bench/redistribute/relabel.sh) and prints its summary.

Left: the fraction of the array's bytes that moves, per layout pair, with no relabeling, with COSTA's
greedy pairwise swaps and with the exact arrangement, against the number of ranks. Right: the time to
compute each arrangement (the greedy swaps; the exact assignment, without the weights they share).

    python3 relabel_plot.py redistribute_relabel.csv redistribute_relabel.png
"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main():
    rows = read(sys.argv[1])
    frac = {m: [int(r[f"moved_{m}"]) / int(r["total_bytes"]) for r in rows] for m in ("none", "greedy", "exact")}
    ranks = [int(r["ranks"]) for r in rows]
    total = sum(int(r["total_bytes"]) for r in rows)
    for m in ("none", "greedy", "exact"):
        moved = sum(int(r[f"moved_{m}"]) for r in rows)
        print(f"{m:>6}: {moved / total:.3f} of all bytes move (mean per pair {statistics.mean(frac[m]):.3f})")
    better = sum(1 for r in rows if int(r["moved_exact"]) < int(r["moved_greedy"]))
    gained = sum(1 for r in rows if int(r["moved_exact"]) < int(r["moved_none"]))
    print(f"{len(rows)} pairs: exact moves less than no relabeling in {gained}, less than greedy in {better}")
    for n in sorted(set(ranks)):
        sel = [r for r in rows if int(r["ranks"]) == n]
        print(f"{n:>5} ranks: median solve greedy {statistics.median(float(r['greedy_s']) for r in sel):.3g} s,"
              f" exact {statistics.median(float(r['exact_s']) for r in sel):.3g} s,"
              f" weights {statistics.median(float(r['volumes_s']) for r in sel):.3g} s")

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    for m, marker, shift in (("none", "o", 0.94), ("greedy", "s", 1.0), ("exact", "^", 1.06)):
        ax.scatter([n * shift for n in ranks], frac[m], marker=marker, s=18, alpha=0.7, label=m)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("ranks")
    ax.set_ylabel("fraction of the bytes that move")
    ax.set_title("bytes moved per layout pair", fontsize=10)
    ax.legend()
    for key, marker, label in (("greedy_s", "s", "greedy swaps"), ("exact_s", "^", "exact (network simplex)"),
                               ("volumes_s", "o", "weights V (shared)")):
        bx.scatter(ranks, [max(float(r[key]), 1e-7) for r in rows], marker=marker, s=18, alpha=0.7, label=label)
    bx.set_xscale("log", base=2)
    bx.set_yscale("log")
    bx.set_xlabel("ranks")
    bx.set_ylabel("seconds")
    bx.set_title("time to compute the arrangement", fontsize=10)
    bx.legend()
    fig.suptitle("REDISTRIBUTE between random 2-D block-cyclic layouts, both grids in rank order")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
