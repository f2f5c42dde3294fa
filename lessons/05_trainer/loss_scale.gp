# Lesson 05: mixed precision from the trainer's history (metrics.csv of a float16 run
# with a GradScaler): the losses, and the loss scale with the skipped steps marked.
# Variables (gnuplot -e):
#   datafile  metrics.csv: epoch,train_loss,val_loss,val_acc,lr,loss_scale,seconds,skipped
#             (loss_scale: the scale after the epoch's last step; skipped: the steps of the
#             epoch the scaler skipped because a gradient was inf or NaN)
#   outfile   the PNG to write
#   title     the chart's title
set datafile separator comma
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1100,440 font ",10"
} else {
    set terminal png size 1100,440
}
set output outfile
set grid
stats datafile skip 1 using 8 nooutput
skipped = STATS_sum
set multiplot layout 1,2 title title noenhanced
set xlabel "epoch"
set xtics 1
set title "training and validation loss"
set key top right
plot datafile skip 1 using 1:2 with linespoints pointtype 7 title "train", \
     '' skip 1 using 1:3 with linespoints pointtype 5 title "validation"
set title sprintf("loss scale; skipped steps marked (%d in all)", skipped)
set logscale y 2
set ylabel "loss scale (after the epoch's last step)"
set key top right
stats datafile skip 1 using 6 nooutput
set yrange [STATS_min / 2 : STATS_max * 2]
plot datafile skip 1 using 1:6 with linespoints pointtype 7 title "scale", \
     '' skip 1 using 1:($8 > 0 ? $6 : NaN) with points pointtype 6 pointsize 3 lc rgb "red" title "epoch with skipped steps", \
     '' skip 1 using 1:($8 > 0 ? $6 : NaN):(sprintf("%d skipped", $8)) with labels offset 0,1.5 notitle
unset multiplot
