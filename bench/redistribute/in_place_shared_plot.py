"""Plot of bench/redistribute/in_place_shared.sh: per case, ranks and M, the default executor (messages
that may be shared packed into segments) and executor-mpi (in place through MPI) over MPI_Alltoallw.
Usage: python3 in_place_shared_plot.py CSV PNG"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
groups = list(dict.fromkeys((r["case"], r["ranks"], r["M"]) for r in rows))
t = {}
for r in rows:
    t.setdefault((r["case"], r["ranks"], r["M"], r["method"]), []).append(float(r["median_s"]))
methods = [("executor", "packed into the receiver's segment (default)"), ("executor-mpi", "in place through MPI")]
fig, ax = plt.subplots(figsize=(10, 4.2))
w = 0.38
for k, (m, label) in enumerate(methods):
    ys = [statistics.median(t[g + (m,)]) / statistics.median(t[g + ("alltoallw",)]) for g in groups]
    ax.bar([i + (k - 0.5) * w for i in range(len(groups))], ys, w, label=label)
ax.axhline(1, color="k", lw=0.8, ls="--")
ax.set_xticks(range(len(groups)))
ax.set_xticklabels([f"{c.replace('1d-', '')}\n{n} ranks, M={float(M):.0e}" for c, n, M in groups], fontsize=7)
ax.set_ylabel("median / MPI_Alltoallw (same job)")
ax.set_title("512-byte pieces on one node: packed into shared memory vs in place through MPI (medians)")
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=100)
