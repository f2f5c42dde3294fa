/*
 * ex05_2_clip_grad_norm.c: the cases of exercise 05.2, clip_grad_norm_scale:
 * gradient clipping by the total norm.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. Inputs are
 * shared by both halves (outside the #ifdefs); what is expected lives only in
 * the JUDGE halves.
 */
#include "suite.h"

/* ---- ex05.2 clip_grad_norm_scale ---------------------------------------------------------- */

#define OFX "optim.txt"

/* Two arrays of different sizes: the norm is of all of them together. */
#define CLIP_SPLIT 30

/* The precision case: two arrays of PREC_N values, PREC_BIG ones at each end of
 * each and PREC_SMALL in between. Summed in double the small squares add 0.0029
 * to 256; a float running sum (PyTorch's, in each vector lane) reaches 4 or more
 * before they come and loses each of them, and a float sum in another order
 * keeps some. The contract allows either, so the norm must lie between 16 and
 * the exact one, and the values must be scaled by what the norm says. */
#define PREC_N 30128
#define PREC_BIG 64
#define PREC_SMALL 2.2e-4f
static float prec_value(int64_t i)
{
    return i < PREC_BIG || i >= PREC_N - PREC_BIG ? 1.0f : PREC_SMALL;
}

/* The tiny-norm case: 7 values of about 1e-7 (norm 1.18e-6), where the 1e-6 in
 * max_norm / (total + 1e-6) matters. */
static float tiny_value(int64_t i) { return 1e-7f * (float)(i + 1) * (i % 2 ? -1.0f : 1.0f); }
static const float tiny_max[2] = {1e-7f, 2e-6f};

#ifdef GRADE_RUNNER
/* clip over two guarded arrays holding g (n values, the first CLIP_SPLIT in
 * the first); records k.rc, k.total, k.a, k.b. */
static void clip_run(const char *k_in, const float *g, int64_t n, float max_norm)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    float *a = guarded_new(CLIP_SPLIT, 0), *b = guarded_new(n - CLIP_SPLIT, 0);
    memcpy(a, g, sizeof(float) * CLIP_SPLIT);
    memcpy(b, g + CLIP_SPLIT, sizeof(float) * (size_t)(n - CLIP_SPLIT));
    float *grads[2] = {a, b};
    int64_t sizes[2] = {CLIP_SPLIT, n - CLIP_SPLIT};
    float total = -1;
    err_clear();
    put_rc(key("%s.rc", k), clip_grad_norm_scale(grads, sizes, 2, max_norm, &total));
    put_f32(key("%s.total", k), &total, 1);
    put_guarded(key("%s.a", k), a);
    put_guarded(key("%s.b", k), b);
    guarded_free(a);
    guarded_free(b);
}

static void clip_fixture_run(const char *set)
{
    const Fixture *g = fixture(OFX, key("clip_%s.g", set));
    clip_run(set, g->data, g->n, fixture(OFX, key("clip_%s.max_norm", set))->data[0]);
}

RUN(clip_matches_pytorch)
{
    clip_fixture_run("under"); /* below the max: nothing changes */
    clip_fixture_run("over");  /* scaled by max_norm / (total + 1e-6) */
}

RUN(clip_nonfinite_and_empty)
{
    clip_fixture_run("inf"); /* the norm is inf: every gradient is scaled by 0 */
    clip_fixture_run("nan"); /* the norm is NaN: so is every gradient, as in PyTorch */
    float total = -1;
    err_clear();
    put_rc("empty.rc", clip_grad_norm_scale(NULL, NULL, 0, 1.0f, &total));
    put_f32("empty.total", &total, 1);
    float *g = guarded_new(3, 0);
    g[0] = 3e30f, g[1] = 4e30f, g[2] = 0.0f; /* squares beyond float's range */
    float *gs[1] = {g};
    int64_t n[1] = {3};
    total = -1;
    err_clear();
    put_rc("huge.rc", clip_grad_norm_scale(gs, n, 1, 1.0f, &total));
    put_f32("huge.total", &total, 1);
    put_guarded("huge.g", g);
    guarded_free(g);
}

RUN(clip_precision)
{
    float *a = guarded_new(PREC_N, 0), *b = guarded_new(PREC_N, 0);
    for (int64_t i = 0; i < PREC_N; i++) a[i] = b[i] = prec_value(i);
    float *grads[2] = {a, b};
    int64_t sizes[2] = {PREC_N, PREC_N};
    float total = -1;
    err_clear();
    put_rc("prec.rc", clip_grad_norm_scale(grads, sizes, 2, 1.0f, &total));
    put_f32("prec.total", &total, 1);
    put_guarded("prec.a", a);
    put_guarded("prec.b", b);
    guarded_free(a);
    guarded_free(b);
    float tiny[7 + CLIP_SPLIT];
    for (int64_t i = 0; i < 7 + CLIP_SPLIT; i++)
        tiny[i] = i < CLIP_SPLIT ? 0.0f : tiny_value(i - CLIP_SPLIT);
    for (int m = 0; m < 2; m++) clip_run(key("tiny%d", m), tiny, 7 + CLIP_SPLIT, tiny_max[m]);
}
#endif

#ifdef GRADE_JUDGE
/* The total norm against want (NaN and inf must match exactly). */
static void total_judge(const char *k_in, const char *what, float want, double rtol)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    float total = got_f32(key("%s.total", k), 1)[0];
    if (!isfinite(want))
        ck_assert_msg(isnan(want) ? isnan(total) : total == want, "%s is %g, expected %g", what,
                      (double)total, (double)want);
    else
        expect_close_1d(what, &total, &want, 1, 0, rtol);
}

/* The clipped values (the two arrays of k, together n values) against want. */
static void clipped_judge(const char *k_in, const float *want, int64_t n, const char *what,
                          const char *whose)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    const float *a = got_guarded(key("%s.a", k), "the first gradient array", CLIP_SPLIT);
    const float *b = got_guarded(key("%s.b", k), "the second gradient array", n - CLIP_SPLIT);
    for (int64_t i = 0; i < n; i++) {
        float got = i < CLIP_SPLIT ? a[i] : b[i - CLIP_SPLIT], w = want[i];
        ck_assert_msg(isnan(w) ? isnan(got) : fabsf(got - w) <= 1e-6f * fabsf(w) + 1e-30f,
                      "%s: value %lld is %g, expected %g (%s)", what, (long long)i, (double)got,
                      (double)w, whose);
    }
}

static void clip_fixture_judge(const char *set)
{
    char what[96];
    expect_ok(key("%s.rc", set), "clip_grad_norm_scale");
    snprintf(what, sizeof what, "the total norm (%s)", set);
    total_judge(set, what, fixture(OFX, key("clip_%s.total", set))->data[0], 4e-7);
    snprintf(what, sizeof what, "the clipped gradients (%s)", set);
    const Fixture *out = fixture(OFX, key("clip_%s.out", set));
    clipped_judge(set, out->data, out->n, what, "PyTorch's clip_grad_norm_");
}

JUDGE(clip_matches_pytorch)
{
    clip_fixture_judge("under");
    clip_fixture_judge("over");
}

JUDGE(clip_nonfinite_and_empty)
{
    clip_fixture_judge("inf");
    clip_fixture_judge("nan");
    expect_ok("empty.rc", "clip_grad_norm_scale");
    float total = got_f32("empty.total", 1)[0];
    ck_assert_msg(total == 0.0f, "no gradients: the norm is 0, got %g", (double)total);
    /* PyTorch 1.13, float32: clip_grad_norm_ of (3e30, 4e30, 0) returns inf and leaves
     * (0, 0, 0); the GPU kernel's float sum gives inf too. */
    expect_ok("huge.rc", "clip_grad_norm_scale");
    total = got_f32("huge.total", 1)[0];
    ck_assert_msg(isinf(total) && total > 0,
                  "values of 3e30 and 4e30: the norm is inf, as in PyTorch's float32 norm (the "
                  "sum of the squares, 2.5e61, is past float's range), got %g (round a double "
                  "sum to float before the square root)",
                  (double)total);
    const float *h = got_guarded("huge.g", "the gradient array", 3);
    for (int i = 0; i < 3; i++)
        ck_assert_msg(h[i] == 0.0f && !signbit(h[i]),
                      "values of 3e30 and 4e30: an inf norm scales every value by 0, as PyTorch "
                      "does; value %d is %g",
                      i, (double)h[i]);
}

/* What clipping n values to max_norm gives, from their true norm: every value
 * times max_norm / (total + 1e-6), computed in float as the contract says,
 * when that is below 1. */
static void clip_expected(const float *g, int64_t n, double sum_squares, float max_norm,
                          float *total, float *want)
{
    *total = (float)sqrt(sum_squares);
    float coef = max_norm / (*total + 1e-6f);
    for (int64_t i = 0; i < n; i++) want[i] = coef < 1.0f ? g[i] * coef : g[i];
}

JUDGE(clip_precision)
{
    /* 256 ones and 60000 values of 2.2e-4: the norm is sqrt(256 + 60000 s^2),
     * about 16.00009 in double; a float sum gives from 16 (the small squares
     * vanish next to 4 or more, PyTorch's way) up to that. Either is right; the
     * values must then be scaled by the norm reported. */
    double s = (double)PREC_SMALL;
    float exact, *want = malloc(sizeof(float) * 2 * PREC_N);
    float *g = malloc(sizeof(float) * 2 * PREC_N);
    ck_assert(want && g);
    for (int64_t i = 0; i < 2 * PREC_N; i++) g[i] = prec_value(i % PREC_N);
    clip_expected(g, 2 * PREC_N, 4.0 * PREC_BIG + (2.0 * PREC_N - 4.0 * PREC_BIG) * s * s, 1.0f,
                  &exact, want);
    expect_ok("prec.rc", "clip_grad_norm_scale");
    graded_note = "256 ones and 60000 values of 2.2e-4: every square counts once, in float or in "
                  "double, and the values are scaled by the norm returned";
    float total = got_f32("prec.total", 1)[0];
    ck_assert_msg(total >= 16.0f * (1.0f - 4e-7f) && total <= exact * (1.0f + 4e-7f),
                  "the total norm (precision) is %.8g, expected from 16 (a float sum, PyTorch's) "
                  "to %.8g (the exact one)",
                  (double)total, (double)exact);
    float coef = 1.0f / (total + 1e-6f);
    for (int64_t i = 0; i < 2 * PREC_N; i++) want[i] = g[i] * coef;
    const float *a = got_guarded("prec.a", "the first gradient array", PREC_N);
    const float *b = got_guarded("prec.b", "the second gradient array", PREC_N);
    for (int64_t i = 0; i < 2 * PREC_N; i++) {
        float got = i < PREC_N ? a[i] : b[i - PREC_N], w = want[i];
        ck_assert_msg(fabsf(got - w) <= 1e-6f * fabsf(w),
                      "the clipped gradients (precision): value %lld is %g, expected %g "
                      "(max_norm 1, norm %.8g: every value times 1 / (norm + 1e-6))",
                      (long long)i, (double)got, (double)w, (double)total);
    }
    graded_note = NULL;
    /* 30 zeros and 7 values k x 1e-7 with alternating signs (k = 1..7): the
     * norm is 1e-7 sqrt(140) = 1.18e-6. With max_norm 1e-7 the coefficient is
     * 1e-7 / (1.18e-6 + 1e-6) = 0.046 (without the 1e-6 it would be 0.085);
     * with max_norm 2e-6, above the norm, it is still 2e-6 / 2.18e-6 < 1. */
    float tg[7 + CLIP_SPLIT], tw[7 + CLIP_SPLIT];
    double sum = 0;
    for (int64_t i = 0; i < 7 + CLIP_SPLIT; i++) {
        tg[i] = i < CLIP_SPLIT ? 0.0f : tiny_value(i - CLIP_SPLIT);
        sum += (double)tg[i] * (double)tg[i];
    }
    for (int m = 0; m < 2; m++) {
        char k[16];
        snprintf(k, sizeof k, "tiny%d", m);
        char what[96];
        clip_expected(tg, 7 + CLIP_SPLIT, sum, tiny_max[m], &total, tw);
        expect_ok(key("%s.rc", k), "clip_grad_norm_scale");
        snprintf(what, sizeof what, "the total norm (values near 1e-7, max_norm %g)",
                 (double)tiny_max[m]);
        total_judge(k, what, total, 4e-7);
        snprintf(what, sizeof what, "the clipped gradients (values near 1e-7, max_norm %g)",
                 (double)tiny_max[m]);
        clipped_judge(k, tw, 7 + CLIP_SPLIT, what,
                      "coef = max_norm / (total + 1e-6), applied when below 1, as PyTorch does");
    }
    free(want);
    free(g);
}
#endif
