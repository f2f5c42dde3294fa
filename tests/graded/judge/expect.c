/*
 * expect.c: what a JUDGE half calls (judge.h): the records of the case being judged,
 * which judge.c has read from the runner and the reference file (case_records.h), and
 * the comparisons that fail the case with a message naming the first value that is off.
 */
#include "judge.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../protocol/protocol.h"
#include "case_records.h"
#include "lib/core/err.h"

RecordSet got_set, ref_set;
const char *graded_note;

static const Record *find(const RecordSet *s, const char *name, RecordKind kind, int is_ref)
{
    const Record *r = records_find(s, name);
    if (!r)
        ck_abort_msg(is_ref ? "grader: the reference run recorded no %s (rebuild with make grade)"
                            : "the test stopped before it recorded %s (did the code return "
                              "early, or crash?)",
                     name);
    if (r->kind != kind) ck_abort_msg("grader: %s was recorded as another kind of value", name);
    return r;
}

int got_has(const char *name)
{
    return records_find(&got_set, name) != NULL;
}
int64_t got_i64(const char *name)
{
    return find(&got_set, name, REC_I64, 0)->i64;
}
double got_f64(const char *name)
{
    return find(&got_set, name, REC_F64, 0)->f64;
}
int64_t ref_i64(const char *name)
{
    return find(&ref_set, name, REC_I64, 1)->i64;
}
double ref_f64(const char *name)
{
    return find(&ref_set, name, REC_F64, 1)->f64;
}

const char *got_str(const char *name)
{
    const Record *r = records_find(&got_set, name);
    if (!r) return "";
    if (r->kind != REC_STR) ck_abort_msg("grader: %s was recorded as another kind of value", name);
    return r->str;
}

static const float *floats(const RecordSet *s, const char *name, int64_t *n, int64_t want,
                           int is_ref)
{
    const Record *r = find(s, name, REC_F32S, is_ref);
    if (want >= 0 && r->n != want)
        ck_abort_msg("%s has %lld value%s, expected %lld", name, (long long)r->n,
                     r->n == 1 ? "" : "s", (long long)want);
    if (n) *n = r->n;
    static const float none = 0;
    return r->f32 ? r->f32 : &none;
}

const float *got_f32(const char *name, int64_t n)
{
    return floats(&got_set, name, NULL, n, 0);
}
const float *got_f32_n(const char *name, int64_t *n)
{
    return floats(&got_set, name, n, -1, 0);
}
const float *ref_f32(const char *name, int64_t n)
{
    return floats(&ref_set, name, NULL, n, 1);
}
const float *ref_f32_n(const char *name, int64_t *n)
{
    return floats(&ref_set, name, n, -1, 1);
}

int got_rc(const char *name)
{
    return (int)got_i64(name);
}
int got_rc_code(const char *name)
{
    return (int)got_i64(key("%s.code", name));
}
const char *got_rc_msg(const char *name)
{
    return got_str(key("%s.msg", name));
}

void expect_written(const char *name, const char *function)
{
    if (got_rc(name) == ERR_TODO && got_rc_code(name) == ERR_TODO)
        ck_abort_msg("%s is not written yet (it still returns the stub's exercise_todo)", function);
}

void expect_ok(const char *name, const char *function)
{
    int rc = got_rc(name);
    if (rc == ERR_OK) return;
    expect_written(name, function);
    const char *msg = got_rc_msg(name);
    ck_abort_msg("%s returned %d; return 0 when it has done its work%s%s", function, rc,
                 *msg ? " (its message: " : "", *msg ? msg : "");
}

const float *got_guarded(const char *name, const char *what, int64_t n)
{
    const float *p = got_f32(name, n + 2 * GUARD) + GUARD;
    for (int i = 1; i <= GUARD; i++) {
        float g = guard_float(i);
        if (memcmp(&p[-i], &g, sizeof g) != 0)
            ck_abort_msg("wrote outside %s: the float %lld before its first element was changed "
                         "(an index below 0?)",
                         what, (long long)i);
        if (memcmp(&p[n - 1 + i], &g, sizeof g) != 0)
            ck_abort_msg("wrote outside %s: the float %lld after its last element was changed "
                         "(%s has %lld value%s; an off-by-one or a wrong stride?)",
                         what, (long long)i, what, (long long)n, n == 1 ? "" : "s");
    }
    return p;
}

static int off(double got, double want, double atol, double rtol)
{
    if (isnan(want)) return !isnan(got);
    if (!isfinite(got)) return 1;
    if (isinf(want)) return got != want;
    return fabs(got - want) > atol + rtol * fabs(want);
}

/* " exactly" or " within 1e-06" (the difference allowed for this value), and "2 of 13
 * values differ" (how many of the n values are off), for the messages below. */
static void close_words(double allowed, int64_t wrong, int64_t n, char *within, size_t wsize,
                        char *count, size_t csize)
{
    if (allowed == 0)
        snprintf(within, wsize, " exactly");
    else
        snprintf(within, wsize, " within %.2g", allowed);
    snprintf(count, csize, "%lld of %lld value%s differ%s", (long long)wrong, (long long)n,
             n == 1 ? "" : "s", wrong == 1 ? "s" : "");
}

void expect_close_2d(const char *what, const float *got, const float *want, int64_t rows,
                     int64_t cols, double atol, double rtol)
{
    int64_t wrong = 0, first = -1;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            if (off(got[i + j * rows], want[i + j * rows], atol, rtol)) {
                if (first < 0) first = i + j * rows;
                wrong++;
            }
    if (first < 0) return;
    int64_t i = first % rows, j = first / rows;
    double g = got[first], w = want[first];
    char within[48], count[96];
    close_words(atol + rtol * fabs(w), wrong, rows * cols, within, sizeof within, count,
                sizeof count);
    ck_abort_msg("%s%s(%lld, %lld) is %.7g but should be %.7g%s (%s; %s is (%lld, %lld), "
                 "element (i, j) at [i + j * %lld])%s%s",
                 what, strchr(what, ' ') ? ": element " : "", (long long)i, (long long)j, g, w,
                 within, count, what, (long long)rows, (long long)cols, (long long)rows,
                 graded_note ? ": " : "", graded_note ? graded_note : "");
}

void expect_close_1d(const char *what, const float *got, const float *want, int64_t n, double atol,
                     double rtol)
{
    int64_t wrong = 0, first = -1;
    for (int64_t i = 0; i < n; i++)
        if (off(got[i], want[i], atol, rtol)) {
            if (first < 0) first = i;
            wrong++;
        }
    if (first < 0) return;
    char within[48], count[96];
    close_words(atol + rtol * fabs((double)want[first]), wrong, n, within, sizeof within, count,
                sizeof count);
    ck_abort_msg("%s%s[%lld] is %.7g but should be %.7g%s (%s)%s%s", what,
                 strchr(what, ' ') ? ": value " : "", (long long)first, (double)got[first],
                 (double)want[first], within, count, graded_note ? ": " : "",
                 graded_note ? graded_note : "");
}

void expect_unchanged(const char *what, const float *now, const float *before, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (memcmp(&now[i], &before[i], sizeof(float)) != 0)
            ck_abort_msg("the input %s was changed at [%lld] (%.7g became %.7g): it must only be "
                         "read",
                         what, (long long)i, (double)before[i], (double)now[i]);
}
