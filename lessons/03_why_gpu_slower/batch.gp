# demo-batch: total time for all inputs against the chunk size, per device.
# Variables (set by the program with gnuplot -e):
#   datafile  out/03_batch.csv: device,chunk,calls,launches,seconds,ratio,max_diff,
#             min_seconds,max_seconds,runs (seconds: the median of the runs)
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output; 0: a PNG
#   scriptdir this folder, for terminal.gp
# device is "cpu" (OpenBLAS), "cpu-loops" (exercise 01.2's loops) or the GPU's label.
load scriptdir."terminal.gp"
set datafile separator comma
set title title
set xlabel "inputs per call (chunk size)"
set ylabel "seconds for all inputs (median)"
set logscale xy
set key top right
blas(c)  = strcol(1) eq "cpu" ? c : NaN
loops(c) = strcol(1) eq "cpu-loops" ? c : NaN
gpu(c)   = strcol(1) ne "cpu" && strcol(1) ne "cpu-loops" ? c : NaN
plot datafile skip 1 using (blas($2)):5 with linespoints linewidth 2 pointtype 7 title "CPU, OpenBLAS", \
     '' skip 1 using (loops($2)):5 with linespoints linewidth 2 pointtype 9 title "CPU, our loops", \
     '' skip 1 using (gpu($2)):5 with linespoints linewidth 2 pointtype 5 title "GPU"
