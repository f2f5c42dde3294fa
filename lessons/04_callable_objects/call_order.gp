# Lesson 04: the module call protocol as it ran, one row per call, one box per step.
# Variables (set by the program with gnuplot -e):
#   datafile  out/04_call_order.csv: call,step,who,kind (call module_call or module_forward;
#             kind pre-hook, forward or hook),
#             the steps in the order the run took them
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output; 0: a PNG
#   scriptdir this folder
set datafile separator comma
if (dumb) {
    set terminal dumb size 100,20 ansi
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 1100,420 font ",10"
    } else {
        set terminal png size 1100,420
    }
    set output outfile
}
set title title noenhanced
stats datafile skip 1 using 2 nooutput
steps = STATS_max
set xrange [0.4 : steps + 0.6]
set yrange [-0.8 : 1.8]
set xtics 1 nomirror
set xlabel "step, in the order the run took it"
set ytics ("module\\_forward(fc1, x)\ncalled directly" 0, "module\\_call(fc1, x)\ni.e. fc1(x)" 1)
unset key
set ytics nomirror
set border 1
set style fill solid 0.9 border lc rgb "black"
row(c) = c eq "module_call" ? 1 : 0
colour(k) = k eq "pre-hook" ? 0x4477aa : k eq "forward" ? 0x228833 : 0xee6677
# "forward hook C (may replace the output)" on two lines, at the parenthesis.
cut(s) = strstrt(s, " (") > 0 ? s[1:strstrt(s, " (") - 1] . "\n" . s[strstrt(s, " (") + 1:] : s
plot datafile skip 1 using 2:(row(strcol(1))):(0.42):(0.3):(colour(strcol(4))) with boxxyerror lc rgb variable, \
     '' skip 1 using 2:(row(strcol(1))):(cut(strcol(3))) with labels font ",9" textcolor rgb "white" noenhanced, \
     '' skip 1 using 2:(row(strcol(1)) - 0.42):(strcol(4)) with labels font ",9" noenhanced, \
     '' skip 1 using ($2 > 1 ? $2 - 0.58 : NaN):(row(strcol(1))):(0.16):(0) with vectors head filled size 0.08,20 lc rgb "gray40"
