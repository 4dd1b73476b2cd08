"""Plots docs/results/redistribute_ceiling.csv (bench/redistribute/ceiling.sh) and prints its summary.

Left: the time of a REDISTRIBUTE under a memory ceiling, over the time without one, against the
ceiling as a fraction of a rank's local block (the median over jobs of each job's median). Right: the
peak extra memory per rank (the largest over jobs) against the ceiling, with the ceiling itself.

    python3 ceiling_plot.py redistribute_ceiling.csv redistribute_ceiling.png
"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


FLOOR_MIB = 1 / 64


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main():
    rows = read(sys.argv[1])
    keys = sorted({(r["case"], int(r["ranks"])) for r in rows})
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    for case, ranks in keys:
        sel = [r for r in rows if r["case"] == case and int(r["ranks"]) == ranks]
        divs = sorted({int(r["ceiling_div"]) for r in sel if int(r["ceiling_div"]) > 0})
        local = int(sel[0]["local_bytes"])
        unb = statistics.median(float(r["median_s"]) for r in sel if int(r["ceiling_div"]) == 0)
        slow, peak = [], []
        for d in divs:
            at = [r for r in sel if int(r["ceiling_div"]) == d]
            slow.append(statistics.median(float(r["vs_unbounded"]) for r in at))
            peak.append(max(int(r["extra_peak_kib"]) for r in at) / 1024)
        # A peak at or below the floor (the process's memory did not grow) is drawn at the floor.
        drawn = [max(p, FLOOR_MIB) for p in peak]
        unb_peak = max(int(r["extra_peak_kib"]) for r in sel if int(r["ceiling_div"]) == 0) / 1024
        jobs = len({r["job"] for r in sel})
        print(f"{case} on {ranks} ranks ({jobs} jobs): no ceiling {unb * 1e3:.1f} ms, extra peak {unb_peak:.1f} MiB; "
              + "; ".join(f"1/{d}: x{s:.2f}, {p:.2f} MiB" for d, s, p in zip(divs, slow, peak)))
        label = f"{case}, {ranks} ranks"
        ax.plot([1 / d for d in divs], slow, marker="o", label=label)
        bx.plot([1 / d for d in divs], drawn, marker="o", label=f"{label} (none: {unb_peak:.0f} MiB)")
    mib = int(rows[0]["local_bytes"]) / 2**20
    all_divs = sorted({int(r["ceiling_div"]) for r in rows if int(r["ceiling_div"]) > 0})
    bx.plot([1 / d for d in all_divs], [mib / d for d in all_divs], "k--", label="the ceiling")
    for a in (ax, bx):
        a.set_xscale("log", base=2)
        a.set_xlabel(f"ceiling / local block ({mib:.0f} MiB per rank)")
        a.legend(fontsize=8)
    ax.set_ylabel("time / time without a ceiling")
    ax.set_title("REDISTRIBUTE under a memory ceiling: time", fontsize=10)
    bx.set_yscale("log", base=2)
    bx.set_ylabel("peak extra MiB per rank (16 KiB or less: at 16 KiB)")
    bx.set_title("peak resident memory beyond the blocks", fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
