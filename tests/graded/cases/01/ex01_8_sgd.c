/*
 * ex01_8_sgd.c: the cases of exercise 01.8, the SGD step (sgd_step).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- ex01.8 SGD -------------------------------------------------------------------- */

/* Drawn for this grading run (suite.h): param, grad (n) and lr. */
static float *sgd_drawn(int64_t *n, float **grad, float *lr)
{
    Drawn r = drawn_start("01.8");
    *n = drawn_int(&r, 1, 300);
    *lr = (float)(2 * drawn_int(&r, 1, 31) + 1) / 64.0f; /* odd 64ths: never a fixture's */
    *grad = drawn_floats(&r, *n, 4, 4);
    return drawn_floats(&r, *n, 4, 4);
}

#ifdef GRADE_RUNNER
static void sgd_drawn_run(void)
{
    int64_t n;
    float lr, *g0, *p0 = sgd_drawn(&n, &g0, &lr);
    float *p = guarded_new(n, 0.0f), *g = guarded_copy(g0, n); /* param is written: plain guards */
    memcpy(p, p0, (size_t)n * sizeof *p);
    put_rc("drawn.rc", sgd_step(p, g, n, lr));
    put_guarded("drawn.param", p);
    put_f32("drawn.grad", g, n);
    guarded_free(p);
    guarded_free(g);
    free(p0);
    free(g0);
}
#endif

#ifdef GRADE_JUDGE
static void sgd_drawn_judge(void)
{
    int64_t n;
    float lr, *g, *p = sgd_drawn(&n, &g, &lr);
    float *want = malloc((size_t)n * sizeof *want);
    ck_assert_ptr_nonnull(want);
    for (int64_t i = 0; i < n; i++)
        want[i] = (float)((double)p[i] - (double)lr * g[i]);
    graded_note = drawn_note(key("%lld values, lr %g", (long long)n, (double)lr));
    expect_ok("drawn.rc", "sgd_step");
    const float *got = got_guarded("drawn.param", "param", n);
    expect_unchanged("grad", got_f32("drawn.grad", n), g, n);
    expect_close_1d("param", got, want, n, 1e-7, 1e-6);
    graded_note = NULL;
    free(p);
    free(g);
    free(want);
}
#endif

#ifdef GRADE_RUNNER
static void sgd_run(const char *p)
{
    const Fixture *p0 = fx(p, "p"), *g = fx(p, "grad");
    float *param = guarded_new(p0->n, 0.0f);
    memcpy(param, p0->cm, (size_t)p0->n * sizeof(float));
    float *grad = guarded_copy(g->cm, g->n); /* a read past its end meets a NaN */
    put_rc(key("%s.rc", p), sgd_step(param, grad, p0->n, fx(p, "lr")->cm[0]));
    put_guarded(key("%s.param", p), param);
    put_f32(key("%s.grad", p), grad, g->n);
    guarded_free(param);
    guarded_free(grad);
}

RUN(sgd_pytorch)
{
    sgd_run("sgd_a"); /* 131 values, lr 0.05 */
    sgd_run("sgd_b"); /* 1 value, lr 0.5 */
    sgd_drawn_run();
}
#endif

#ifdef GRADE_JUDGE
static void sgd_judge(const char *p)
{
    const Fixture *p0 = fx(p, "p"), *g = fx(p, "grad");
    expect_ok(key("%s.rc", p), "sgd_step");
    const float *param = got_guarded(key("%s.param", p), "param", p0->n);
    expect_unchanged("grad", got_f32(key("%s.grad", p), g->n), g->cm, g->n);
    expect_close_1d("param", param, fx(p, "p_new")->cm, p0->n, 1e-7, 1e-6);
}

JUDGE(sgd_pytorch)
{
    sgd_judge("sgd_a");
    sgd_judge("sgd_b");
    sgd_drawn_judge();
}
#endif
