#!/usr/bin/env python3
"""Prints docs/results/stencil.csv as a markdown table, with the claim annotations
scripts/check-claims reads after it, and the ranges the README quotes (so that every number in the
docs comes from the CSV)."""
import csv
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "docs/results/stencil.csv"
rows = list(csv.DictReader(line for line in open(path) if not line.startswith("#")))
cases = []
for r in rows:
    k = (r["ranks"], r["grid"], r["width"])
    if k not in cases:
        cases.append(k)
methods = ["hpfrt", "hpfrt-split", "hand-mpi", "petsc-dmda", "hpfrt-periodic", "ga-ghosts", "memcpy"]
print("| ranks (grid), width | " + " | ".join(methods) + " |")
print("|---|" + "---|" * len(methods))
where = {}  # cell text -> the (method, ranks, width) cells that show it
for k in cases:
    cells = []
    for m in methods:
        r = [x for x in rows if (x["ranks"], x["grid"], x["width"]) == k and x["method"] == m][0]
        text = "%.0f µs (%.2f×)" % (float(r["seconds"]) * 1e6, float(r["vs_hand_mpi"]))
        cells.append(text)
        where.setdefault(text, []).append('("%s", %s, %s)' % (m, k[0], k[2]))
    print("| %s (%s), w=%s | " % k + " | ".join(cells) + " |")
for text, keys in where.items():
    print('<!-- claim "%s" in %s: each vs_hand_mpi where (method, ranks, width) in [%s] -->'
          % (text, path, ", ".join(keys)))
print()
for m in methods:
    v = [float(x["vs_hand_mpi"]) for x in rows if x["method"] == m]
    print("%-15s vs hand-mpi: %.2f-%.2f" % (m, min(v), max(v)))
