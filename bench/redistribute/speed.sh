#!/usr/bin/env bash
# Regenerates docs/results/redistribute_speed.{csv,png} (a repeated REDISTRIBUTE of 8*10^6 doubles,
# CYCLIC(3) -> CYCLIC(5), against one memcpy of the local block and pdgemr2d, on 2 and 4 ranks,
# medians of 15) and docs/results/redistribute_planning.csv (planning time at P, Q up to 1024).
# Tpetra::Import is a peer when Tpetra is installed; the minimal standalone Tpetra program runs the same
# case in the same job (its CSV stays in the build tree and is printed), and the machine, the MPI
# settings and `uptime` go to the CSV's '#' header lines. Extra arguments go to
# bench_redistribute_speed (keep --M, --r, --s in step with the standalone call below if you change them).
# HPF_SPEED_NAME (default redistribute_speed) names the speed files it writes in docs/results/, and
# HPF_PLANNING_NAME (default redistribute_planning) the planning CSV: a record of another host beside
# the current one (HPF_SPEED_NAME=redistribute_speed_epyc).
set -euo pipefail
source "$(dirname "$0")/../../scripts/env.sh"
source "$(dirname "$0")/../common/bench_common.sh"
build="${HPF_BUILD:-$HPF_ROOT/build-release}"
cmake -S "$HPF_ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHPF_BUILD_TESTS=OFF > /dev/null
targets=(bench_redistribute_speed bench_redistribute_plan_time)
grep -q '^bench_redistribute_tpetra_alone:' <(cmake --build "$build" --target help) && targets+=(bench_redistribute_tpetra_alone)
cmake --build "$build" --target "${targets[@]}" -j "${HPF_JOBS}" > /dev/null
cd "$HPF_ROOT"
mkdir -p docs/results
name="docs/results/${HPF_SPEED_NAME:-redistribute_speed}"
planning="docs/results/${HPF_PLANNING_NAME:-redistribute_planning}.csv"
csv="$name.csv"
alone="$build/$(basename "$name")_tpetra_alone.csv" # the standalone cross-check, printed at the end
rm -f "$csv"
echo "case,ranks,M,r,s,median_s" > "$alone"
load_start
for np in 2 4; do
  load_note "before ranks $np"
  mpirun --oversubscribe --bind-to none -n "$np" "$build/bench/redistribute/bench_redistribute_speed" \
    --repeats 15 --csv "$csv" "$@"
  if [ -x "$build/bench/redistribute/bench_redistribute_tpetra_alone" ]; then
    mpirun --oversubscribe --bind-to none -n "$np" "$build/bench/redistribute/bench_redistribute_tpetra_alone" \
      --M 8e6 --r 3 --s 5 --repeats 15 --csv "$alone"
  fi
done
load_note after
csv_stamp "$csv"
"$build/bench/redistribute/bench_redistribute_plan_time" --repeats 5 --csv "$planning"
gnuplot <<GP
set terminal pngcairo size 900,420 noenhanced
set output '$name.png'
set datafile separator ','
set style data histograms
set style histogram clustered
set style fill solid 0.8
set ylabel 'median / one memcpy of the local block (log)'
set title 'CYCLIC(3) -> CYCLIC(5), 8*10^6 doubles: each method over one memcpy (same job, medians of 15)'
set logscale y
set yrange [0.5:*]
set key top left
set xtics rotate by -20
set grid ytics
set arrow from graph 0, first 3 to graph 1, first 3 nohead dt 2
plot '< grep ",2," $csv' using 7:xtic(4) title '2 ranks', '< grep ",4," $csv' using 7 title '4 ranks (oversubscribed)'
GP
[ -x "$build/bench/redistribute/bench_redistribute_tpetra_alone" ] && cat "$alone"
echo "results: $csv, $name.png, $planning"
