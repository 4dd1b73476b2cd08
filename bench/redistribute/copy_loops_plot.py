#!/usr/bin/python3
"""bench/redistribute/copy_loops.sh: per cell of the sweep (r -> s, M, P), the strided loops' median over
the offset table's, against the elements a strided run carries (one slice, all messages of the cell);
filled markers: the cells where the plan keeps the tables (PeriodicRuns::tabulate).

usage: copy_loops_plot.py COPY_LOOPS.csv OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out):
    rows = list(csv.DictReader(open(path)))
    fig, ax = plt.subplots(figsize=(9, 5))
    for single, colour, label in [("0", "tab:blue", "pieces of 2 or more elements"),
                                  ("1", "tab:orange", "single-element pieces (a CYCLIC(1) side)")]:
        for kept, fill in [(True, colour), (False, "none")]:
            pts = [r for r in rows if r["single_element_pieces"] == single and (int(r["tables_kept"]) > 0) == kept]
            if not pts:
                continue
            ax.scatter([float(r["elements_per_run"]) for r in pts], [float(r["strided_over_table"]) for r in pts],
                       facecolors=fill, edgecolors=colour, s=36,
                       label=f"{label}, {'tables kept' if kept else 'strided loops'}")
    ax.axhline(1.0, color="k", linestyle="--", linewidth=0.8)
    ax.axvline(8, color="tab:blue", linestyle=":", linewidth=0.8)
    ax.axvline(48, color="tab:orange", linestyle=":", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("elements per strided run (one slice, every message of the cell)")
    ax.set_ylabel("strided loops / offset table (median time)")
    ax.set_title("Moving a redistribution's messages in one process: the sweep's cells, 10^3 and 10^5 doubles,\n"
                 "P = Q = 2 and 4 (dotted: tabulate()'s thresholds, 8 and 48 elements a run)", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
