# gnuplot -e "csv='docs/results/adaptive_bcast.csv'; png='docs/results/adaptive_bcast.png'" plot.gp
# Median broadcast time of each variant over the message size, one panel per rank count.
set terminal pngcairo size 1100,480 noenhanced
set output png
set datafile separator ','
set logscale xy
set xlabel 'message size (bytes)'
set ylabel 'median time (s), slowest rank'
set grid
set key top left font ',9'
rows(n, v) = sprintf("< awk -F, 'NR > 1 && $1 == %d && $3 == \"%s\"' %s", n, v, csv)
set multiplot layout 1,2 title 'AdaptiveBroadcast (Table 1 of Steffenel from measured pLogP, calibrated against MPI_Bcast) vs MPI_Bcast'
do for [n in "2 4"] {
  set title sprintf('%s ranks (shared-memory, 2 cores)', n)
  plot rows(n+0, 'adaptive') using 2:7 with linespoints lw 2 pt 7 title 'adaptive (calibrated: plan or MPI_Bcast)', \
       rows(n+0, 'model') using 2:7 with linespoints pt 9 title 'model choice alone', \
       rows(n+0, 'adaptive') using 2:6 with lines dt 2 lw 1 title 'adaptive: pLogP prediction', \
       rows(n+0, 'binomial') using 2:7 with linespoints pt 4 title 'binomial', \
       rows(n+0, 'segmented-chain') using 2:7 with linespoints pt 6 title 'segmented chain (model segment)', \
       rows(n+0, 'scatter-collect') using 2:7 with linespoints pt 8 title 'scatter/collection', \
       rows(n+0, 'MPI_Bcast') using 2:7 with linespoints lw 2 pt 5 title 'MPI_Bcast (Open MPI)'
}
unset multiplot
