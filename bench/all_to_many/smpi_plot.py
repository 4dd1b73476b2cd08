#!/usr/bin/env python3
"""Region maps of docs/results/all_to_many_smpi.csv (Figure 5 of Wang and Ranka under SMPI), drawn with
gnuplot as the other SMPI plots are. One row per platform, two panels each:
  left   the fastest of the four variants of Wang and Ranka (AC/S2, LP/S1, RS_N/S2, RS_NL/S1) per
         (density d, message size), labelled with the time of the fastest phased one of them (LP/S1 or
         RS_NL/S1) / the winner's (AC/S2 and RS_N/S2 post everything at once and tie);
  right  the fastest phased (S1) variant (LP, RS_N, RS_NL), labelled the same way: where avoiding link
         contention (RS_NL) pays when the phases are synchronised.
    smpi_plot.py in.csv out.png"""
import csv
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
platforms = [p for p in ("hypercube", "mesh") if any(r["platform"] == p for r in rows)]
ds = sorted({int(r["d"]) for r in rows})
sizes = sorted({int(r["bytes"]) for r in rows})
colour = {"ac": 0, "lp": 1, "rs-n": 2, "rs-nl": 3}
ranks = rows[0]["ranks"]
tmp = tempfile.mkdtemp()
label = lambda b: f"{b // 1024}K" if b >= 1024 else str(b)
gp = [f"set terminal pngcairo size 1300,{460 * len(platforms)} noenhanced font ',10'", f"set output '{sys.argv[2]}'",
      f"set multiplot layout {len(platforms)},2 title 'Figure 5 of Wang and Ranka under SMPI, {ranks} simulated ranks: "
      "fastest variant per (d, message size); labels: winner, then (left) fastest phased S1 variant / winner or (right) runner-up / winner'",
      "set xtics (" + ", ".join(f'"{label(b)}" {i}' for i, b in enumerate(sizes)) + ")",
      "set ytics (" + ", ".join(f'"{d}" {i}' for i, d in enumerate(ds)) + ")",
      f"set xrange [-0.5:{len(sizes) - 0.5}]", f"set yrange [-0.5:{len(ds) - 0.5}]",
      "set xlabel 'message size (bytes)'", "set ylabel 'density d'", "set cbrange [-0.5:3.5]",
      "set palette maxcolors 4", "set palette defined (0 '#e41a1c', 1 '#377eb8', 2 '#4daf4a', 3 '#ff7f00')",
      "unset colorbox", "set style fill solid 0.85 border lc rgb 'white'"]
for plat in platforms:
    for panel, pick in (("Wang and Ranka's pairing: AC/S2, LP/S1, RS_N/S2, RS_NL/S1", lambda r:
                         (r["algo"], r["exec"]) in {("ac", "S2"), ("lp", "S1"), ("rs-n", "S2"), ("rs-nl", "S1")}),
                        ("phased (S1): LP, RS_N, RS_NL", lambda r: r["exec"] == "S1")):
        cells = defaultdict(list)
        for r in rows:
            if r["platform"] == plat and pick(r):
                cells[(int(r["d"]), int(r["bytes"]))].append((float(r["simulated_seconds"]), r["algo"], r["exec"]))
        dat = os.path.join(tmp, f"{plat}_{len(gp)}.dat")
        with open(dat, "w") as f:
            for (d, b), v in cells.items():
                v.sort()
                rest = [x for x in v[1:] if x[2] == "S1"] if panel.startswith("Wang") else v[1:]
                margin = rest[0][0] / v[0][0] if rest else 1
                f.write(f"{sizes.index(b)} {ds.index(d)} {colour[v[0][1]]} {v[0][1]}/{v[0][2]} {margin:.2f}x\n")
        gp += [f"set title '{plat}: {panel}'",
               f"plot '{dat}' using 1:2:(0.5):(0.5):3 with boxxyerror fc palette notitle, "
               "'' using 1:($2 + 0.15):4 with labels notitle, '' using 1:($2 - 0.15):5 with labels notitle"]
gp.append("unset multiplot")
subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
