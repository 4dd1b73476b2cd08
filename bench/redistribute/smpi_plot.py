#!/usr/bin/env python3
"""Plots docs/results/redistribute_smpi.csv with gnuplot (as the other SMPI benchmarks do): one panel per
platform, time / caterpillar's against the number of simulated ranks, one line per method; the band that
section 5 of Desprez et al. reports on a 16-node Paragon is drawn at 16 ranks.
    smpi_plot.py in.csv out.png"""
import csv
import subprocess
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
platforms = [p for p in ("mesh", "torus", "cluster") if any(r["platform"] == p for r in rows)]
methods = ["caterpillar", "class", "koenig-stepwise", "koenig-greedy", "all-at-once", "alltoallv_pair",
           "alltoallv_ring", "alltoallv_bruck", "alltoallv_ompi"]
gp = [f"set terminal pngcairo size {620 * len(platforms)},420 noenhanced", f"set output '{sys.argv[2]}'",
      f"set multiplot layout 1,{len(platforms)}", "set logscale x 2", "set xlabel 'simulated ranks (P = Q)'",
      "set ylabel 'simulated time / caterpillar'", "set key outside right font ',8'", "set grid",
      "set yrange [0:*]", "set xrange [12:1400]"]
for plat in platforms:
    series = defaultdict(list)
    for r in rows:
        if r["platform"] != plat:
            continue
        m = "caterpillar" if r["method"] == "caterpillar-steps" else r["method"]
        series[m].append((int(r["ranks"]), float(r["ratio_to_caterpillar"])))
    gp.append(f"set title '{plat}: CYCLIC(3) -> CYCLIC(5), 1 MiB per rank'")
    gp.append("set object 1 rect from 14,0.56 to 18,0.64 behind fc rgb '#bbbbbb' fs solid 1.0 noborder")
    plots, data = [], []
    for i, m in enumerate(x for x in methods if x in series):
        pts = sorted(set(series[m]))
        dash = 2 if m.startswith("alltoallv") else 1
        plots.append(f"'-' using 1:2 with linespoints lw 2 dt {dash} lc {i + 1} title '{m}'")
        data.append("\n".join(f"{p} {v}" for p, v in pts) + "\ne")
    gp.append("plot " + ", ".join(plots))
    gp.extend(data)
    gp.append("unset object 1")
gp.append("unset multiplot")
subprocess.run(["gnuplot"], input="\n".join(gp) + "\n", text=True, check=True)
