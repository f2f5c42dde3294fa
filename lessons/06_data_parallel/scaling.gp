# Lesson 06: scaling efficiency against the number of ranks, from 06_scaling.dat.
# Variables (set by the program with gnuplot -e):
#   datafile  06_scaling.dat: world small_efficiency wide_efficiency
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output; 0: a PNG
#   scriptdir this folder
if (dumb) {
    set terminal dumb size 90,22 ansi
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 900,560 font ",10"
    } else {
        set terminal png size 900,560
    }
    set output outfile
    set grid
}
set title title noenhanced
set xlabel "ranks (ranks beyond the machine's cores take turns on them: see the table)"
set ylabel "efficiency (1 = perfect)"
set xrange [0.5:4.5]
set yrange [0:1.2]
set xtics (1, 2, 4)
set key bottom left
plot datafile using 1:3 with linespoints pointtype 7 title "wide model", \
     '' using 1:2 with linespoints pointtype 5 title "small model (Iris)", \
     1 with lines dashtype 2 title "perfect"
