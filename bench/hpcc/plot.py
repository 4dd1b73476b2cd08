"""Plots docs/results/hpcc.csv (bench/hpcc/run.sh) and prints its summary.

One panel per kernel: for each case, size and rank count, the median over the jobs of hpfrt / peer
(each ratio taken inside one job; a ratio of rates where higher is better, of times where lower is),
with the lowest and highest job as an error bar, and a line at 1.

    python3 plot.py hpcc.csv hpcc.png
"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

KERNELS = ["STREAM", "PTRANS", "RandomAccess", "FFT-1D", "FFT-ND"]


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


EXTRA = ("hpfrt", "fftw-mpi-transpose", "fftw-mpi-natural")  # rows that are not the peer


def peer_of(rows, r):
    """The peer that hpfrt's row r is compared with: its job, kernel, size and ranks."""
    same = ("job", "kernel", "size", "ranks")
    return next(p["method"] for p in rows if p["method"] not in EXTRA and all(p[k] == r[k] for k in same))


def summary(rows):
    """{(kernel, case, size, ranks): (median, low, high, peer, higher_is_better)} of hpfrt's ratios."""
    out = {}
    hpf = [r for r in rows if r["method"] == "hpfrt" and r["ratio"]]
    for key in dict.fromkeys((r["kernel"], r["case"], r["size"], int(r["ranks"])) for r in hpf):
        sel = [r for r in hpf if (r["kernel"], r["case"], r["size"], int(r["ranks"])) == key]
        ratios = [float(r["ratio"]) for r in sel]
        out[key] = (statistics.median(ratios), min(ratios), max(ratios), peer_of(rows, sel[0]),
                    sel[0]["higher_is_better"] == "1")
    return out


def label(kernel, case, size):
    """The x label of a case: its size too where the rank count does not set it."""
    return f"n = {size}" if kernel == "PTRANS" else f"{case}\n{size}" if kernel == "FFT-ND" else case


def main():
    rows = read(sys.argv[1])
    s = summary(rows)
    jobs = len({r["job"] for r in rows})
    for (kernel, case, size, ranks), (med, lo, hi, peer, higher) in s.items():
        what = "rate" if higher else "time"
        print(f"{kernel:<13} {case:<12} {size:>9} {ranks} ranks  hpfrt/{peer} ({what}) "
              f"{med:.3f} ({lo:.3f}-{hi:.3f})")
    kernels = [k for k in KERNELS if any(key[0] == k for key in s)]
    fig, axes = plt.subplots(1, len(kernels), figsize=(3.2 * len(kernels) + 1, 4.2), squeeze=False)
    for ax, kernel in zip(axes[0], kernels):
        keys = [key for key in s if key[0] == kernel]
        cases = list(dict.fromkeys(label(kernel, c, z) for _, c, z, _ in keys))
        ranks = sorted({r for *_, r in keys})
        width = 0.8 / len(ranks)
        for k, np_ in enumerate(ranks):
            xs, med, low, high = [], [], [], []
            for key in keys:
                if key[3] == np_:
                    m, lo, hi, _, _ = s[key]
                    xs.append(cases.index(label(*key[:3])) + k * width)
                    med.append(m)
                    low.append(m - lo)
                    high.append(hi - m)
            ax.bar(xs, med, width, yerr=[low, high], capsize=3, label=f"{np_} ranks")
        ax.set_xticks([i + width * (len(ranks) - 1) / 2 for i in range(len(cases))])
        ax.set_xticklabels(cases, fontsize=8)
        ax.axhline(1.0, color="gray", lw=0.8)
        first = s[keys[0]]
        ax.set_title(f"{kernel}: hpfrt / {first[3]}\n({'rate: higher' if first[4] else 'time: lower'} is better)",
                     fontsize=9)
        ax.legend(fontsize=8)
    fig.suptitle(f"HPC Challenge kernels, hpfrt / reference, median of {jobs} jobs (bars: lowest and highest job)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
