#!/usr/bin/env python3
"""Plots docs/results/bcast_smpi.csv (bench/adaptive/smpi_run.sh) with gnuplot, as the other SMPI plots
are: one panel per number of simulated ranks, simulated time against message size (log-log), one line
per hpfrt method (the one-level adaptive choice, the two-level plan of each inter-cluster heuristic) and
per SMPI MPI_Bcast algorithm; the two-level plan's predicted makespan (hier-auto) is drawn dashed.
    smpi_plot.py in.csv out.png"""
import csv
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
ranks = sorted({int(r["ranks"]) for r in rows})
methods = list(dict.fromkeys(r["method"] for r in rows))
tmp = tempfile.mkdtemp()
gp = [f"set terminal pngcairo size {560 * len(ranks) + 200},460 noenhanced font ',9'", f"set output '{sys.argv[2]}'",
      f"set multiplot layout 1,{len(ranks)} title 'broadcast from rank 0 on the two-level platform of Table 4 of Steffenel "
      "(SimGrid SMPI, simulated time)'", "set logscale xy", "set xlabel 'message size (bytes)'",
      "set ylabel 'simulated seconds'", "set grid", "set key outside right font ',8'", "set format x '%.0s%cB'"]
for n in ranks:
    series, pred = defaultdict(list), []
    for r in rows:
        if int(r["ranks"]) == n:
            series[r["method"]].append((int(r["bytes"]), float(r["simulated_seconds"])))
            if r["method"] == "hier-auto" and r["predicted_seconds"]:
                pred.append((int(r["bytes"]), float(r["predicted_seconds"])))
    plots = []
    for i, m in enumerate(methods):
        if not series[m]:
            continue
        dat = os.path.join(tmp, f"{n}_{i}.dat")
        with open(dat, "w") as f:
            f.writelines(f"{b} {t}\n" for b, t in sorted(series[m]))
        style = "lw 2.5" if m in ("hier-auto", "adaptive") else ("dt 3" if m.startswith("bcast_") else "lw 1")
        plots.append(f"'{dat}' using 1:2 with linespoints {style} title '{m}'")
    dat = os.path.join(tmp, f"{n}_pred.dat")
    with open(dat, "w") as f:
        f.writelines(f"{b} {t}\n" for b, t in sorted(pred))
    plots.append(f"'{dat}' using 1:2 with lines dt 2 lc rgb 'black' title 'hier-auto predicted'")
    sizes = sorted({r['cluster_sizes'] for r in rows if int(r['ranks']) == n})
    gp += [f"set title '{n} ranks, clusters {sizes[0]}'", "plot " + ", ".join(plots)]
gp.append("unset multiplot")
subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
