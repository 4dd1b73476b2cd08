# gnuplot -e "csv='docs/results/steady_smpi.csv'; png='docs/results/steady_smpi.png'" smpi_plot.gp
# Executed throughput K / time over TP as a function of K, per platform and operation: the steady-state
# schedule under SMPI (points), its time model K / makespan (lines), and the naive alternative.
set terminal pngcairo size 1100,600 noenhanced
set output png
set title 'Series of K operations under SimGrid SMPI: throughput / TP (seed 000)'
set xlabel 'K (operations in the series)'
set ylabel 'K / time, in units of TP'
set logscale x 10
set xrange [7:1500]
set yrange [0:1.6]
set key outside right font ',9'
set grid
set datafile separator ','
rows(p, v) = sprintf("< awk -F, '$1 == \"%s\" && $3 == \"%s\"' %s", p, v, csv)
plot for [p in "figure2-scatter figure6-reduce hetero6-scatter hetero6-reduce"] \
       rows(p, 'steady') using 4:($6/$7) with linespoints pt 7 title p.': steady (SMPI)', \
     for [p in "figure2-scatter figure6-reduce hetero6-scatter hetero6-reduce"] \
       rows(p, 'steady') using 4:($8/$7) with lines dt 2 title p.': steady (time model)', \
     for [p in "figure2-scatter hetero6-scatter"] \
       rows(p, 'naive-direct') using 4:($6/$7) with linespoints pt 5 title p.': direct sends', \
     for [p in "figure6-reduce hetero6-reduce"] \
       rows(p, 'naive-MPI_Reduce') using 4:($6/$7) with linespoints pt 9 title p.': MPI_Reduce binomial', \
     1 with lines lw 2 lc rgb 'black' title 'TP'
