#!/usr/bin/env python3
"""SimGrid platforms for the SMPI benchmarks (smpi_run.sh of bench/redistribute, bench/all_to_many and
bench/adaptive).

The committed files are cluster_N and torus_N for N = 16, 64, 256, 1024, mesh_16, mesh_64 and
hypercube_16 (hypercube_64 is 0.8 MB; mesh_256 and mesh_1024 are 0.3 and 1.3 MB: the smpi_run.sh scripts generate
them, like any other N, into build-smpi/).

    make_platforms.py KIND N OUT.xml       KIND = cluster | torus | mesh | hypercube | twolevel,
                                           N hosts node-0 .. node-(N-1)

The 2-D shapes are the most square a x b = N with a <= b (16 = 4 x 4, 64 = 8 x 8, 256 = 16 x 16,
1024 = 32 x 32; a prime N gives a 1 x N ring or line). Rank i sits at (i mod b, i div b).

cluster  A cluster whose backbone is shared and limited: every host has its own full-duplex
         1.25 GB/s, 2 us link (SPLITDUPLEX: one message out and one in at full speed), and all
         traffic crosses one SHARED backbone of N / 4 host links' bandwidth (4:1 oversubscribed).
torus    A 2-D torus (SimGrid's TORUS cluster): one full-duplex 1.25 GB/s, 1 us link between
         neighbours, dimension-ordered routes (SimGrid's torus routing, shortest direction first on
         dimension 0, then dimension 1): a message shares every link on its path.
mesh     A 2-D mesh in the style of the Intel Paragon XP/S of section 5 of Desprez et al. (no wrap-around,
         XY routing). Desprez et al. give no network parameters; those of the Paragon's mesh routing chip
         are used: 175 MB/s per direction per link and 40 ns per hop; the node's interface to its
         router is a 175 MB/s link per direction with 30 us latency, standing for the message
         start-up of the Paragon's message layer. XY routing is exact: each mesh position has an
         X router and a Y router; the X routers are joined along rows, the Y routers along columns,
         a host enters at its X router and leaves from its Y router, and only X -> Y turns exist
         (a one-way FATPIPE link), so the only routes Dijkstra can find go along X first, then Y.
         One link per direction (ids ...-E/-W/-N/-S), so opposite directions never share.
hypercube  The Intel iPSC/860 of section 2.2 of Wang and Ranka (bench/all_to_many/smpi_run.sh): N = 2^k nodes,
         circuit-switched e-cube routing (the differing address bits are fixed from the least to the
         most significant), written out as one explicit route per ordered pair (routing "Full"), so
         the simulated paths are exactly hpf::Routing::hypercube's. One 2.8 MB/s link per direction
         of each cube edge (h-<i>-<b>: node i to node i XOR 2^b), 100 ns per hop; the node's
         interface is a 2.8 MB/s link per direction with 35 us latency (inj-<i>, ej-<i>), so a message
         starts up in about 70 us, the iPSC/860's short-message latency (Wang and Ranka give no numbers; these
         are the machine's published DCM channel rate and start-up).
twolevel The Grid'5000 platform of Table 4 of Steffenel (bench/adaptive/smpi_run.sh): six clusters of
         31, 29, 6, 1, 1 and 20 machines, scaled to N (clusters 3 and 4 stay single machines; the other
         N - 2 hosts are shared in proportion 31 : 29 : 6 : 20, largest remainder first), ranks numbered
         cluster by cluster. Every host has its own 125 MB/s link per direction to its cluster's
         router with half the cluster's Table 4 latency (IDPOT's 35.52 us for the single machines), so
         two hosts of cluster i are L_ii apart. The routers are joined pairwise, one link per direction,
         with latency L_ij - L_ii/2 - L_jj/2, so hosts of clusters i and j are Table 4's L_ij apart.
         Table 4 gives no bandwidths: links between clusters of one site (L_ij < 1 ms: Orsay 0-1,
         IDPOT 2-3-4) get 125 MB/s, links between sites (5-12 ms) 12.5 MB/s, shared by all the flows
         between the two clusters. twolevel_sizes(N) gives the cluster sizes.
"""
import sys


def shape(n):
    a = int(n ** 0.5)
    while a > 1 and n % a:
        a -= 1
    return a, n // a  # a <= b


def cluster(n):
    bb = 1.25 * n / 4
    return (f'  <cluster id="cluster" prefix="node-" suffix="" radical="0-{n - 1}" speed="1Gf" bw="1.25GBps"'
            f' lat="2us" bb_bw="{bb:g}GBps" bb_lat="1us" sharing_policy="SPLITDUPLEX" bb_sharing_policy="SHARED"/>\n')


def torus(n):
    a, b = shape(n)
    return (f'  <cluster id="torus" prefix="node-" suffix="" radical="0-{n - 1}" speed="1Gf" bw="1.25GBps"'
            f' lat="1us" topology="TORUS" topo_parameters="{b},{a}" sharing_policy="SPLITDUPLEX"/>\n')


def mesh(n):
    a, b = shape(n)  # b columns (x), a rows (y)
    out = ['  <zone id="mesh" routing="DijkstraCache">\n']
    route = lambda s, d, link: (f'    <route src="{s}" dst="{d}" symmetrical="NO"><link_ctn id="{link}"/></route>\n')
    links, routes = [], []
    lk = lambda i, bw="175MBps", lat="40ns", policy="SHARED": (
        f'    <link id="{i}" bandwidth="{bw}" latency="{lat}" sharing_policy="{policy}"/>\n')
    for i in range(n):
        x, y = i % b, i // b
        out.append(f'    <host id="node-{i}" speed="1Gf"/>\n')
        out.append(f'    <router id="rx-{i}"/>\n    <router id="ry-{i}"/>\n')
        links += [lk(f"inj-{i}", lat="30us"), lk(f"ej-{i}", lat="30us"), lk(f"turn-{i}", "1000GBps", "0", "FATPIPE")]
        routes += [route(f"node-{i}", f"rx-{i}", f"inj-{i}"), route(f"ry-{i}", f"node-{i}", f"ej-{i}"),
                   route(f"rx-{i}", f"ry-{i}", f"turn-{i}")]
        if x + 1 < b:
            j = i + 1
            links += [lk(f"x-{i}-E"), lk(f"x-{j}-W")]
            routes += [route(f"rx-{i}", f"rx-{j}", f"x-{i}-E"), route(f"rx-{j}", f"rx-{i}", f"x-{j}-W")]
        if y + 1 < a:
            j = i + b
            links += [lk(f"y-{i}-N"), lk(f"y-{j}-S")]
            routes += [route(f"ry-{i}", f"ry-{j}", f"y-{i}-N"), route(f"ry-{j}", f"ry-{i}", f"y-{j}-S")]
    return "".join(out + links + routes) + "  </zone>\n"


def hypercube(n):
    dims = n.bit_length() - 1
    lk = lambda i, lat: f'    <link id="{i}" bandwidth="2.8MBps" latency="{lat}" sharing_policy="SHARED"/>\n'
    out = ['  <zone id="hypercube" routing="Full">\n']
    out += [f'    <host id="node-{i}" speed="1Gf"/>\n' for i in range(n)]
    for i in range(n):
        out += [lk(f"inj-{i}", "35us"), lk(f"ej-{i}", "35us")]
        out += [lk(f"h-{i}-{b}", "100ns") for b in range(dims)]
    for s in range(n):
        for d in range(n):
            if s == d:
                continue
            links, cur = [f"inj-{s}"], s
            for b in range(dims):  # e-cube: least significant differing bit first
                if (cur ^ d) >> b & 1:
                    links.append(f"h-{cur}-{b}")
                    cur ^= 1 << b
            links.append(f"ej-{d}")
            ctn = "".join(f'<link_ctn id="{x}"/>' for x in links)
            out.append(f'    <route src="node-{s}" dst="node-{d}" symmetrical="NO">{ctn}</route>\n')
    return "".join(out) + "  </zone>\n"


TABLE4 = [[47.56, 62.10, 12181.52, 12187.24, 12197.49, 5210.99],
          [62.10, 47.92, 12181.52, 12198.03, 12195.22, 5211.47],
          [12181.52, 12181.52, 35.52, 60.08, 60.08, 5388.49],
          [12187.24, 12198.03, 60.08, 35.52, 242.47, 5393.98],
          [12197.49, 12195.22, 60.08, 242.47, 35.52, 5394.10],
          [5210.99, 5211.47, 5388.49, 5393.98, 5394.10, 27.53]]  # us; 3, 4 diagonal: IDPOT's (single)


def twolevel_sizes(n):
    if n < 6:
        sys.exit(f"twolevel: N must be >= 6 (six clusters), got {n}")
    w = [31, 29, 6, 20]
    share = [(n - 2) * x / sum(w) for x in w]
    size = [int(x) for x in share]
    for i in sorted(range(4), key=lambda i: size[i] - share[i])[:n - 2 - sum(size)]:
        size[i] += 1
    return [size[0], size[1], size[2], 1, 1, size[3]]


def twolevel(n):
    sizes = twolevel_sizes(n)
    out = ['  <zone id="twolevel" routing="DijkstraCache">\n']
    links, routes = [], []
    lk = lambda i, bw, lat: f'    <link id="{i}" bandwidth="{bw}" latency="{lat:.3f}us" sharing_policy="SHARED"/>\n'
    route = lambda s, d, link: f'    <route src="{s}" dst="{d}" symmetrical="NO"><link_ctn id="{link}"/></route>\n'
    host = 0
    for c, size in enumerate(sizes):
        out.append(f'    <router id="r-{c}"/>\n')
        for _ in range(size):
            out.append(f'    <host id="node-{host}" speed="1Gf"/>\n')
            links += [lk(f"up-{host}", "125MBps", TABLE4[c][c] / 2), lk(f"down-{host}", "125MBps", TABLE4[c][c] / 2)]
            routes += [route(f"node-{host}", f"r-{c}", f"up-{host}"), route(f"r-{c}", f"node-{host}", f"down-{host}")]
            host += 1
    for i in range(6):
        for j in range(6):
            if i != j:
                lat = TABLE4[i][j] - TABLE4[i][i] / 2 - TABLE4[j][j] / 2
                links.append(lk(f"inter-{i}-{j}", "125MBps" if TABLE4[i][j] < 1000 else "12.5MBps", lat))
                routes.append(route(f"r-{i}", f"r-{j}", f"inter-{i}-{j}"))
    return "".join(out + links + routes) + "  </zone>\n"


def main():
    kinds = {"cluster": cluster, "torus": torus, "mesh": mesh, "hypercube": hypercube, "twolevel": twolevel}
    if len(sys.argv) == 3 and sys.argv[1] == "twolevel-sizes" and sys.argv[2].isdigit():
        print(",".join(map(str, twolevel_sizes(int(sys.argv[2])))))  # for bench/adaptive/smpi_run.sh
        return
    if len(sys.argv) != 4 or sys.argv[1] not in kinds or not sys.argv[2].isdigit() or int(sys.argv[2]) < 1:
        sys.exit(f"usage: {sys.argv[0]} cluster|torus|mesh|hypercube|twolevel N out.xml (N >= 1), or twolevel-sizes N; got {sys.argv[1:]}")
    kind, n = sys.argv[1], int(sys.argv[2])
    if kind == "hypercube" and n & (n - 1):
        sys.exit(f"{sys.argv[0]}: hypercube: N must be a power of two, got {n}")
    body = kinds[kind](n)
    with open(sys.argv[3], "w") as f:
        f.write("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                f"<!-- Generated by bench/platforms/make_platforms.py {kind} {n}: see its docstring. -->\n"
                f'<platform version="4.1">\n{body}</platform>\n')


if __name__ == "__main__":
    main()
