#!/usr/bin/python3
"""bench_single_copy: MPI_Sendrecv's median over one memcpy of the same bytes, by message size, one line
per single-copy setting and round (bench/transport/single_copy.sh).

usage: plot.py TRANSPORT.csv OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out):
    rows = [r for r in csv.DictReader(open(path)) if r["method"] == "MPI_Sendrecv"]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = {"none": "-o", "cma": "--s"}
    for mech in sorted({r["mechanism"] for r in rows}):
        for rd in sorted({r["round"] for r in rows}):
            mine = sorted((int(r["bytes"]), float(r["vs_memcpy"])) for r in rows
                          if r["mechanism"] == mech and r["round"] == rd)
            ax.plot([b for b, _ in mine], [v for _, v in mine], styles.get(mech, "-x"),
                    label=f"single copy {mech}, round {rd}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bytes each rank sends and receives")
    ax.set_ylabel("MPI_Sendrecv median / memcpy median")
    ax.set_title("Open MPI vader, 2 ranks exchanging: single-copy mechanism none vs CMA", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
