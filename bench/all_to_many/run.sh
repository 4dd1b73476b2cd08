#!/usr/bin/env bash
# Regenerates docs/results/all_to_many.csv and docs/results/all_to_many.png: the experiment of §6 of
# Wang and Ranka as far as this machine allows -- n = 8 ranks (oversubscribed on a 2-core machine),
# random d-regular patterns, message sizes 16 B .. 128 KB, every scheduler under S1 and S2, and
# MPI_Alltoallv / MPI_Neighbor_alltoallv. The PNG is the region map of Figure 5 ("which algorithm
# wins where") next to the scheduling overhead of Figures 10 and 11.
#   bench/all_to_many/run.sh [build-dir] [ranks]
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
build="${1:-$HPF_ROOT/build-release}"
n="${2:-8}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bench_all_to_many -j "$HPF_JOBS" > /dev/null
cd "$HPF_ROOT"
load=$(cut -d' ' -f1-3 /proc/loadavg)
csv=docs/results/all_to_many.csv
rm -f "$csv"
# d = 1, 2, 4 and n - 1 (all-to-all); few samples keep the run to a few minutes on a shared machine.
ds="1,2,4,$((n - 1))"
mpiexec --oversubscribe --bind-to none -n "$n" "$build/bench/all_to_many/bench_all_to_many" \
  --d "$ds" --bytes 16,256,4096,32768,131072 --patterns 2 --repeats 4 --csv "$csv"

# Region map: the variant with the lowest median per (d, bytes), its ratio to MPI_Alltoallv.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -F, -v out="$tmp" '
  NR == 1 { next }
  { if ($4 == "rs_n") $4 = "rs-n"; if ($4 == "rs_nl") $4 = "rs-nl"  # names before the one casing
    key = $2 "," $3; name = $4 "/" $5; if (name == "alltoallv/mpi") name = "alltoallv";
    if (name == "neighbor_alltoallv/mpi") name = "neighbor";
    if (!(key in best) || $9 < best[key]) { best[key] = $9; who[key] = name; ratio[key] = $11 }
    if (!($2 in dseen)) { dseen[$2] = 1; dl[++nd] = $2 }
    if (!($3 in bseen)) { bseen[$3] = 1; bl[++nb] = $3 }
    if ($4 == "rs-n" && $5 == "S2") print $3, $12 > (out "/rsn_d" $2 ".dat");
    if ($4 == "rs-nl" && $5 == "S1") print $3, $12 > (out "/rsnl_d" $2 ".dat") }
  END {
    split("ac/S2 lp/S1 lp/S2 rs-n/S1 rs-n/S2 rs-nl/S1 rs-nl/S2 optimal/S1 optimal/S2 alltoallv neighbor", v, " ");
    for (i in v) col[v[i]] = i - 1;
    for (y = 1; y <= nd; ++y) for (x = 1; x <= nb; ++x) {
      key = dl[y] "," bl[x];
      printf "%d %d %d %s %.2fx\n", x - 1, y - 1, col[who[key]], who[key], ratio[key] > (out "/win.dat") }
    xt = ""; for (x = 1; x <= nb; ++x) { b = bl[x]; lab = b >= 1024 ? (b / 1024) "K" : b;
      xt = xt (x > 1 ? ", " : "") "\"" lab "\" " x - 1 }
    yt = ""; for (y = 1; y <= nd; ++y) yt = yt (y > 1 ? ", " : "") "\"" dl[y] "\" " y - 1
    print "set xtics (" xt ")" > (out "/tics.gp"); print "set ytics (" yt ")" > (out "/tics.gp");
    print "set xrange [-0.5:" nb - 0.5 "]" > (out "/tics.gp"); print "set yrange [-0.5:" nd - 0.5 "]" > (out "/tics.gp");
    ds = ""; for (y = 1; y <= nd; ++y) ds = ds " " dl[y]; print ds > (out "/ds.txt") }' "$csv"
ds_list=$(cat "$tmp/ds.txt")
{
  echo "set terminal pngcairo size 1300,520 noenhanced font ',10'"
  echo "set output 'docs/results/all_to_many.png'"
  echo "set multiplot layout 1,2 title 'all-to-many on $n MPI ranks oversubscribed on $(nproc) cores (load $load); median of the slowest rank over 2 patterns x 4 repeats'"
  echo "set title 'Fastest variant per (d, message size) and its time / MPI_Alltoallv (cf. Figure 5 of Wang and Ranka)'"
  cat "$tmp/tics.gp"
  echo "set xlabel 'message size (bytes)'; set ylabel 'density d (messages per rank)'"
  echo "set cbrange [-0.5:10.5]; set palette maxcolors 11; unset colorbox"
  echo "set palette defined (0 '#e41a1c', 1 '#377eb8', 2 '#80b1d3', 3 '#4daf4a', 4 '#b3de69', 5 '#984ea3', 6 '#bc80bd', 7 '#ff7f00', 8 '#fdb462', 9 '#999999', 10 '#ffff99')"
  echo "set style fill solid 0.9 border lc rgb 'white'"
  echo "plot '$tmp/win.dat' using 1:2:(0.5):(0.5):3 with boxxyerror fc palette notitle, \\"
  echo "     '' using 1:(\$2 + 0.12):4 with labels notitle, '' using 1:(\$2 - 0.12):5 with labels notitle"
  echo "set title 'Scheduling time / communication time, schedule used once (cf. Figures 10, 11)'"
  echo "set autoscale; set xtics auto; set ytics auto; set logscale xy; set xrange [10:200000]"
  echo "set xlabel 'message size (bytes)'; set ylabel 'schedule time / exchange time'; set key outside right"
  plot="plot "
  for d in $ds_list; do
    plot="$plot '$tmp/rsn_d$d.dat' using 1:2 with linespoints title 'RS_N (S2) d=$d', '$tmp/rsnl_d$d.dat' using 1:2 with linespoints dt 2 title 'RS_NL (S1) d=$d',"
  done
  echo "${plot%,}"
  echo "unset multiplot"
} > "$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "results: $csv, docs/results/all_to_many.png ($n ranks on $(nproc) cores; load before the run: $load)"
