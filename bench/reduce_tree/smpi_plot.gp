# gnuplot -e "csv='docs/results/reduce_smpi.csv'; png='docs/results/reduce_smpi.png'" smpi_plot.gp
# The d = c rows of the SMPI run: every variant's simulated time over d (points) against the model's
# schedule length over d (lines), as a function of the number of ranks.
set terminal pngcairo size 1000,540 noenhanced
set output png
set title 'TreeReducer under SimGrid SMPI (64-host cluster, 1 MiB messages, d = c)'
set xlabel 'ranks n'
set ylabel 'reduction time / d'
set logscale x 2
set xrange [1.8:70]
set yrange [0:26]
set key top left box opaque font ',9'
set grid
set datafile separator ','
rows(v) = sprintf("< awk -F, 'NR > 1 && $5 == \"%s\" && $4 > 0.99 * $3 && $4 < 1.01 * $3' %s", v, csv)
plot rows('tree-greedy') using 1:($6/$3) with lines lw 2 lc rgb '#1f77b4' title 'model: greedy tree (optimal, Algorithm 1)', \
     rows('tree-greedy') using 1:($7/$3) with points pt 7 ps 1.2 lc rgb '#1f77b4' title 'TreeReducer, greedy tree', \
     rows('tree-fibonacci') using 1:($7/$3) with points pt 1 ps 2 lc rgb '#9467bd' title 'TreeReducer, Fibonacci tree', \
     rows('tree-binomial') using 1:($6/$3) with lines lw 2 lc rgb '#2ca02c' title 'model: binomial strategy', \
     rows('tree-binomial') using 1:($7/$3) with points pt 5 ps 1.2 lc rgb '#2ca02c' title 'TreeReducer, binomial tree', \
     rows('tree-greedy-no-prefetch') using 1:($6/$3) with lines dt 2 lw 2 lc rgb '#ff7f0e' title 'model: greedy tree, combine before receiving the next input', \
     rows('tree-greedy-no-prefetch') using 1:($7/$3) with points pt 6 ps 1.2 lc rgb '#ff7f0e' title 'greedy tree without prefetch', \
     rows('MPI_Reduce') using 1:($7/$3) with linespoints pt 13 ps 1.3 lc rgb '#d62728' title 'MPI_Reduce, same operator (SMPI, ompi selector)'
