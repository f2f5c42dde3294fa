/*
 * suite.h: what the files of Lesson 01's graded suite share (suite.c lists its cases):
 * their includes, the fixtures' names, and the floats drawn for a grading run.
 */
#ifndef WB_GRADED_CASES_01_SUITE_H
#define WB_GRADED_CASES_01_SUITE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/drawn.h"
#include "../../protocol/drawn_whole.h"
#include "../graded.h"
#include "lib/core/err.h"
#include "tests/common/fixture.h"
#ifdef GRADE_JUDGE
#include "../../oracles/oracle_iris.h"
#include "../../oracles/oracle_mlp.h"
#endif
#ifdef GRADE_RUNNER
#include "lib/train/data.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/nn/optim.h"
#include "lib/train/iris.h"
#include "lib/train/train.h"
#include "tests/common/iris.h"
#endif

#define G "grade01.txt"
#define L1 "lesson01.txt"

static inline const Fixture *fx(const char *prefix, const char *what)
{
    return fixture(G, key("%s.%s", prefix, what));
}

/* ---- inputs drawn for this grading run (drawn.h) ------------------------------------
 * Every case of 01.1-01.8 also calls its exercise once on inputs drawn for this
 * grading run and checks the outputs against a formula computed here, after its
 * own checks: the fixed inputs below are public, and a function that only knew
 * their answers must not earn the points. */

/* n floats of the stream, each k / 2^shift with |value| < range. */
static inline float *drawn_floats(Drawn *r, int64_t n, int range, int shift)
{
    float *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = drawn_value(r, range, shift);
    return v;
}

#endif
