# demo-copy: bandwidth against copy size, for a CPU memcpy and for copies to
# the GPU from pageable and from pinned memory.
# Variables (set by the program with gnuplot -e):
#   datafile  out/03_copy.csv: bytes,cpu_memcpy_gbps,pageable_gbps,pinned_gbps,...
#             (nan where the GPU half was skipped)
#   outfile   the PNG to write (when dumb = 0)
#   title     the chart's title
#   dumb      1: a text plot on standard output; 0: a PNG
#   scriptdir this folder, for terminal.gp
load scriptdir."terminal.gp"
set datafile separator comma
set title title
set xlabel "bytes per copy"
set ylabel "GB/s"
set logscale xy
set format x "%.0s%cB"
set key top left
plot datafile skip 1 using 1:2 with linespoints linewidth 2 pointtype 7 title "CPU memcpy", \
     '' skip 1 using 1:3 with linespoints linewidth 2 pointtype 5 title "to GPU, pageable", \
     '' skip 1 using 1:4 with linespoints linewidth 2 pointtype 9 title "to GPU, pinned"
