#!/usr/bin/python3
"""bench/redistribute/single_copy_sweep.sh: per cell (r -> s, M = 10^7, 2 ranks), A.redistribute()'s median
over the best peer's, with Open MPI's single-copy mechanism off and with CMA (first round).

usage: single_copy_sweep_plot.py SWEEP_SINGLE_COPY.csv OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def name(v):
    return "BLOCK" if v == "0" else v


def main(path, out):
    rows = [r for r in csv.DictReader(open(path)) if r["method"] == "redistribute" and r["r"] != r["s"]
            and r["round"] == "1"]
    cells = sorted({(int(r["r"]) or 10**9, int(r["s"]) or 10**9, r["r"], r["s"]) for r in rows})
    fig, ax = plt.subplots(figsize=(12, 4.5))
    width = 0.4
    for k, mech in enumerate(["none", "cma"]):
        ys = []
        for _, _, rr, ss in cells:
            ys.append(next(float(r["over_best_peer"]) for r in rows
                           if (r["r"], r["s"], r["mechanism"]) == (rr, ss, mech)))
        ax.bar([i + (k - 0.5) * width for i in range(len(cells))], ys, width,
               label=f"single copy {mech}")
    ax.axhline(1.0, color="k", linestyle="--", linewidth=0.8)
    ax.set_xticks(range(len(cells)))
    ax.set_xticklabels([f"{name(rr)}->{name(ss)}" for _, _, rr, ss in cells], rotation=60, fontsize=8)
    ax.set_ylabel("A.redistribute / best peer (dashed: even)")
    ax.set_title("REDISTRIBUTE CYCLIC(r) -> CYCLIC(s), 10^7 doubles on 2 ranks: against the best peer "
                 "with Open MPI's single copy off and with CMA", fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
