/*
 * graded.h: what a graded suite is made of (make grade).
 *
 * Each case of a suite has two halves, written next to each other in the file of
 * its exercise, tests/graded/cases/NN/exNN_M_name.c (whole_lesson.c for the cases
 * that use every exercise of the lesson):
 *
 *   RUN(name)   builds the inputs, calls the student's code and records what
 *               came out (runner.h: put_f32, put_rc, ...). It is compiled into
 *               the runner, the only program that loads student code, and
 *               runs there in a process of its own per case.
 *   JUDGE(name) reads those records (judge.h: got_f32, ...) and compares them
 *               with what it expects: PyTorch's fixtures, values worked out by
 *               hand, invariants, the reference run, or its own training of the
 *               same network (oracle_mlp.h). It is compiled into the judge, a
 *               program that never links or runs student code.
 *
 * So nothing the student's code does in its own process (calling grader
 * functions, writing to descriptors, exiting with any status, printing) can
 * make a case pass: the verdict is reached elsewhere, from data alone.
 *
 * A case may also need reference values that lib computes with the answers
 * (lib's own training loop, say). The runner built with GRADE_REFERENCE and
 * linked with solutions/ only runs those cases, once, when the grader is
 * built; its records are kept in a file the judge reads (ref_f32, ...), so
 * the values a student's process could look for never exist in it.
 *
 * A case file wraps its halves in `#ifdef GRADE_RUNNER` and `#ifdef GRADE_JUDGE`
 * (code both use goes outside); what the files of a lesson share is in its suite.h.
 * The lesson's suite.c holds its table, in the order make grade shows the cases:
 *
 *   #define CASES(X)                                                        \
 *       X(name, "01.2", "linear_forward", "what it checks", points, timeout_s, \
 *         needs_reference, file_or_NULL)                                     \
 *       ...
 *   GRADED_SUITE("01", "The CPU baseline", "lessons/01_cpu_baseline/exercises.c", CASES)
 *
 * GRADED_SUITE declares each case's half (RUN and JUDGE define functions of their
 * own name: name_run, name_judge) and makes the table the runner or the judge reads.
 * Every file of cases/NN/ is compiled three ways (the Makefile): as a judge's, a
 * runner's and a reference runner's (GRADE_JUDGE; GRADE_RUNNER; both GRADE_RUNNER and
 * GRADE_REFERENCE), and each lesson's files make one judge and one runner.
 */
#ifndef WB_GRADED_H
#define WB_GRADED_H

#include <stdint.h>

#include "../protocol/protocol.h"

#if defined(GRADE_RUNNER)
#include "../runner/runner.h"
#define GRADED_RUN_DECL(name, ex, fn, checks, pts, timeout, ref, file) void name##_run(void);
#define GRADED_RUN_ENTRY(name, ex, fn, checks, pts, timeout, ref, file) {#name, name##_run},
#define GRADED_SUITE(id, title, file, CASES)                                                       \
    CASES(GRADED_RUN_DECL)                                                                         \
    const RunCase run_cases[] = {CASES(GRADED_RUN_ENTRY)};                                         \
    const int n_run_cases = (int)(sizeof run_cases / sizeof run_cases[0]);
#elif defined(GRADE_JUDGE)
#include "../judge/judge.h"
#define GRADED_JUDGE_DECL(name, ex, fn, checks, pts, timeout, ref, file) void name##_judge(void);
#define GRADED_JUDGE_ENTRY(name, ex, fn, checks, pts, timeout, ref, file)                          \
    {#name, name##_judge, ex, fn, checks, pts, timeout, ref, file},
#define GRADED_SUITE(id, title, file, CASES)                                                       \
    CASES(GRADED_JUDGE_DECL)                                                                       \
    static const GradedCase graded_cases_[] = {CASES(GRADED_JUDGE_ENTRY)};                         \
    const GradedLesson graded_lesson = {id, title, file, graded_cases_,                            \
                                        (int)(sizeof graded_cases_ / sizeof graded_cases_[0])};
#else
#error "compile a graded suite with -DGRADE_RUNNER or -DGRADE_JUDGE"
#endif

#endif
