# gnuplot -e "csv='docs/results/steady_smpi.csv'; png='docs/results/steady_smpi.png'" smpi_plot.gp
# Executed throughput K / time over TP as a function of K, per platform and operation: the steady-state
# schedule under SMPI (points), its time model K / makespan (lines), and the naive alternative.
set terminal pngcairo size 1100,600 noenhanced
set output png
set title 'Series of K operations under SimGrid SMPI: throughput / TP (Legrand, Marchal and Robert)'
set xlabel 'K (operations in the series)'
set ylabel 'K / time, in units of TP'
set logscale x 10
set xrange [7:1500]
set yrange [0:1.6]
set key outside right font ',9'
set grid
set datafile separator ','
rows(p, v) = sprintf("< awk -F, '$1 == \"%s\" && $3 == \"%s\"' %s", p, v, csv)
names = "figure2-scatter figure6-reduce hetero6-scatter hetero6-reduce figure2-gossip hetero6-gossip"
naive(p) = (strstrt(p, "reduce") > 0) ? 'naive-MPI_Reduce' : 'naive-direct'
naive_title(p) = (strstrt(p, "reduce") > 0) ? 'MPI_Reduce (binomial)' : 'direct sends'
plot for [i=1:6] rows(word(names, i), 'steady') using 4:($6/$7) with linespoints pt 7 lc i \
       title word(names, i).': steady schedule (SMPI)', \
     for [i=1:6] rows(word(names, i), 'steady') using 4:($8/$7) with lines dt 2 lc i \
       title word(names, i).': steady, time model K / makespan', \
     for [i=1:6] rows(word(names, i), naive(word(names, i))) using 4:($6/$7) with linespoints pt 4 dt 3 lc i \
       title word(names, i).': '.naive_title(word(names, i)), \
     1 with lines lw 2 lc rgb 'black' title 'TP'
