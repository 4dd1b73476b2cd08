"""Summary of bench/lower/run.sh: raw rows (job, variant, ranks, repeat, wall, cpu) -> CSV.

For each job and configuration, the median over its repeats; then, per configuration, the median of
those job medians (rows with job = all), each with the wall-clock time per interior element per sweep
and the ratios the targets are stated in (lowered 1 rank / serial, 1 rank / P ranks, CYCLIC / BLOCK),
on wall-clock seconds and on rank 0's CPU seconds (which a loaded machine inflates less; with more
ranks than cores it leaves out the time a rank waits for a core).
usage: summary.py RAW N SWEEPS
"""
import statistics
import sys
from collections import defaultdict

raw, n, sweeps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
runs = defaultdict(list)
for line in open(raw):
    job, variant, ranks, _, wall, cpu = line.strip().split(",")
    runs[(int(job), variant, int(ranks))].append((float(wall), float(cpu)))
elements = (n - 2) ** 2 * sweeps
per_job = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v), len(v))
           for k, v in runs.items()}
configs = sorted({(v, r) for _, v, r in per_job}, key=lambda x: (["serial", "block", "cyclic"].index(x[0]), x[1]))
overall = {}
for cfg in configs:
    walls = [per_job[k][0] for k in per_job if k[1:] == cfg]
    cpus = [per_job[k][1] for k in per_job if k[1:] == cfg]
    overall[cfg] = (statistics.median(walls), statistics.median(cpus), min(walls), max(walls), len(walls))

print("variant,ranks,job,repeats,median_wall_seconds,median_cpu_seconds,ns_per_element_sweep,"
      "job_min_wall,job_max_wall,ratio_wall,ratio_cpu")


def ratio(cfg, k):
    """The target's ratio on wall-clock (k = 0) or rank 0's CPU seconds (k = 1)."""
    variant, ranks = cfg
    x = overall[cfg][k]
    if variant == "serial":
        text = "1"
    elif ranks == 1:
        text = f"{x / overall[('serial', 1)][k]:.3f} x serial"
    else:
        # Time per element on P ranks against 1 rank: the speedup.
        text = f"{overall[(variant, 1)][k] / x:.3f} speedup over 1 rank"
    if variant == "cyclic" and ("block", ranks) in overall:
        text += f"; {x / overall[('block', ranks)][k]:.3f} x block"
    return text


for (job, variant, ranks), (w, c, reps) in sorted(per_job.items()):
    print(f"{variant},{ranks},{job},{reps},{w:.4f},{c:.4f},{w / elements * 1e9:.3f},,,,")
for cfg, (w, c, lo, hi, nj) in overall.items():
    variant, ranks = cfg
    print(f"{variant},{ranks},all,{nj},{w:.4f},{c:.4f},{w / elements * 1e9:.3f},{lo:.4f},{hi:.4f},"
          f"{ratio(cfg, 0)},{ratio(cfg, 1)}")
