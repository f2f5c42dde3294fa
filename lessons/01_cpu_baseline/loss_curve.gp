# Loss curve of Lesson 01.
# Variables (set by the program with gnuplot -e):
#   datafile  two columns: epoch, training loss
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output; 0: a PNG
if (dumb) {
    set terminal dumb size 79,22 ansi
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 900,540 font ",11"
    } else {
        set terminal png size 900,540
    }
    set output outfile
    set grid
}
set title title noenhanced
set xlabel "Epoch"
set ylabel "Loss"
set key off
set yrange [0:*]
plot datafile using 1:2 with lines linewidth 2
