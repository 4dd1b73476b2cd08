#!/usr/bin/env python3
"""Heat map of bench_redistribute_sweep: A.redistribute() over the best peer per cell, one panel per
rank count, and the cross-check of each peer against its standalone call. The best peer of a cell is
the fastest of the sweep's peers and of the standalone Tpetra program run right after the cell: where the
sweep's Tpetra is slower than its standalone call, the standalone time is the peer's.

usage: sweep_plot.py SWEEP.csv TPETRA_ALONE.csv OUT.png
Writes OUT.png and, next to SWEEP.csv, SWEEP_crosscheck.csv (one row per cell and peer:
the time in the sweep, the standalone time, their ratio, A.redistribute's time and the fastest time of
the sweep's peers in the cell)."""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402


def blk(b):
    return "BLOCK" if int(b) == 0 else str(int(b))


def main(sweep_csv, alone_csv, out_png):
    rows = list(csv.DictReader(line for line in open(sweep_csv) if not line.startswith("#")))
    alone = {(a["case"], a["ranks"], a["M"], a["r"], a["s"]): float(a["median_s"]) for a in csv.DictReader(open(alone_csv))}
    key = lambda r: (r["case"], r["ranks"], r["M"], r["r"], r["s"])  # noqa: E731
    by = {(key(r), r["method"]): r for r in rows}

    # Cross-checks: tpetra against the standalone Tpetra program, pdgemr2d against pdgemr2d-alone.
    cross = os.path.splitext(sweep_csv)[0] + "_crosscheck.csv"
    with open(cross, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["case", "ranks", "M", "r", "s", "peer", "in_sweep_s", "standalone_s", "standalone_over_sweep",
                    "redistribute_s", "best_peer_s"])
        for (k, m), r in sorted(by.items()):
            mine = float(by[(k, "redistribute")]["median_s"])
            best = mine / float(by[(k, "redistribute")]["over_best_peer"])
            if m == "tpetra" and k in alone:
                t, a = float(r["median_s"]), alone[k]
                w.writerow([*k, "tpetra", f"{t:.9g}", f"{a:.9g}", f"{a / t:.4f}", f"{mine:.9g}", f"{best:.9g}"])
            if m == "pdgemr2d" and (k, "pdgemr2d-alone") in by:
                t, a = float(r["median_s"]), float(by[(k, "pdgemr2d-alone")]["median_s"])
                w.writerow([*k, "pdgemr2d", f"{t:.9g}", f"{a:.9g}", f"{a / t:.4f}", f"{mine:.9g}", f"{best:.9g}"])

    red = [r for r in rows if r["method"] == "redistribute" and r["case"] == "1d"]
    ranks = sorted({int(r["ranks"]) for r in red})
    Ms = sorted({int(r["M"]) for r in red})
    bs = sorted({int(r["r"]) for r in red}, key=lambda b: (b == 0, b))
    costa = [r for r in rows if r["method"] == "redistribute" and r["case"] == "2d-costa"]
    fig, axes = plt.subplots(1, len(ranks), figsize=(8.5 * len(ranks), 5.6), squeeze=False)
    norm = LogNorm(vmin=0.1, vmax=10)
    for ax, P in zip(axes[0], ranks):
        grid = np.full((len(bs), len(bs) * len(Ms)), np.nan)
        sure = np.zeros(grid.shape, dtype=bool)  # slower than the sweep's best peer beyond the 95 % interval
        for r in red:
            if int(r["ranks"]) != P:
                continue
            i = bs.index(int(r["r"]))
            j = bs.index(int(r["s"])) * len(Ms) + Ms.index(int(r["M"]))
            ratio = float(r["over_best_peer"])
            k = key(r)
            if k in alone:  # the standalone Tpetra program counts as a peer too
                ratio = max(ratio, float(r["median_s"]) / alone[k])
            grid[i, j] = max(ratio, 1e-3)
            sure[i, j] = float(r.get("over_best_peer_lo") or 0) > 1
        im = ax.imshow(grid, cmap="RdYlGn_r", norm=norm, aspect="auto")
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                v = grid[i, j]
                if not np.isnan(v):
                    text = (f"{v:.2f}" if v < 10 else f"{v:.0f}") + ("*" if sure[i, j] else "")
                    ax.text(j, i, text, ha="center", va="center", fontsize=6.5)
        ax.set_yticks(range(len(bs)), [f"r={blk(b)}" for b in bs])
        ax.set_xticks(range(grid.shape[1]), [f"s={blk(s)}\nM=1e{int(np.log10(M))}" for s in bs for M in Ms], fontsize=6.5)
        for k in range(1, len(bs)):
            ax.axvline(k * len(Ms) - 0.5, color="black", lw=0.8)
        title = f"{P} ranks" + (" (oversubscribed on 2 cores)" if P > 2 else "")
        ax.set_title(f"A.redistribute() / fastest peer, 1-D CYCLIC(r) -> CYCLIC(s), {title}", fontsize=9)
        fig.colorbar(im, ax=ax, shrink=0.8, label="ratio (< 1: hpfrt faster)")
    note = ("peers: pdgemr2d, Tpetra::Import (in the sweep and the standalone program, whichever is faster), naive "
            "MPI_Alltoallv, MPI_Alltoallw; medians of 99 below 10^7 elements and of 9 at 10^7, one job per cell, "
            "the standalone program right after it;\n*: slower than the sweep's fastest peer beyond the 95 % interval of the "
            "ratio (paired bootstrap of the rounds)")
    for c in costa:
        note += (f"\n2-D COSTA case (8000x8000, 36x36 on 2x1 -> 128x128 on 1x2, {c['ranks']} ranks): "
                 f"{float(c['over_best_peer']):.2f} x the fastest peer in the sweep ({c['best_peer']})")
        k = (c["case"], c["ranks"], c["M"], c["r"], c["s"])
        if k in alone:  # the peer's own program: the in-sweep peer may be slowed by the shared process
            mine = float(by[(k, "redistribute")]["median_s"])
            note += f", {mine / alone[k]:.2f} x the standalone Tpetra program"
    fig.suptitle(note, fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(out_png, dpi=110)
    print(f"sweep_plot: {out_png}, {cross}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
