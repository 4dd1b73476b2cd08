#!/usr/bin/env python3
"""The summary of bench/all_to_many/smpi_run.sh: reads the driver's RESULT rows (prefixed by the platform
and suffixed by the wall time of their smpirun: platform,d,bytes,pattern,algo,exec,phases,seconds,wall),
prints the winner per (platform, d, size) and writes the CSV smpi_run.sh documents.
    smpi_summary.py results.txt ranks patterns repeats [out.csv]
The CSV's patterns column is the number of patterns each cell's rows actually hold (at most `patterns`:
the rows of an interrupted run can be summarised too)."""
import statistics, sys
from collections import defaultdict
results, ranks, patterns, repeats, csv = (sys.argv[1:] + [""])[:5]
t = defaultdict(list)   # (platform, d, bytes, algo, exec) -> per-pattern times
phases = defaultdict(list)
wall = {}
for line in open(results):
    plat, d, b, p, algo, ex, ph, sec, w = line.strip().split(",")
    key = (plat, int(d), int(b), algo, ex)
    t[key].append(float(sec)); phases[key].append(int(ph)); wall[plat] = w
seed_pairs = {("ac", "S2"), ("lp", "S1"), ("rs-n", "S2"), ("rs-nl", "S1")}
cells = sorted({k[:3] for k in t})
rows = []
print(f"{'platform':9} {'d':>3} {'bytes':>7}  winner      time_ms   runner-up   /winner  phased winner")
for cell in cells:
    med = {k[3:]: statistics.median(v) for k, v in t.items() if k[:3] == cell}
    cand = sorted((v, k) for k, v in med.items() if k in seed_pairs)
    if len(cand) != 4:
        sys.exit(f"smpi_run.sh: {cell}: expected the four variants of Wang and Ranka, got {sorted(med)}")
    best, win = cand[0]
    phased = min((v, k) for k, v in med.items() if k[1] == "S1")[1]
    print(f"{cell[0]:9} {cell[1]:3d} {cell[2]:7d}  {win[0] + '/' + win[1]:10} {best * 1e3:8.3f}   "
          f"{cand[1][1][0] + '/' + cand[1][1][1]:10} {cand[1][0] / best:6.2f}  {phased[0]}/S1")
    for k in sorted(med):
        key = cell + k
        rows.append(f"{cell[0]},{ranks},{cell[1]},{cell[2]},{k[0]},{k[1]},{statistics.median(phases[key]):g},"
                    f"{med[k]:.9g},{med[k] / best:.4f},{int(k == win)},{int(k == phased)},{len(t[key])},{repeats},{wall[cell[0]]}")
if csv:
    with open(csv, "w") as f:
        f.write("platform,ranks,d,bytes,algo,exec,phases,simulated_seconds,ratio_to_best,winner,phased_winner,patterns,"
                "repeats,wall_seconds\n" + "\n".join(rows) + "\n")
