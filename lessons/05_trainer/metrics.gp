# Lesson 05: the trainer's history, four panels from metrics.csv.
# Variables (set by the program with gnuplot -e):
#   datafile  metrics.csv: epoch,train_loss,val_loss,val_acc,lr,loss_scale,seconds,skipped
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output (the losses only); 0: a PNG
#   scriptdir this folder
set datafile separator comma
if (dumb) {
    set terminal dumb size 100,24 ansi
    set title title noenhanced
    set xlabel "epoch"
    set key top right
    plot datafile skip 1 using 1:2 with lines title "train loss", \
         '' skip 1 using 1:3 with lines title "val loss"
    exit
}
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1100,760 font ",10"
} else {
    set terminal png size 1100,760
}
set output outfile
set grid
set multiplot layout 2,2 title title
set xlabel "epoch"
set key top right
set title "loss"
plot datafile skip 1 using 1:2 with linespoints pointtype 7 title "train", \
     '' skip 1 using 1:3 with linespoints pointtype 5 title "validation"
set title "validation accuracy"
set key off
set yrange [0:1]
plot datafile skip 1 using 1:4 with linespoints pointtype 7
set yrange [*:*]
set title "learning rate"
plot datafile skip 1 using 1:5 with linespoints pointtype 7
set title "loss scale (GradScaler; 1 without one)"
set logscale y 2
# Without a GradScaler the scale is 1 every epoch: gnuplot cannot make a range of one
# value, so give it a factor of 2 either side (else it warns and picks one itself).
stats datafile skip 1 using 6 nooutput
if (STATS_min == STATS_max) { set yrange [STATS_min / 2.0 : STATS_max * 2.0] }
plot datafile skip 1 using 1:6 with linespoints pointtype 7
unset multiplot
