# One warp's addresses against sectors and banks (docs/simulator.md), drawn from
# what docs/warp_access.cu wrote:
#   gnuplot -e "datafile='DIR/warp_sectors.dat'; outfile='X.png'; title='...'" docs/warp_access.gp
# (warp_banks.dat for the banks). Each block of the data file is one kernel, its
# title (with the profiler's count) on its first line.
set terminal pngcairo size 1100,420 font ",10"
set output outfile
which = strstrt(datafile, "banks") ? "banks" : "sectors"
set key top left Left reverse samplen 0 font ",9"
if (which eq "sectors") {
    set multiplot layout 1,4 title "One warp's 32 float loads against 32-byte sectors (a sector: a band between two lines)"
    set xlabel "lane"
    set xrange [-1:32]
    set ytics 32
    set grid ytics linetype 1 linecolor rgb "#888888"
    set yrange [-4:260]
    set ylabel "byte of the buffer"
    do for [i=0:3] {
        plot datafile index i using 1:2 title columnheader(1) with points pointtype 7 pointsize 0.8
        set title ""
        unset ylabel
    }
    unset multiplot
} else {
    set multiplot layout 1,2 title "One warp reading a column of a shared tile: each point a lane's word; the tallest pile is the wavefronts"
    set xlabel "bank"
    set ylabel "word of the bank (from the tile's start)"
    set xrange [-1:32]
    set yrange [-1:33]
    set xtics 4
    do for [i=0:1] {
        plot datafile index i using 2:3 title columnheader(1) with points pointtype 7 pointsize 0.8
    }
    unset multiplot
}
