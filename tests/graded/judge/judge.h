/*
 * judge.h: the JUDGE half of a graded case (see graded.h).
 *
 *   judgeNN --out DIR --runner RUN [--ref FILE] [--log FILE]
 *                           run every case and write DIR/lessonNN.tsv
 *   judgeNN --list          the cases, without running anything
 *   judgeNN --record FILE --runner REFRUN
 *                           run the cases that need reference values with the
 *                           reference runner and keep its records in FILE
 *
 * For each case the judge starts the runner in a process of its own (its own
 * process group, a time limit, its output to the log), reads its records, and
 * then runs the case's JUDGE body under Check in fork mode. A runner that
 * crashed, hung, stopped early or whose own set-up failed fails the case with
 * that story; otherwise the JUDGE body decides, from the records alone.
 */
#ifndef WB_GRADED_JUDGE_H
#define WB_GRADED_JUDGE_H

#include <check.h>
#include <stdint.h>

#define JUDGE(name) void name##_judge(void)

typedef struct GradedCase {
    const char *name;     /* the RUN/JUDGE name */
    void (*judge)(void);  /* its JUDGE body */
    const char *exercise; /* "01.2", or "01" for a case that uses them all */
    const char *function; /* what the student wrote: "linear_forward" */
    const char *checks;   /* what this case checks, in words */
    double points;
    int timeout_s;
    int needs_ref;    /* reads reference values (ref_*) */
    const char *file; /* the student's file for this case (NULL: the lesson's) */
} GradedCase;

typedef struct GradedLesson {
    const char *id;    /* "01" */
    const char *title; /* "The CPU baseline" */
    const char *file;  /* the student's file */
    const GradedCase *cases;
    int n_cases;
} GradedLesson;

/* Each suite defines this (GRADED_SUITE). */
extern const GradedLesson graded_lesson;

/* ---- what the runner recorded ------------------------------------------
 * A value the runner did not record fails the case ("the test stopped before
 * it recorded ..."), so a JUDGE body can take every value it asks for. */
int got_has(const char *name);
int64_t got_i64(const char *name);
double got_f64(const char *name);
const char *got_str(const char *name); /* "" when recorded as NULL */
/* Exactly n floats (fails the case on another count). */
const float *got_f32(const char *name, int64_t n);
/* Any number of floats; *n gets the count. */
const float *got_f32_n(const char *name, int64_t *n);

/* The same for the reference run of this case. */
int64_t ref_i64(const char *name);
double ref_f64(const char *name);
const float *ref_f32(const char *name, int64_t n);
const float *ref_f32_n(const char *name, int64_t *n);

/* put_rc's three records: the return value, lib's error code and message. */
int got_rc(const char *name);
int got_rc_code(const char *name);
const char *got_rc_msg(const char *name);

/* A sentence added to the next failure messages (NULL for none), to say what
 * a check is about: "dw must be added to, not overwritten". */
extern const char *graded_note;

/* Fail unless an exercise returned 0 (the record of put_rc); says "not written
 * yet" for a stub. */
void expect_ok(const char *name, const char *function);

/* Fail if the exercise is still a stub (returned ERR_TODO), whatever else it did. */
void expect_written(const char *name, const char *function);

/* A guarded buffer (put_guarded) of n floats: fails if a guard float changed,
 * naming which side; returns its n values. */
const float *got_guarded(const char *name, const char *what, int64_t n);

/* Compare an (rows, cols) column-major result with the expected values,
 * naming the first element that is off by its (row, column). */
void expect_close_2d(const char *what, const float *got, const float *want, int64_t rows,
                     int64_t cols, double atol, double rtol);

/* The same for a vector, naming the index. */
void expect_close_1d(const char *what, const float *got, const float *want, int64_t n, double atol,
                     double rtol);

/* Fail if an input the function must only read was changed. */
void expect_unchanged(const char *what, const float *now, const float *before, int64_t n);

#endif
