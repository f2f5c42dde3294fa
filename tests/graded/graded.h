/*
 * graded.h: what a graded suite is made of (make grade).
 *
 * A graded suite is a table of GradedCase entries, one per Check test, each
 * with the exercise it grades, points and a timeout. tests/graded/grader.c
 * runs every case in its own forked process (Check's fork mode) with a memory
 * limit and a timeout, so a crash, a hang, a huge allocation or an early
 * exit() in student code fails that case only, and reports what happened.
 *
 * Write a case with GRADED_TEST(name) { ... } (not START_TEST): it marks the
 * end of the body, which is how the grader tells a test that passed from one
 * whose student code called exit(0) (Check alone reports that as a pass).
 */
#ifndef WB_GRADED_H
#define WB_GRADED_H

#include <check.h>
#include <stdint.h>

typedef struct GradedCase {
    const TTest *const *test; /* &name of a GRADED_TEST */
    const char *exercise;     /* "01.2", or "01" for a case that uses them all */
    const char *function;     /* what the student wrote: "linear_forward" */
    const char *checks;       /* what this case checks, in words */
    double points;
    int timeout_s;
    const char *file; /* the student's file for this case (NULL: the lesson's) */
} GradedCase;

typedef struct GradedLesson {
    const char *id;    /* "01" */
    const char *title; /* "The CPU baseline" */
    const char *file;  /* the student's file */
    const GradedCase *cases;
    int n_cases;
} GradedLesson;

/* Each graded suite defines this. */
extern const GradedLesson graded_lesson;

/* Called by GRADED_TEST at the end of a body that ran to completion. */
void graded_reached_end(const char *test_name);

#define GRADED_TEST(name)                                                                          \
    static void name##_body(void);                                                                 \
    START_TEST(name)                                                                               \
    {                                                                                              \
        name##_body();                                                                             \
        graded_reached_end(#name);                                                                 \
    }                                                                                              \
    END_TEST                                                                                       \
    static void name##_body(void)

/* ---- helpers with messages a student can act on ------------------------ */

/* Fail unless an exercise returned 0; says "not written yet" for a stub. */
void expect_ok(int rc, const char *function);

/* A sentence added to the next failure messages (NULL for none), to say what
 * a check is about: "dw must be added to, not overwritten". */
extern const char *graded_note;

/* Compare an (rows, cols) column-major result with the expected values,
 * naming the first element that is off by its (row, column). */
void expect_close_2d(const char *what, const float *got, const float *want, int64_t rows,
                     int64_t cols, double atol, double rtol);

/* The same for a vector, naming the index. */
void expect_close_1d(const char *what, const float *got, const float *want, int64_t n,
                     double atol, double rtol);

/* Fail if an input the function must only read was changed. */
void expect_unchanged(const char *what, const float *now, const float *before, int64_t n);

/* Buffers with guard zones before and after, filled with a marker, so that a
 * write past either end is caught and reported. */
float *guarded_new(int64_t n, float fill);
void guarded_check(const float *p, const char *what);
void guarded_free(float *p);

#endif
