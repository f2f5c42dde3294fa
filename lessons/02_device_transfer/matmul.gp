# Lesson 02: an N x N matrix product's time against N, on the CPU and the GPU.
# Variables (set by the program with gnuplot -e):
#   datafile  out/02_matmul.csv: device,n,seconds,gflops (device cpu or gpu)
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title (it says when there is no GPU, or the simulator)
#   dumb      1: a text plot on standard output; 0: a PNG
#   scriptdir this folder
set datafile separator comma
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
set xlabel "N (the product of two N x N matrices)"
set ylabel "seconds (fastest of 3, synchronized)"
set logscale xy 2
set format y "%.0e"
set logscale y 10
set key top left
cpu(c) = strcol(1) eq "cpu" ? c : NaN
gpu(c) = strcol(1) eq "gpu" ? c : NaN
# A GPU line only when the file has GPU rows (gnuplot refuses a plot with no points).
stats datafile skip 1 using (strcol(1) eq "gpu" ? 1 : 0) nooutput
if (STATS_sum > 0) {
    plot datafile skip 1 using (cpu($2)):3 with linespoints linewidth 2 pointtype 7 title "CPU (OpenBLAS)", \
         '' skip 1 using (gpu($2)):3 with linespoints linewidth 2 pointtype 5 title "GPU (cuBLAS)"
} else {
    plot datafile skip 1 using (cpu($2)):3 with linespoints linewidth 2 pointtype 7 title "CPU (OpenBLAS)"
}
