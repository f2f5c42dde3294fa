/* graded.c: the helpers of graded.h. */
#include "graded.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/err.h"

const char *graded_note;

#define GUARD 16
#define GUARD_BITS 0x7fc0dead /* a quiet NaN nobody computes by accident */

void expect_ok(int rc, const char *function)
{
    if (rc == ERR_OK) return;
    if (rc == ERR_TODO)
        ck_abort_msg("%s is not written yet (it still returns the stub's exercise_todo)",
                     function);
    ck_abort_msg("%s returned %d; return 0 when it has done its work", function, rc);
}

static int off(double got, double want, double atol, double rtol)
{
    if (isnan(want)) return !isnan(got);
    if (!isfinite(got)) return 1;
    return fabs(got - want) > atol + rtol * fabs(want);
}

void expect_close_2d(const char *what, const float *got, const float *want, int64_t rows,
                     int64_t cols, double atol, double rtol)
{
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            double g = got[i + j * rows], w = want[i + j * rows];
            if (off(g, w, atol, rtol))
                ck_abort_msg("%s(%lld, %lld) is %.7g but should be %.7g (tolerance %.2g; %s is "
                             "(%lld, %lld), element (i, j) at [i + j * %lld])%s%s",
                             what, (long long)i, (long long)j, g, w, atol + rtol * fabs(w), what,
                             (long long)rows, (long long)cols, (long long)rows,
                             graded_note ? ": " : "", graded_note ? graded_note : "");
        }
}

void expect_close_1d(const char *what, const float *got, const float *want, int64_t n,
                     double atol, double rtol)
{
    for (int64_t i = 0; i < n; i++)
        if (off(got[i], want[i], atol, rtol))
            ck_abort_msg("%s[%lld] is %.7g but should be %.7g (tolerance %.2g; %lld values)%s%s",
                         what, (long long)i, (double)got[i], (double)want[i],
                         atol + rtol * fabs((double)want[i]), (long long)n,
                         graded_note ? ": " : "", graded_note ? graded_note : "");
}

void expect_unchanged(const char *what, const float *now, const float *before, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (memcmp(&now[i], &before[i], sizeof(float)) != 0)
            ck_abort_msg("the input %s was changed at [%lld] (%.7g became %.7g): it must only be "
                         "read",
                         what, (long long)i, (double)before[i], (double)now[i]);
}

static float guard_value(void)
{
    float f;
    unsigned int bits = GUARD_BITS;
    memcpy(&f, &bits, sizeof f);
    return f;
}

float *guarded_new(int64_t n, float fill)
{
    /* layout: [n as int64][GUARD floats][n floats][GUARD floats] */
    char *raw = malloc(sizeof(int64_t) + (size_t)(n + 2 * GUARD) * sizeof(float));
    ck_assert_ptr_nonnull(raw);
    memcpy(raw, &n, sizeof n);
    float *p = (float *)(raw + sizeof(int64_t)) + GUARD;
    for (int64_t i = -GUARD; i < n + GUARD; i++) p[i] = (i < 0 || i >= n) ? guard_value() : fill;
    return p;
}

void guarded_check(const float *p, const char *what)
{
    int64_t n;
    memcpy(&n, (const char *)(p - GUARD) - sizeof(int64_t), sizeof n);
    float g = guard_value();
    for (int64_t i = 1; i <= GUARD; i++) {
        if (memcmp(&p[-i], &g, sizeof g) != 0)
            ck_abort_msg("wrote outside %s: the float %lld before its first element was changed "
                         "(an index below 0?)",
                         what, (long long)i);
        if (memcmp(&p[n - 1 + i], &g, sizeof g) != 0)
            ck_abort_msg("wrote outside %s: the float %lld after its last element was changed "
                         "(%s has %lld values; an off-by-one or a wrong stride?)",
                         what, (long long)i, what, (long long)n);
    }
}

void guarded_free(float *p)
{
    if (p) free((char *)(p - GUARD) - sizeof(int64_t));
}
