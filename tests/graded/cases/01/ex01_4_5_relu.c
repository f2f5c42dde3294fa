/*
 * ex01_4_5_relu.c: the cases of exercises 01.4 and 01.5, ReLU's forward
 * and backward (relu_forward, relu_backward).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- ex01.4 / ex01.5 ReLU ----------------------------------------------------- */

/* Drawn for this grading run (suite.h): n values with exact zeros among them (and
 * -0.0), the incoming gradient. */
static float *relu_drawn(const char *what, int64_t *n, float **dy)
{
    Drawn r = drawn_start(what);
    *n = drawn_int(&r, 1, 300);
    float *x = drawn_floats(&r, *n, 4, 3);
    for (int64_t i = 0; i < *n; i++)
        if (drawn_int(&r, 0, 5) == 0) x[i] = drawn_int(&r, 0, 1) ? 0.0f : -0.0f;
    *dy = drawn_floats(&r, *n, 4, 3);
    return x;
}

#ifdef GRADE_RUNNER
static void relu_drawn_run(int backward)
{
    int64_t n;
    float *dy0, *x0 = relu_drawn(backward ? "01.5" : "01.4", &n, &dy0);
    if (backward)
        for (int64_t i = 0; i < n; i++)
            x0[i] = x0[i] > 0.0f ? x0[i] : 0.0f; /* y = relu(x) */
    float *x = guarded_copy(x0, n), *dy = guarded_copy(dy0, n), *out = guarded_new(n, NAN);
    put_rc("drawn.rc", backward ? relu_backward(x, dy, out, n) : relu_forward(x, out, n));
    put_guarded("drawn.out", out);
    put_f32("drawn.in", x, n);
    guarded_free(x);
    guarded_free(dy);
    guarded_free(out);
    free(x0);
    free(dy0);
}
#endif

#ifdef GRADE_JUDGE
static void relu_drawn_judge(int backward)
{
    int64_t n;
    float *dy, *x = relu_drawn(backward ? "01.5" : "01.4", &n, &dy);
    float *want = malloc((size_t)n * sizeof *want);
    ck_assert_ptr_nonnull(want);
    for (int64_t i = 0; i < n; i++) {
        if (backward) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
        want[i] = x[i] > 0.0f ? (backward ? dy[i] : x[i]) : 0.0f;
    }
    graded_note = drawn_note(key("%lld values", (long long)n));
    expect_ok("drawn.rc", backward ? "relu_backward" : "relu_forward");
    const float *got = got_guarded("drawn.out", backward ? "dx" : "y", n);
    expect_unchanged(backward ? "y" : "x", got_f32("drawn.in", n), x, n);
    expect_close_1d(backward ? "dx" : "y", got, want, n, 0, 0);
    graded_note = NULL;
    free(x);
    free(dy);
    free(want);
}
#endif

#ifdef GRADE_RUNNER
RUN(relu_forward_pytorch)
{
    const Fixture *x = fx("relu", "x");
    float *y = guarded_new(x->n, NAN);
    put_rc("rc", relu_forward(x->cm, y, x->n));
    put_guarded("y", y);
    put_f32("x", x->cm, x->n);
    guarded_free(y);
    relu_drawn_run(0);
}

RUN(relu_backward_pytorch)
{
    const Fixture *y = fx("relu", "y"), *dy = fx("relu", "dy");
    float *dx = guarded_new(y->n, NAN);
    put_rc("rc", relu_backward(y->cm, dy->cm, dx, y->n));
    put_guarded("dx", dx);
    guarded_free(dx);
    relu_drawn_run(1);
}
#endif

#ifdef GRADE_JUDGE
JUDGE(relu_forward_pytorch)
{
    const Fixture *x = fx("relu", "x");
    expect_ok("rc", "relu_forward");
    const float *y = got_guarded("y", "y", x->n);
    expect_unchanged("x", got_f32("x", x->n), x->cm, x->n);
    expect_close_1d("y", y, fx("relu", "y")->cm, x->n, 0, 0);
    relu_drawn_judge(0);
}

JUDGE(relu_backward_pytorch)
{
    /* 133 values, every 7th exactly 0 (and one -0.0): the gradient there is 0. */
    const Fixture *y = fx("relu", "y");
    expect_ok("rc", "relu_backward");
    expect_close_1d("dx", got_guarded("dx", "dx", y->n), fx("relu", "dx")->cm, y->n, 0, 0);
    relu_drawn_judge(1);
}
#endif
