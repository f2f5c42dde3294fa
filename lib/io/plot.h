/**
 * @file plot.h
 * @brief Drawing the lessons' charts with gnuplot.
 *
 * Each chart is a gnuplot script beside its lesson. A program writes a data
 * file, then plot_draw() runs the script with five variables set:
 * `datafile`, `outfile`, `title`, `dumb` (1 for a text plot on standard
 * output, 0 for a PNG at `outfile`) and `scriptdir` (the script's folder
 * with its trailing slash, to `load` a shared part from). A class over SSH sees the text plot; the
 * PNG goes to `out/`. Without gnuplot the lesson says so in one line and
 * keeps the data file.
 */
#ifndef WB_PLOT_H
#define WB_PLOT_H

#include <stdbool.h>

#include "lib/core/err.h"

/** @brief True when a `gnuplot` executable is on the PATH. */
bool plot_available(void);

/**
 * @brief Run gnuplot on @p script for @p datafile.
 *
 * With @p outfile a PNG is written there; with @p outfile NULL a `dumb`
 * (text) plot goes to standard output. Any text may be given (a title such
 * as "the trainer's history": quotes are escaped for gnuplot) but a line
 * break, which is an ::ERR_ARG. The script and the data file must be regular
 * files (fileio_open_read(): a FIFO would stop gnuplot for ever); the PNG is
 * saved with fileio_save(): gnuplot writes it to a new temporary file, which
 * replaces @p outfile only when gnuplot succeeded, and a link, FIFO or device at
 * @p outfile is refused. Returns ::ERR_UNSUPPORTED when gnuplot is missing and
 * ::ERR_IO when it fails.
 */
WB_MUST_CHECK int plot_draw(const char *script, const char *datafile, const char *outfile, const char *title);

#endif /* WB_PLOT_H */
