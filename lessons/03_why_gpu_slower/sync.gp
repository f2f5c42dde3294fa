# demo-sync: training time with the loss read back every N epochs, over the
# time of the run that never reads it, one line per device; the bars span the
# fastest to the slowest run of each row (the noise a difference must beat).
# Variables (set by the program with gnuplot -e):
#   datafile  out/03_sync.csv: device,every,syncs,seconds,extra_seconds,ratio,final_loss,
#             min_seconds,max_seconds,runs (every = 0 is the run that never reads;
#             seconds is the median of the runs, ratio = seconds / never's seconds)
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output; 0: a PNG
#   scriptdir this folder, for terminal.gp
load scriptdir."terminal.gp"
set datafile separator comma
set title title
set xlabel "read the loss back every N epochs"
set ylabel "time / time never reading (median, runs' range)"
set logscale x
set yrange [0:*]
set key top right
cpu(c) = strcol(1) eq "cpu" && $2 > 0 ? c : NaN
gpu(c) = strcol(1) ne "cpu" && $2 > 0 ? c : NaN
plot datafile skip 1 using (cpu($2)):6:($8 / $4 * $6):($9 / $4 * $6) with yerrorlines \
          linewidth 2 pointtype 7 title "CPU", \
     '' skip 1 using (gpu($2)):6:($8 / $4 * $6):($9 / $4 * $6) with yerrorlines \
          linewidth 2 pointtype 5 title "GPU", \
     1 with lines dashtype 2 linecolor "gray" title "never reading"
