# The class report's pass rate of every exercise (tests/graded/class/gradeall/report.py).
# Variables (gnuplot -e): datafile (lines "INDEX EXERCISE PERCENT": the share of graded
# submissions that pass every check of the exercise), outfile (the PNG), title.
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 900,420 font ",11"
} else {
    set terminal png size 900,420
}
set output outfile
set title title
set ylabel "% of submissions passing every check"
set yrange [0:105]
set ytics 0,20,100
set xtics rotate by -45
set grid ytics
set key off
set boxwidth 0.7
set style fill solid 0.8 border -1
plot datafile using 1:3:xtic(2) with boxes linecolor rgb "#4a8f4a"
