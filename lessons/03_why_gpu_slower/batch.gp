# demo-batch: total time for all inputs against the chunk size, per device.
# Variables (set by the program with gnuplot -e):
#   datafile  out/03_batch.csv: device,chunk,calls,launches,seconds,ratio,max_diff
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output; 0: a PNG
#   scriptdir this folder, for terminal.gp
load scriptdir."terminal.gp"
set datafile separator comma
set title title
set xlabel "inputs per call (chunk size)"
set ylabel "seconds for all inputs"
set logscale xy
set key top right
cpu(c) = strcol(1) eq "cpu" ? c : NaN
gpu(c) = strcol(1) ne "cpu" ? c : NaN
plot datafile skip 1 using (cpu($2)):5 with linespoints linewidth 2 pointtype 7 title "CPU", \
     '' skip 1 using (gpu($2)):5 with linespoints linewidth 2 pointtype 5 title "GPU"
