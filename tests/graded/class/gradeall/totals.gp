# The class report's distribution of totals (tests/graded/class/gradeall/report.py).
# Variables (gnuplot -e): datafile (lines "LOW HIGH COUNT": the submissions whose total,
# in % of the maximum, is in [LOW, HIGH)), outfile (the PNG), title.
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 900,420 font ",11"
} else {
    set terminal png size 900,420
}
set output outfile
set title title
set xlabel "total, % of the maximum"
set ylabel "submissions"
set xrange [0:110]
set yrange [0:*]
set xtics 0,10,100
stats datafile using 3 nooutput
if (STATS_max <= 10) { set ytics 1 }
set grid ytics
set key off
set style fill solid 0.8 border -1
plot datafile using (($1 + $2) / 2):3:($2 - $1) with boxes linecolor rgb "#3b6ea5"
