# demo-launch and demo-fused: the time of each operation or each way, as a
# dot chart on a log scale (the times span several orders of magnitude).
# Variables (set by the program with gnuplot -e):
#   datafile  out/03_launch.csv or out/03_fused.csv: what,device,seconds,...
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output; 0: a PNG
#   scriptdir this folder, for terminal.gp
load scriptdir."terminal.gp"
set datafile separator comma
set title title
set xlabel "seconds (log scale)"
set logscale x
set key off
# Ranges from the data, with room around the dots (a single dot is fine too).
stats datafile skip 1 using 3 nooutput
set xrange [STATS_min / 3 : STATS_max * 3]
set yrange [-0.5 : STATS_records - 0.5] reverse
plot datafile skip 1 using 3:0:ytic(sprintf("%s (%s)", strcol(1), strcol(2))) \
     with points pointtype 7 pointsize 1.5
