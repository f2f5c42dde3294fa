# The terminal every chart of Lesson 03 uses: a text plot on standard output
# when dumb is 1, else a PNG at outfile.
if (dumb) {
    set terminal dumb size 100,26 ansi
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 1000,560 font ",11"
    } else {
        set terminal png size 1000,560
    }
    set output outfile
    set grid
}
