/*
 * ex01_6_7_cross_entropy.c: the cases of exercises 01.6 and 01.7, softmax
 * cross-entropy's forward and backward (cross_entropy_forward, cross_entropy_backward).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- ex01.6 / ex01.7 Cross-entropy ------------------------------------------------ */

/* Drawn for this grading run (suite.h): logits (n, c) around an offset of each row,
 * targets, and probabilities to take the gradient of. */
typedef struct CeDrawn {
    int64_t n, c;
    float *logits, *probs;
    int32_t *t;
} CeDrawn;

static CeDrawn ce_drawn(const char *what)
{
    Drawn r = drawn_start(what);
    CeDrawn e;
    e.n = drawn_int(&r, 1, 40);
    e.c = drawn_int(&r, 2, 8);
    e.logits = drawn_floats(&r, e.n * e.c, 8, 4);
    e.probs = malloc((size_t)(e.n * e.c) * sizeof *e.probs);
    e.t = malloc((size_t)e.n * sizeof *e.t);
    ck_assert(e.probs && e.t);
    for (int64_t i = 0; i < e.n; i++) {
        float offset = drawn_value(&r, 16, 2);
        for (int64_t j = 0; j < e.c; j++)
            e.logits[i + j * e.n] += offset;
        e.t[i] = (int32_t)drawn_int(&r, 0, e.c - 1);
    }
    for (int64_t k = 0; k < e.n * e.c; k++)
        e.probs[k] = (float)drawn_int(&r, 0, 64) / 64.0f;
    return e;
}

static void ce_drawn_free(CeDrawn *e)
{
    free(e->logits);
    free(e->probs);
    free(e->t);
}

#ifdef GRADE_RUNNER
static void ce_drawn_run(int backward)
{
    CeDrawn e = ce_drawn(backward ? "01.7" : "01.6");
    int64_t nc = e.n * e.c;
    float *in = guarded_copy(backward ? e.probs : e.logits, nc), *out = guarded_new(nc, NAN);
    float *loss = guarded_new(1, NAN);
    put_rc("drawn.rc", backward ? cross_entropy_backward(in, e.t, out, e.n, e.c)
                                : cross_entropy_forward(in, e.t, out, loss, e.n, e.c));
    put_guarded("drawn.out", out);
    if (!backward) put_guarded("drawn.loss", loss);
    put_f32("drawn.in", in, nc);
    guarded_free(in);
    guarded_free(out);
    guarded_free(loss);
    ce_drawn_free(&e);
}
#endif

#ifdef GRADE_JUDGE
static void ce_drawn_judge(int backward)
{
    CeDrawn e = ce_drawn(backward ? "01.7" : "01.6");
    int64_t n = e.n, c = e.c;
    float *want = malloc((size_t)(n * c) * sizeof *want);
    ck_assert_ptr_nonnull(want);
    double total = 0;
    for (int64_t i = 0; i < n; i++) {
        double m = e.logits[i], s = 0;
        for (int64_t j = 1; j < c; j++)
            m = fmax(m, e.logits[i + j * n]);
        for (int64_t j = 0; j < c; j++)
            s += exp(e.logits[i + j * n] - m);
        total += m + log(s) - e.logits[i + e.t[i] * n];
        for (int64_t j = 0; j < c; j++)
            want[i + j * n] = backward ? (float)((e.probs[i + j * n] - (e.t[i] == j)) / (double)n)
                                       : (float)(exp(e.logits[i + j * n] - m) / s);
    }
    graded_note = drawn_note(
        key("%s (%lld, %lld)", backward ? "probs" : "logits", (long long)n, (long long)c));
    expect_ok("drawn.rc", backward ? "cross_entropy_backward" : "cross_entropy_forward");
    expect_unchanged(backward ? "probs" : "logits", got_f32("drawn.in", n * c),
                     backward ? e.probs : e.logits, n * c);
    if (backward) {
        expect_close_2d("dlogits", got_guarded("drawn.out", "dlogits", n * c), want, n, c, 1e-7,
                        1e-4);
    } else {
        float loss = (float)(total / (double)n);
        expect_close_1d("loss", got_guarded("drawn.loss", "loss", 1), &loss, 1, 1e-5, 1e-5);
        expect_close_2d("probs", got_guarded("drawn.out", "probs", n * c), want, n, c, 1e-6, 1e-5);
    }
    graded_note = NULL;
    free(want);
    ce_drawn_free(&e);
}
#endif

#ifdef GRADE_RUNNER
static int32_t *labels_of(const Fixture *t)
{
    int32_t *l = malloc((size_t)t->n * sizeof *l);
    ck_assert_ptr_nonnull(l);
    for (int64_t i = 0; i < t->n; i++)
        l[i] = (int32_t)lrintf(t->cm[i]);
    return l;
}

static void ce_forward_run(const char *p)
{
    const Fixture *z = fx(p, "logits");
    int64_t n = z->shape[0], c = z->shape[1];
    int32_t *t = labels_of(fx(p, "targets"));
    float *probs = guarded_new(n * c, NAN), *loss = guarded_new(1, NAN);
    put_rc(key("%s.rc", p), cross_entropy_forward(z->cm, t, probs, loss, n, c));
    put_guarded(key("%s.probs", p), probs);
    put_guarded(key("%s.loss", p), loss);
    put_f32(key("%s.logits", p), z->cm, n * c);
    free(t);
    guarded_free(probs);
    guarded_free(loss);
}

RUN(ce_forward_pytorch)
{
    ce_forward_run("ce_a"); /* (9, 4) */
    ce_drawn_run(0);
}

RUN(ce_forward_shapes)
{
    ce_forward_run("ce_b"); /* (37, 5) */
    ce_forward_run("ce_c"); /* (1, 3): one sample */
    ce_drawn_run(0);
}

/* Fixture p's rows repeated k times: (n k, c), the targets likewise. */
static void ce_tiled_run(const char *p, int k)
{
    const Fixture *z = fx(p, "logits"), *t0 = fx(p, "targets");
    int64_t n = z->shape[0], c = z->shape[1], N = n * k;
    float *logits = malloc((size_t)(N * c) * sizeof *logits);
    int32_t *t = malloc((size_t)N * sizeof *t);
    ck_assert(logits && t);
    for (int64_t r = 0; r < N; r++) {
        for (int64_t j = 0; j < c; j++) logits[r + j * N] = z->cm[r % n + j * n];
        t[r] = (int32_t)lrintf(t0->cm[r % n]);
    }
    float *probs = guarded_new(N * c, NAN), *loss = guarded_new(1, NAN);
    put_rc(key("%s.tiled.rc", p), cross_entropy_forward(logits, t, probs, loss, N, c));
    put_guarded(key("%s.tiled.probs", p), probs);
    put_guarded(key("%s.tiled.loss", p), loss);
    float *d = guarded_new(N * c, NAN);
    put_rc(key("%s.tiled.brc", p), cross_entropy_backward(probs, t, d, N, c));
    put_guarded(key("%s.tiled.d", p), d);
    free(logits);
    free(t);
    guarded_free(probs);
    guarded_free(loss);
    guarded_free(d);
}

RUN(ce_many_rows)
{
    ce_tiled_run("ce_a", 70);    /* 630 rows: code that works in blocks of rows meets several */
    ce_tiled_run("ce_huge", 97); /* 582 rows of logits near 2000 */
    ce_drawn_run(0);
}

RUN(ce_forward_huge_logits)
{
    /* Logits around 2000 +- 1500: exp() of them overflows to inf in float. */
    ce_forward_run("ce_huge");
    ce_drawn_run(0);
}

static void ce_backward_run(const char *p)
{
    const Fixture *probs = fx(p, "probs");
    int64_t n = probs->shape[0], c = probs->shape[1];
    int32_t *t = labels_of(fx(p, "targets"));
    float *d = guarded_new(n * c, NAN);
    put_rc(key("%s.rc", p), cross_entropy_backward(probs->cm, t, d, n, c));
    put_guarded(key("%s.d", p), d);
    free(t);
    guarded_free(d);
}

RUN(ce_backward_pytorch)
{
    ce_backward_run("ce_a");
    ce_backward_run("ce_b");
    ce_drawn_run(1);
}

RUN(ce_backward_by_hand)
{
    /* probs = [[0.25, 0.75], [0.5, 0.5]], targets = [1, 0], column-major. */
    const float probs[4] = {0.25f, 0.5f, 0.75f, 0.5f};
    const int32_t t[2] = {1, 0};
    float *d = guarded_new(4, NAN);
    put_rc("rc", cross_entropy_backward(probs, t, d, 2, 2));
    put_guarded("d", d);
    guarded_free(d);
    ce_drawn_run(1);
}
#endif

#ifdef GRADE_JUDGE
static void ce_forward_judge(const char *p)
{
    const Fixture *z = fx(p, "logits");
    int64_t n = z->shape[0], c = z->shape[1];
    expect_ok(key("%s.rc", p), "cross_entropy_forward");
    const float *probs = got_guarded(key("%s.probs", p), "probs", n * c);
    const float *loss = got_guarded(key("%s.loss", p), "loss", 1);
    expect_unchanged("logits", got_f32(key("%s.logits", p), n * c), z->cm, n * c);
    ck_assert_msg(isfinite(*loss), "the loss is %g: subtract each row's maximum before exp",
                  (double)*loss);
    expect_close_1d("loss", loss, fx(p, "loss")->cm, 1, 1e-5, 1e-5);
    expect_close_2d("probs", probs, fx(p, "probs")->cm, n, c, 1e-6, 1e-5);
}

JUDGE(ce_forward_pytorch)
{
    ce_forward_judge("ce_a");
    ce_drawn_judge(0);
}

JUDGE(ce_forward_shapes)
{
    ce_forward_judge("ce_b");
    ce_forward_judge("ce_c");
    ce_drawn_judge(0);
}

JUDGE(ce_forward_huge_logits)
{
    ce_forward_judge("ce_huge");
    ce_drawn_judge(0);
}

/* The fixture's rows repeated k times: each row's probabilities and gradient are
 * PyTorch's for that row (the gradient divided by n k, not n), the mean loss the same. */
static void ce_tiled_judge(const char *p, int k)
{
    const Fixture *z = fx(p, "logits");
    int64_t n = z->shape[0], c = z->shape[1], N = n * k;
    const float *pp = fx(p, "probs")->cm, *pd = fx(p, "dlogits")->cm;
    float *want_p = malloc((size_t)(N * c) * sizeof *want_p);
    float *want_d = malloc((size_t)(N * c) * sizeof *want_d);
    ck_assert(want_p && want_d);
    for (int64_t r = 0; r < N; r++)
        for (int64_t j = 0; j < c; j++) {
            want_p[r + j * N] = pp[r % n + j * n];
            want_d[r + j * N] = pd[r % n + j * n] / (float)k;
        }
    graded_note = "with more rows than the other cases (several hundred), every row counts";
    expect_ok(key("%s.tiled.rc", p), "cross_entropy_forward");
    expect_close_2d("probs", got_guarded(key("%s.tiled.probs", p), "probs", N * c), want_p, N,
                    c, 1e-6, 1e-5);
    expect_close_1d("loss", got_guarded(key("%s.tiled.loss", p), "loss", 1), fx(p, "loss")->cm,
                    1, 1e-5, 1e-5);
    expect_ok(key("%s.tiled.brc", p), "cross_entropy_backward");
    expect_close_2d("dlogits", got_guarded(key("%s.tiled.d", p), "dlogits", N * c), want_d, N,
                    c, 1e-7, 1e-4);
    free(want_p);
    free(want_d);
}

JUDGE(ce_many_rows)
{
    ce_tiled_judge("ce_a", 70);
    ce_tiled_judge("ce_huge", 97);
    ce_drawn_judge(0);
}

static void ce_backward_judge(const char *p)
{
    const Fixture *probs = fx(p, "probs");
    int64_t n = probs->shape[0], c = probs->shape[1];
    expect_ok(key("%s.rc", p), "cross_entropy_backward");
    expect_close_2d("dlogits", got_guarded(key("%s.d", p), "dlogits", n * c), fx(p, "dlogits")->cm,
                    n, c, 1e-6, 1e-4);
}

JUDGE(ce_backward_pytorch)
{
    ce_backward_judge("ce_a");
    ce_backward_judge("ce_b");
    ce_drawn_judge(1);
}

JUDGE(ce_backward_by_hand)
{
    /* dlogits = [[0.25, 0.75 - 1], [0.5 - 1, 0.5]] / 2 = [[0.125, -0.125], [-0.25, 0.25]];
     * column-major {0.125, -0.25, -0.125, 0.25}. */
    const float want[4] = {0.125f, -0.25f, -0.125f, 0.25f};
    expect_ok("rc", "cross_entropy_backward");
    expect_close_2d("dlogits", got_guarded("d", "dlogits", 4), want, 2, 2, 0, 1e-6);
    ce_drawn_judge(1);
}
#endif
