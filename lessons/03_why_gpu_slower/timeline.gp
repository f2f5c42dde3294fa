# demo-timeline: two lanes, CPU and GPU, for each logging habit, one panel each.
# Variables (set by the program with gnuplot -e):
#   datafile  out/03_timeline.csv: habit,lane,kind,name,start_us,end_us
#             habit "loss read every epoch" or "loss never read"; lane CPU or GPU;
#             kind launch, kernel, copy_h2d, copy_d2h, sync or mark
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output; 0: a PNG
#   scriptdir this folder
set datafile separator comma
if (dumb) {
    set terminal dumb size 100,30 ansi
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 1100,620 font ",10"
    } else {
        set terminal png size 1100,620
    }
    set output outfile
    set grid x
}
habit_of(h) = h eq "every" ? "loss read every epoch" : "loss never read"
# Each panel's totals (before any range is set: stats keeps only points inside them):
# how long it ran, the CPU's waits (syncs and reads of the loss), the GPU's work.
do for [h in "every never"] {
    habit = habit_of(h)
    stats datafile skip 1 using (strcol(1) eq habit && strcol(2) eq "CPU" && \
        (strcol(3) eq "sync" || strcol(3) eq "copy_d2h") ? ($6 - $5) / 1000.0 : 0) nooutput
    eval sprintf("wait_%s = STATS_sum", h)
    stats datafile skip 1 using (strcol(1) eq habit && strcol(2) eq "GPU" ? ($6 - $5) / 1000.0 : 0) nooutput
    eval sprintf("busy_%s = STATS_sum", h)
    stats datafile skip 1 using (strcol(1) eq habit ? $6 / 1000.0 : 0) nooutput
    eval sprintf("span_%s = STATS_max", h)
}
# Both panels on one time axis, so the two habits compare at a glance.
stats datafile skip 1 using 6 nooutput
tmax = STATS_max / 1000.0
set xrange [0 : tmax * 1.02]
set yrange [-0.7 : 1.7]
set ytics ("GPU" 0, "CPU" 1)
set xlabel "milliseconds since the first recorded event"
set style fill solid 0.85 border
lane(s) = s eq "CPU" ? 1 : 0
# A box of kind k of habit h: its middle, lane, ends (ms) and height; NaN for other rows.
is(h, k) = strcol(1) eq h && strcol(3) eq k
mid(h, k) = is(h, k) ? (column(5) + column(6)) / 2000.0 : NaN
y0 = 0.3
set multiplot layout 2,1 title title noenhanced
do for [h in "every never"] {
    habit = habit_of(h)
    set title sprintf("%s: %.3f ms; the CPU waited %.3f ms, the GPU worked %.3f ms", habit, \
                      value("span_".h), value("wait_".h), value("busy_".h)) noenhanced
    set key outside right top vertical
    plot for [k in "launch kernel copy_h2d copy_d2h sync"] datafile skip 1 \
             using (mid(habit, k)):(lane(strcol(2))):($5 / 1000.0):($6 / 1000.0):(lane(strcol(2)) - y0):(lane(strcol(2)) + y0) \
             with boxxyerror lc rgb (k eq "launch" ? "#4477aa" : k eq "kernel" ? "#228833" : k eq "copy_h2d" ? "#ccbb44" : k eq "copy_d2h" ? "#ee6677" : "#aa3377") \
             title (k eq "launch" ? "launch (CPU)" : k eq "kernel" ? "kernel (GPU)" : k eq "copy_h2d" ? "copy to GPU" : k eq "copy_d2h" ? "loss.item(): wait + copy" : "sync: CPU waits"), \
         datafile skip 1 using (is(habit, "mark") ? $5 / 1000.0 : NaN):(1.45):(strcol(4)) with labels left offset 0.3,0 notitle, \
         datafile skip 1 using (is(habit, "mark") ? $5 / 1000.0 : NaN):(-0.6):(0):(2.2) with vectors nohead dashtype 2 lc rgb "gray" notitle
}
unset multiplot
