#!/usr/bin/env python3
"""The summary of bench/adaptive/smpi_run.sh: reads the driver's RESULT rows, each suffixed by the wall time
of its smpirun (RESULT,label,bytes,seconds,predicted,what,wall; several runs' files may be concatenated),
and prints (and appends to the CSV, when given) the rows smpi_run.sh documents.
    smpi_summary.py results.txt ranks cluster_sizes [out.csv]"""
import os, sys
results, ranks, sizes, csv = (sys.argv[1:] + [""])[:4]
rows = [l.rstrip("\n").split(",")[1:] for l in open(results) if l.strip()]
best = {}
for label, b, sec, pred, what, wall in rows:
    if label.startswith("bcast_"):
        best[b] = min(best.get(b, float("inf")), float(sec))
header = "ranks,bytes,method,simulated_seconds,predicted_seconds,ratio_to_best_mpi,what,cluster_sizes,wall_seconds"
lines = [f"{ranks},{b},{label},{sec},{pred},{float(sec) / best[b] if b in best else float('nan'):.4f},{what},{sizes.replace(',', ' ')},{wall}"
         for label, b, sec, pred, what, wall in rows]
print(header)
print("\n".join(lines))
if csv:
    new = not os.path.exists(csv) or os.path.getsize(csv) == 0
    with open(csv, "a") as f:
        f.write((header + "\n" if new else "") + "\n".join(lines) + "\n")
