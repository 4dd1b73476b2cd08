#!/usr/bin/env python3
"""The 64-host two-level cluster platform of the series benchmark (bench/steady/cluster_run.sh).

    cluster_platform.py OUT.xml OUT.hosts OUT.json OUT-level2.json

Built from Table 4 of Steffenel: the 88 GRID5000 machines that
Lowekamp's clustering split into 6 homogeneous clusters (31 + 29 Orsay, 6 + 1 + 1 IDPOT,
20 Toulouse), with the latency between every two clusters and inside each. Scaled to 64 hosts by
rounding the sizes to 22 + 21 + 4 + 1 + 1 + 15. Table 4 gives latencies only; the bandwidths and
speeds below are ours (Steffenel gives none), chosen so that the platform is heterogeneous in
three ways:
  - cluster sizes (above);
  - host speeds: Orsay 1, IDPOT 2, Toulouse 1.5 (Gflop/s in the XML; the benchmark charges
    --flops-per-task flops per combination);
  - links: inside a cluster every host has its own 125 MB/s link (SPLITDUPLEX) to the cluster's
    switch, with half the cluster's Table-4 latency each way (so host to host is Table 4's diagonal).
    Between two clusters one SHARED link, its latency from Table 4, its bandwidth by distance:
    50 MB/s inside a site (Orsay-Orsay, IDPOT-IDPOT: latency < 1 ms), 2 MB/s between Toulouse and
    the others (about 5 ms), 1 MB/s between Orsay and IDPOT (about 12 ms). These are the slow links.

Hosts are named h0 .. h63 in cluster order, so ranks 0-21 are cluster 0, 22-42 cluster 1, ...: a
non-commutative reduction in rank order is a reduction of the clusters' partial results in cluster
order. A value is BYTES = 100 kB and a combination costs FLOPS = 1 Mflop (1 ms on an Orsay host).

OUT.json gives the benchmark the clusters ({"bytes", "flops_per_task", "time_unit", "clusters":
[{"name", "first", "size", "speed"}]}); OUT-level2.json is the cluster-level platform of the two-level
series in the steady-state engine's format, in a time unit of 1 ms: one node per cluster (its leader,
the cluster's first host; speed = combinations per ms), an edge both ways between every two clusters
whose cost is the time of one value over their link (BYTES / bandwidth + latency) in whole ms.
"""
import json
import sys

NAMES = ["orsay-a", "orsay-b", "idpot-a", "idpot-b", "idpot-c", "toulouse"]
SIZES = [22, 21, 4, 1, 1, 15]
SITE = ["orsay", "orsay", "idpot", "idpot", "idpot", "toulouse"]
SPEED = {"orsay": 1.0, "idpot": 2.0, "toulouse": 1.5}  # Gflop/s (ours)
# Steffenel, Table 4 (microseconds); "-" on the diagonal of the one-machine clusters.
LAT_US = [
    [47.56, 62.10, 12181.52, 12187.24, 12197.49, 5210.99],
    [62.10, 47.92, 12181.52, 12198.03, 12195.22, 5211.47],
    [12181.52, 12181.52, 35.52, 60.08, 60.08, 5388.49],
    [12187.24, 12198.03, 60.08, None, 242.47, 5393.98],
    [12197.49, 12195.22, 60.08, 242.47, None, 5394.10],
    [5210.99, 5211.47, 5388.49, 5393.98, 5394.10, 27.53],
]
SPEED_PER_MS = {"orsay": "1", "idpot": "2", "toulouse": "3/2"}  # combinations per ms (SPEED / FLOPS)
INTRA_MBPS = 125.0
BYTES = 100000
FLOPS = 1e6


def inter_mbps(a, b):
    lat = LAT_US[a][b]
    if lat < 1000:
        return 50.0
    if lat < 8000:
        return 2.0
    return 1.0


def main(xml_path, hosts_path, json_path, level2_path):
    n = len(SIZES)
    first = [sum(SIZES[:c]) for c in range(n)]
    lines = ['<?xml version="1.0"?>', '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
             '<platform version="4.1">', '  <zone id="grid" routing="Full">']
    host_cluster = []
    for c in range(n):
        for i in range(SIZES[c]):
            h = first[c] + i
            host_cluster.append(c)
            lines.append(f'    <host id="h{h}" speed="{SPEED[SITE[c]]:g}Gf"/>')
    for h, c in enumerate(host_cluster):
        lat = (LAT_US[c][c] or 0.0) / 2
        lines.append(f'    <link id="l{h}" bandwidth="{INTRA_MBPS:g}MBps" latency="{lat:g}us"'
                     f' sharing_policy="SPLITDUPLEX"/>')
    for a in range(n):
        for b in range(a + 1, n):
            lines.append(f'    <link id="x{a}-{b}" bandwidth="{inter_mbps(a, b):g}MBps"'
                         f' latency="{LAT_US[a][b]:g}us"/>')
    hosts = len(host_cluster)
    for s in range(hosts):
        for d in range(s + 1, hosts):
            cs, cd = host_cluster[s], host_cluster[d]
            mid = "" if cs == cd else f'<link_ctn id="x{min(cs, cd)}-{max(cs, cd)}"/>'
            lines.append(f'    <route src="h{s}" dst="h{d}"><link_ctn id="l{s}" direction="UP"/>{mid}'
                         f'<link_ctn id="l{d}" direction="DOWN"/></route>')
    lines += ['  </zone>', '</platform>', '']
    with open(xml_path, "w") as f:
        f.write("\n".join(lines))
    with open(hosts_path, "w") as f:
        f.write("".join(f"h{h}\n" for h in range(hosts)))
    model = {
        "bytes": BYTES,
        "time_unit": 0.001,
        "flops_per_task": FLOPS,
        "clusters": [{"name": NAMES[c], "first": first[c], "size": SIZES[c], "speed": SPEED[SITE[c]]}
                     for c in range(n)],
    }
    with open(json_path, "w") as f:
        json.dump(model, f, indent=1)
    level2 = {
        "nodes": [{"name": NAMES[c], "speed": SPEED_PER_MS[SITE[c]]} for c in range(n)],
        "edges": [{"from": NAMES[a], "to": NAMES[b],
                   "cost": str(max(1, round(1000 * (BYTES / (inter_mbps(a, b) * 1e6) + LAT_US[a][b] * 1e-6))))}
                  for a in range(n) for b in range(n) if a != b],
    }
    with open(level2_path, "w") as f:
        json.dump(level2, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: cluster_platform.py OUT.xml OUT.hosts OUT.json OUT-level2.json")
    main(*sys.argv[1:])
