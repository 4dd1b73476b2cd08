#!/usr/bin/python3
"""bench_cma_gather: each method's median over one memcpy of the same bytes, by piece length, one panel
per shape, one line per method and round (bench/transport/cma_gather.sh).

usage: cma_plot.py CMA.csv OUT.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(path, out):
    rows = [r for r in csv.DictReader(open(path)) if r["method"] != "memcpy"]
    shapes = ["gather", "scatter"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    styles = {"segment": "-o", "ring": "-.d", "cma": "--s", "mpi": ":^"}
    for ax, shape in zip(axes, shapes):
        for method in ["segment", "ring", "cma", "mpi"]:
            for rd in sorted({r["round"] for r in rows}):
                mine = sorted((int(r["piece"]), float(r["vs_memcpy"])) for r in rows
                              if r["shape"] == shape and r["method"] == method and r["round"] == rd)
                ax.plot([p for p, _ in mine], [v for _, v in mine], styles[method],
                        label=f"{method}, round {rd}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xlabel("piece length on the strided side (bytes)")
        side = "strided source, contiguous target" if shape == "gather" else "contiguous source, strided target"
        ax.set_title(f"{shape}: {side}", fontsize=9)
    axes[0].set_ylabel("median / memcpy of the same bytes")
    axes[1].legend(fontsize=5, ncol=4)
    fig.suptitle("2 ranks, one 20 MiB message each way: pack+unpack through a whole segment or a ring of "
                 "8 x 64 KiB, CMA process_vm_readv, MPI_Sendrecv of a vector", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
