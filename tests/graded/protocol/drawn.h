/*
 * drawn.h: inputs drawn for one grading run, the same in the runner and the judge.
 *
 * The fixed inputs of a graded case are public (tests/fixtures, the suites), so a
 * function that recognised them and returned answers stored in advance would
 * pass them. The numeric exercises therefore also meet, in every one of their
 * cases, inputs drawn from this grading run's seed (grade_seed(), protocol.h:
 * the judge draws it, the runner inherits it): their shapes and values exist
 * only for this run, and the judge checks the outputs against a formula it
 * computes itself. Both halves call drawn_start() with the same name and draw
 * in the same order, so they see the same inputs without sending them.
 *
 * The values are small multiples of a power of two, so that sums and products
 * of a few of them are exact in float and a correct answer never depends on the
 * order of its additions.
 */
#ifndef WB_GRADED_DRAWN_H
#define WB_GRADED_DRAWN_H

#include <stdint.h>
#include <stdio.h>

#include "protocol.h"

typedef struct Drawn {
    uint64_t state;
} Drawn;

/* splitmix64: one step. */
static inline uint64_t drawn_next(Drawn *d)
{
    uint64_t z = (d->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The stream of the inputs named @p what in this grading run (0 when the
 * seed is missing: the RUN and JUDGE halves then fail on their own). */
static inline Drawn drawn_start(const char *what)
{
    uint64_t h = 0xCBF29CE484222325ull; /* FNV-1a of the name */
    for (const char *p = what; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001B3ull;
    Drawn d = {grade_seed() ^ h};
    drawn_next(&d);
    return d;
}

/* An integer in [lo, hi]. */
static inline int64_t drawn_int(Drawn *d, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(drawn_next(d) % (uint64_t)(hi - lo + 1));
}

/* k / 2^shift for an integer k with |k / 2^shift| < range (range a power of two). */
static inline float drawn_value(Drawn *d, int range, int shift)
{
    int64_t span = (int64_t)range << shift;
    return (float)(drawn_int(d, -span, span - 1)) / (float)(1 << shift);
}

/* A sentence for graded_note: which drawn inputs a failure is about, and how to
 * meet them again. */
static inline const char *drawn_note(const char *shape)
{
    static char note[320];
    snprintf(note, sizeof note,
             "on inputs drawn for this grading run (%s); GRADE_SEED=%llu make grade "
             "draws the same ones again",
             shape, (unsigned long long)grade_seed());
    return note;
}

#endif
