/**
 * @file numtext.h
 * @brief Numbers as they are written: what a decimal literal says before it is rounded.
 *
 * A parser that converts text to a double has rounded it by the time a reader
 * checks it: `10.000000000000000000001` is 10.0, `1e-400` is 0, `-0` is 0. The
 * readers of configs, checkpoints and CSV files check the literal itself with
 * numtext_scan(): whether it is hexadecimal, whether any of its digits is not 0
 * (so that a value that became 0 underflowed), whether its exact value is a whole
 * number, and that whole number when it fits in an int64_t.
 */
#ifndef WB_NUMTEXT_H
#define WB_NUMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** What a number literal says, exactly (numtext_scan()). */
typedef struct NumText {
    bool negative; /**< it starts with '-' (`-0` included) */
    bool hex;      /**< it is hexadecimal (`0x1p1`); the fields below are then not set */
    bool nonzero;  /**< a digit of it is not 0: its exact value is not 0 */
    bool whole;    /**< its exact value is a whole number (`10`, `10.0`, `1e1`, `1.5e1`) */
    bool fits;     /**< whole, and from INT64_MIN to INT64_MAX: @ref value holds it */
    int64_t value; /**< the whole number, when @ref fits */
} NumText;

/**
 * @brief Read @p s (@p len bytes, no terminator needed) as one number literal.
 *
 * A decimal literal is an optional sign, digits with an optional decimal point
 * (`12`, `1.5`, `.5`, `5.`: at least one digit), and an optional exponent (`e`
 * or `E`, an optional sign, digits); nothing else, no blanks. A hexadecimal one is
 * what strtod() reads after `0x` or `0X` (after an optional sign): @p out->hex is
 * set and the literal is accepted so that the caller can refuse it by name.
 * Exponents of any size are read (`1e999999999999` is a whole number far beyond
 * int64_t; `1e-999999999999` is not whole). Returns false, with @p *out zeroed,
 * for anything else (`inf`, `nan`, `1x`, an empty text).
 */
bool numtext_scan(const char *s, size_t len, NumText *out);

#endif /* WB_NUMTEXT_H */
