/*
 * grade05.c: the graded suite of Lesson 05 (lessons/05_trainer/exercises.c).
 *
 * Oracles: PyTorch's clip_grad_norm_ (tests/fixtures/optim.txt) and norms
 * worked out in closed form; GradScaler's rules and early stopping's, worked
 * out by hand on sequences chosen so that each rule (and each off-by-one)
 * changes the outcome; for the epoch loop, an uninterrupted run against an
 * interrupted one (they must agree bit for bit), callbacks that record what
 * they see, and lib's own epoch loop (the reference run); for checkpoint
 * validation, files written in the test with one defect each; for the whole
 * lesson, runs from inputs drawn for the grading run against the judge's own
 * training in double and its own replay of GradScaler's and early stopping's
 * rules (drawn_whole.h, oracle_mlp.h).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see graded.h. Inputs are
 * shared by both halves (outside the #ifdefs); what is expected lives only in
 * the JUDGE halves.
 */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/drawn_whole.h"
#include "../graded.h"
#include "lib/train/checkpoint.h"
#include "lib/core/err.h"
#include "lib/device/tensor.h"
#include "tests/common/fixture.h"
#ifdef GRADE_JUDGE
#include <float.h>

#include "../../oracles/oracle_iris.h"
#include "../../oracles/oracle_mlp.h"
#endif
#ifdef GRADE_RUNNER
#include <unistd.h>

#include "lib/nn/amp.h"
#include "lib/train/experiment.h"
#include "lib/nn/layers.h"
#include "lib/nn/optim.h"
#include "lib/io/safetensors.h"
#include "lib/train/trainer.h"
#include "tests/common/tmpdir.h"
#endif

/* ---- ex05.1 grad_scaler_update ---------------------------------------------------- */

/* The steps fed to the scaler: 1 = the step's gradients held an inf. */
static const int backoff_inf[7] = {0, 0, 1, 0, 0, 0, 0}; /* interval 3 */
static const int long_inf[11] = {0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0}; /* interval 2 */

#ifdef GRADE_RUNNER
/* One update after a step with (or without) an inf: records k.rc, k.scale,
 * k.tracker, k.found_inf, k.unscaled. */
static void update_run(const char *k_in, GradScaler *s, int found_inf)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    s->found_inf = found_inf != 0;
    s->unscaled = true;
    err_clear();
    put_rc(key("%s.rc", k), grad_scaler_update(s));
    put_f64(key("%s.scale", k), s->scale);
    put_i64(key("%s.tracker", k), s->growth_tracker);
    put_i64(key("%s.found_inf", k), s->found_inf);
    put_i64(key("%s.unscaled", k), s->unscaled);
}

RUN(scaler_backoff_and_growth)
{
    GradScaler s;
    grad_scaler_init(&s, true);
    s.growth_interval = 3;
    for (int i = 0; i < 7; i++) update_run(key("step%d", i + 1), &s, backoff_inf[i]);
}

RUN(scaler_edges)
{
    GradScaler s;
    grad_scaler_init(&s, true);
    /* Two clean steps already counted, interval 3: this one would grow the
     * scale, and 2^127 x 2 overflows float. */
    s.growth_interval = 3;
    s.growth_tracker = 2;
    s.scale = 0x1p127f;
    update_run("huge", &s, 0);

    GradScaler off;
    grad_scaler_init(&off, false);
    off.found_inf = true;
    err_clear();
    put_rc("off.rc", grad_scaler_update(&off));
    put_f64("off.scale", off.scale);
    put_i64("off.tracker", off.growth_tracker);
    put_i64("off.enabled", off.enabled);

    grad_scaler_init(&s, true);
    s.growth_factor = 4.0f, s.backoff_factor = 0.25f, s.growth_interval = 2;
    update_run("f1", &s, 0);
    update_run("f2", &s, 0);
    update_run("f3", &s, 1);
}

RUN(scaler_long_run)
{
    GradScaler s;
    grad_scaler_init(&s, true);
    s.growth_interval = 2;
    for (int i = 0; i < 11; i++) update_run(key("step%d", i + 1), &s, long_inf[i]);
}
#endif

#ifdef GRADE_JUDGE
/* found_inf and unscaled cleared, and the return value. */
static void update_judge(const char *k_in)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    expect_ok(key("%s.rc", k), "grad_scaler_update");
    ck_assert_msg(!got_i64(key("%s.found_inf", k)) && !got_i64(key("%s.unscaled", k)),
                  "after update, found_inf and unscaled must be cleared for the next step");
}

/* A sequence of updates against the scales and trackers worked out by hand. */
static void sequence_judge(const int *inf, const float *scale, const int *tracker, int n,
                           int interval)
{
    for (int i = 0; i < n; i++) {
        char k[16];
        snprintf(k, sizeof k, "step%d", i + 1);
        update_judge(k);
        double got_scale = got_f64(key("%s.scale", k));
        long long got_tracker = got_i64(key("%s.tracker", k));
        ck_assert_msg(got_scale == scale[i] && got_tracker == tracker[i],
                      "step %d (%s): scale %g and growth_tracker %lld, expected %g and %d "
                      "(interval %d: backoff x0.5 and reset on inf; grow x2 on the %s clean "
                      "step in a row, then reset)",
                      i + 1, inf[i] ? "inf" : "clean", got_scale, got_tracker, (double)scale[i],
                      tracker[i], interval, interval == 3 ? "3rd" : "2nd");
    }
}

JUDGE(scaler_backoff_and_growth)
{
    /* clean, clean, inf, clean, clean, clean (grow), clean */
    const float scale[7] = {65536, 65536, 32768, 32768, 32768, 65536, 65536};
    const int tracker[7] = {1, 2, 0, 1, 2, 0, 1};
    sequence_judge(backoff_inf, scale, tracker, 7, 3);
}

JUDGE(scaler_edges)
{
    update_judge("huge");
    double scale = got_f64("huge.scale");
    long long tracker = got_i64("huge.tracker");
    ck_assert_msg(scale == 0x1p127 && tracker == 0,
                  "a scale of 2^127 must not grow into inf: got scale %g, tracker %lld (keep the "
                  "scale, reset the tracker)",
                  scale, tracker);
    expect_ok("off.rc", "grad_scaler_update");
    ck_assert_msg(got_f64("off.scale") == 65536.0 && got_i64("off.tracker") == 0 &&
                      got_i64("off.enabled") == 0,
                  "a disabled scaler must be left as it is");
    update_judge("f1");
    update_judge("f2");
    ck_assert_msg(got_f64("f2.scale") == 262144.0,
                  "growth_factor 4: scale %g, expected 262144 (use the fields, not 2 and 0.5)",
                  got_f64("f2.scale"));
    update_judge("f3");
    ck_assert_msg(got_f64("f3.scale") == 65536.0, "backoff_factor 0.25: scale %g, expected 65536",
                  got_f64("f3.scale"));
}

JUDGE(scaler_long_run)
{
    /* Interval 2: c c (grow) c c (grow) i i c i (the tracker of 1 goes back to
     * 0) c c (grow) c. */
    const float scale[11] = {65536, 131072, 131072, 262144, 131072, 65536,
                             65536, 32768,  32768,  65536,  65536};
    const int tracker[11] = {1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1};
    sequence_judge(long_inf, scale, tracker, 11, 2);
}
#endif

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

/* ---- ex05.3 early_stopping_call ---------------------------------------------------- */

/* Validation losses fed to an early stopping, epoch by epoch. */
typedef struct EsInput {
    int patience;
    float min_delta;
    int n;
    float losses[12];
} EsInput;

/* Improves until epoch 3, then 2 epochs within min_delta (not improvements), then worse. */
#define ES_SEQ {1.0f, 0.8f, 0.5f, 0.495f, 0.49f, 0.6f, 0.7f, 0.1f}
static const EsInput es_patience[5] = {
    {2, 0.0f, 8, ES_SEQ},
    {3, 0.0f, 8, ES_SEQ},
    {2, 0.02f, 8, ES_SEQ},
    {1, 0.02f, 8, ES_SEQ},
    {2, 0.0f, 4, {1.0f, 0.5f, 0.5f, 0.5f}}, /* the same loss again is no improvement */
};
static const EsInput es_nan = {2, 0.0f, 3, {0.5f, NAN, NAN}};
static const EsInput es_resets[3] = {
    /* worse, worse, better, then worse three times */
    {3, 0.0f, 8, {1.0f, 1.1f, 1.2f, 0.9f, 1.0f, 1.1f, 1.3f, 0.5f}},
    /* better every other epoch, then twice worse in a row */
    {2, 0.0f, 9, {1.0f, 0.9f, 1.0f, 0.8f, 0.85f, 0.7f, 0.75f, 0.72f, 0.74f}},
    /* a slow drift by 0.01 with min_delta 0.015: every second epoch improves on the best */
    {2, 0.015f, 9, {1.0f, 0.99f, 0.98f, 0.97f, 0.96f, 0.95f, 0.94f, 0.935f, 0.93f}},
};

#ifdef GRADE_RUNNER
/* Feed in's losses through a bare trainer's history, as trainer_end_epoch would,
 * until the trainer's stop flag is set; records k.rcN and k.stopN per epoch N,
 * then k.stopped_epoch and k.reason. */
static void es_run(const char *k_in, const EsInput *in)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    Trainer t;
    memset(&t, 0, sizeof t);
    float buf[16];
    t.hist.val_loss = buf;
    t.hist.cap = 16;
    Callable es;
    ck_assert_msg(early_stopping_new(in->patience, in->min_delta, &es) == ERR_OK, "%s",
                  err_message());
    for (int i = 0; i < in->n; i++) {
        t.hist.val_loss[i] = in->losses[i];
        t.hist.n = i + 1;
        Value arg = value_ptr(&t), r = value_none();
        err_clear();
        int rc = callable_call(es, &arg, 1, &r);
        put_rc(key("%s.rc%d", k, i + 1), rc);
        put_i64(key("%s.stop%d", k, i + 1), t.stop);
        if (rc || t.stop) break;
    }
    EarlyStopping *st = callable_state(es);
    put_i64(key("%s.stopped_epoch", k), st->stopped_epoch);
    t.stop_reason[sizeof t.stop_reason - 1] = '\0';
    put_str(key("%s.reason", k), t.stop_reason);
    callable_release(es);
}

RUN(early_stopping_patience)
{
    for (int c = 0; c < 5; c++) es_run(key("c%d", c), &es_patience[c]);
}

RUN(early_stopping_nan_and_empty)
{
    Trainer t;
    memset(&t, 0, sizeof t);
    float buf[8];
    t.hist.val_loss = buf;
    t.hist.cap = 8;
    Callable es;
    ck_assert_msg(early_stopping_new(2, 0.0f, &es) == ERR_OK, "%s", err_message());
    Value arg = value_ptr(&t), r = value_none();
    err_clear();
    put_rc("empty", callable_call(es, &arg, 1, &r));
    callable_release(es);
    es_run("nan", &es_nan);
}

RUN(early_stopping_wait_resets)
{
    for (int c = 0; c < 3; c++) es_run(key("c%d", c), &es_resets[c]);
}
#endif

#ifdef GRADE_JUDGE
/* The epoch after which the trainer was stopped (0: never), every call having
 * returned 0. */
static long es_stop_epoch(const char *k_in, const EsInput *in)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    for (int i = 1; i <= in->n; i++) {
        expect_ok(key("%s.rc%d", k, i), "early_stopping_call");
        if (got_i64(key("%s.stop%d", k, i))) return i;
    }
    return 0;
}

static void es_losses(const EsInput *in, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < in->n && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%g", i ? ", " : "",
                                 (double)in->losses[i]);
}

/* The stop epoch, stopped_epoch and the reason against want. */
static void es_judge(const char *k_in, const EsInput *in, long want, const char *why)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    long got = es_stop_epoch(k, in);
    char losses[200];
    es_losses(in, losses, sizeof losses);
    ck_assert_msg(got == want,
                  "patience %d, min_delta %g, validation losses %s: stopped after epoch %ld, "
                  "expected %ld (0: never; %s)",
                  in->patience, (double)in->min_delta, losses, got, want, why);
    long stopped = (long)got_i64(key("%s.stopped_epoch", k));
    ck_assert_msg(stopped == got, "stopped_epoch is %ld, expected %ld", stopped, got);
    const char *reason = got_str(key("%s.reason", k));
    ck_assert_msg(got == 0 || strstr(reason, "no improvement"),
                  "the trainer's stop_reason should say why (\"no improvement in N epochs "
                  "...\"), got \"%s\"",
                  reason);
    if (got == 0) return;
    /* The epoch of early stopping's own best: the last improvement before the stop. */
    float best = INFINITY;
    long at = 0;
    for (long i = 0; i < got; i++)
        if (in->losses[i] < best - in->min_delta) {
            best = in->losses[i];
            at = i + 1;
        }
    char want_at[32];
    snprintf(want_at, sizeof want_at, "at epoch %ld)", at);
    ck_assert_msg(strstr(reason, want_at) != NULL,
                  "patience %d, min_delta %g, validation losses %s: the stop_reason should end "
                  "with early stopping's best and the epoch it was reached (\"(best %.4f %s\"), "
                  "got \"%s\"",
                  in->patience, (double)in->min_delta, losses, (double)best, want_at, reason);
}

JUDGE(early_stopping_patience)
{
    const long want[5] = {7, 0, 5, 4, 4};
    for (int c = 0; c < 4; c++)
        es_judge(key("c%d", c), &es_patience[c], want[c],
                 "an improvement is a loss below best - min_delta");
    es_judge("c4", &es_patience[4], want[4], "the same loss again is no improvement");
}

JUDGE(early_stopping_nan_and_empty)
{
    int rc = got_rc("empty");
    ck_assert_msg(rc != ERR_TODO, "early_stopping_call is not written yet");
    ck_assert_msg(rc == ERR_ARG, "an empty history must be an ERR_ARG (got %s)",
                  err_name((ErrCode)rc));
    long got = es_stop_epoch("nan", &es_nan);
    ck_assert_msg(got == 3, "a NaN validation loss is never an improvement: expected a stop "
                            "after epoch 3, got %ld",
                  got);
    long stopped = (long)got_i64("nan.stopped_epoch");
    ck_assert_msg(stopped == 3, "stopped_epoch is %ld, expected 3", stopped);
}

JUDGE(early_stopping_wait_resets)
{
    /* 1.0 (best), 1.1 and 1.2 (wait 1, 2), 0.9 (best, wait 0), 1.0, 1.1, 1.3
     * (wait 1, 2, 3): stop after epoch 7, not 5. */
    es_judge("c0", &es_resets[0], 7,
             "an improvement sets wait back to 0: patience counts from the last improvement");
    /* Improvements at epochs 1, 2, 4, 6, each after one worse epoch (wait 1 at
     * 3 and 5); then 0.75 and 0.72 are no better than 0.7: wait 1, 2 at epochs
     * 7 and 8, stop after epoch 8, not 5. */
    es_judge("c1", &es_resets[1], 8,
             "an improvement sets wait back to 0: patience counts from the last improvement");
    /* best 1.0; 0.99 is not below 0.985 (wait 1); 0.98 is (best 0.98, wait 0);
     * 0.97 no, 0.96 yes, 0.95 no, 0.94 yes (best 0.94); 0.935 and 0.93 are not
     * below 0.925: stop after epoch 9. */
    es_judge("c2", &es_resets[2], 9,
             "best only changes on an improvement: a loss within min_delta of the best leaves "
             "it as it is, and an improvement sets wait back to 0");
}
#endif

/* ---- ex05.4 trainer_run_epochs --------------------------------------------------------- */

/* The parameters of the tiny experiments' model (one hidden layer of 16). */
static const char *const PARAMS[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};

#ifdef GRADE_RUNNER
static char g_root[64];

static Experiment *tiny(const char *name, long epochs)
{
    if (!g_root[0]) tmpdir_make(g_root, sizeof g_root, "wb-grade05");
    ExperimentConfig c;
    experiment_config_default(&c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.hidden[0] = 16;
    c.epochs = epochs;
    c.lr = 0.1f;
    Experiment *e = NULL;
    ck_assert_msg(experiment_open(&c, g_root, &e) == ERR_OK, "%s", err_message());
    e->trainer->opts.progress = false;
    return e;
}

/* rm -rf, without a shell. */
static void cleanup(void)
{
    if (g_root[0] && tmpdir_remove(g_root) != 0) fprintf(stderr, "could not remove %s\n", g_root);
}

/* The model's parameters as k.NAME. */
static void put_weights(const char *k_in, Module *m)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    for (int i = 0; i < 4; i++) {
        Param *p = module_find_param(m, PARAMS[i]);
        ck_assert_msg(p != NULL, "grader: the model has no %s", PARAMS[i]);
        put_f32(key("%s.%s", k, PARAMS[i]), tensor_f32(p->value), p->value->numel);
    }
}

/* The history's first hist.n rows (at most its capacity). */
static void put_history(const char *k_in, const Trainer *t)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    long n = t->hist.n < 0 ? 0 : t->hist.n > t->hist.cap ? t->hist.cap : t->hist.n;
    put_i64(key("%s.rows", k), t->hist.n);
    put_f32(key("%s.val_loss", k), t->hist.val_loss, n);
    put_f32(key("%s.train_loss", k), t->hist.train_loss, n);
    put_f32(key("%s.val_acc", k), t->hist.val_acc, n);
    put_f32(key("%s.lr", k), t->hist.lr, n);
    put_f32(key("%s.loss_scale", k), t->hist.loss_scale, n);
    put_f32(key("%s.skipped", k), t->hist.skipped, n);
}

/* trainer_run_epochs(e, upto): records k.rc, k.epoch, k.hist_n. */
static void call_run(const char *k_in, Experiment *e, long upto)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    err_clear();
    put_rc(key("%s.rc", k), trainer_run_epochs(e->trainer, upto));
    put_i64(key("%s.epoch", k), e->trainer->epoch);
    put_i64(key("%s.hist_n", k), e->trainer->hist.n);
}

RUN(epoch_loop_resumes)
{
    Experiment *whole = tiny("whole", 4), *parts = tiny("parts", 4);
    call_run("whole", whole, 0);
    call_run("p1", parts, 1);
    call_run("p1again", parts, 1);
    call_run("p3", parts, 3);
    call_run("p0", parts, 0);
    put_weights("whole", whole->model);
    put_weights("parts", parts->model);
    put_history("whole", whole->trainer);
    put_history("parts", parts->trainer);
    call_run("p9", parts, 9);
    experiment_free(whole), experiment_free(parts);
    cleanup();
}

/* A callback that records what it sees (the trainer's epoch and history rows)
 * at each call, and stops the trainer after epoch `at` or fails at epoch `fail`. */
typedef struct Probe {
    long at, fail, calls;
    char name[16];
} Probe;

static int probe_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    Probe *s = state;
    Trainer *t = args[0].as.p;
    s->calls++;
    put_i64(key("%s.call%ld.epoch", s->name, s->calls), t->epoch);
    put_i64(key("%s.call%ld.hist_n", s->name, s->calls), t->hist.n);
    *out = value_none();
    if (t->hist.n == s->fail) return err_set(ERR_IO, "the callback failed on purpose");
    if (t->hist.n == s->at) t->stop = true;
    return ERR_OK;
}
static const CallableClass probe_class = {"Probe", 1, probe_call, NULL};

static Callable add_probe(Experiment *e, Probe *p)
{
    Callable cb;
    ck_assert_msg(callable_new(&probe_class, p, &cb) == ERR_OK, "%s", err_message());
    ck_assert_msg(trainer_add_callback(e->trainer, cb) == ERR_OK, "%s", err_message());
    return cb;
}

RUN(epoch_loop_stops)
{
    Experiment *e = tiny("stop", 5);
    Probe s = {2, 0, 0, "stop"};
    Callable cb = add_probe(e, &s);
    call_run("stop", e, 0);
    put_i64("stop.calls", s.calls);
    Experiment *f = tiny("fail", 5);
    Probe s2 = {0, 3, 0, "fail"};
    Callable cb2 = add_probe(f, &s2);
    call_run("fail", f, 0);
    callable_release(cb), callable_release(cb2);
    experiment_free(e), experiment_free(f);
    cleanup();
}

RUN(epoch_loop_bookkeeping)
{
    Experiment *e = tiny("seen", 3);
    Probe s = {0, 0, 0, "seen"};
    Callable cb = add_probe(e, &s);
    call_run("seen", e, 0);
    put_i64("seen.calls", s.calls);
    call_run("back", e, 2); /* a target before where the trainer stands */
    put_i64("back.calls", s.calls);
    Experiment *f = tiny("preset", 3);
    f->trainer->stop = true; /* set before the call: nothing is trained */
    call_run("preset", f, 0);
    callable_release(cb);
    experiment_free(e), experiment_free(f);
    cleanup();
}

RUN(epoch_loop_matches_lib)
{
    /* 4 epochs in one call; the reference run is lib's own loop. */
    Experiment *e = tiny("lib", 4);
    Trainer *t = e->trainer;
#ifdef GRADE_REFERENCE
    int rc = ERR_OK;
    for (long ep = 1; ep <= 4 && !t->stop && !rc; ep++) {
        EpochStats s;
        rc = trainer_train_epoch(t, ep, &s);
        if (!rc) rc = trainer_validate(t, &s);
        if (!rc) rc = trainer_end_epoch(t, ep, &s);
        if (!rc) t->epoch = ep;
    }
    ck_assert_msg(rc == ERR_OK, "grader: lib's epoch loop failed: %s", err_message());
    put_i64("lib.epoch", t->epoch);
#else
    call_run("lib", e, 0);
#endif
    put_history("lib", t);
    put_i64("lib.best_epoch", t->best_epoch);
    put_weights("lib", e->model);
    experiment_free(e);
    cleanup();
}
#endif

#ifdef GRADE_JUDGE
/* A call's return value: not the stub's, then 0. */
static int run_ok(const char *k_in)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    expect_written(key("%s.rc", k), "trainer_run_epochs");
    return got_rc(key("%s.rc", k)) == ERR_OK;
}

static long epoch_of(const char *k) { return (long)got_i64(key("%s.epoch", k)); }
static long hist_of(const char *k) { return (long)got_i64(key("%s.hist_n", k)); }

/* Bit for bit the same parameters. */
static void same_weights(const char *a, const char *b, const char *how)
{
    for (int i = 0; i < 4; i++) {
        int64_t na, nb;
        const float *pa = got_f32_n(key("%s.%s", a, PARAMS[i]), &na);
        const float *pb = got_f32_n(key("%s.%s", b, PARAMS[i]), &nb);
        ck_assert_msg(na == nb && memcmp(pa, pb, sizeof(float) * (size_t)na) == 0,
                      "%s: %s differs from the uninterrupted run's", how, PARAMS[i]);
    }
}

JUDGE(epoch_loop_resumes)
{
    ck_assert_msg(run_ok("whole"), "%s", got_rc_msg("whole.rc"));
    ck_assert_msg(epoch_of("whole") == 4 && hist_of("whole") == 4,
                  "trainer_run_epochs(t, 0) with 4 epochs configured: epoch %ld, %ld history "
                  "rows, expected 4 and 4",
                  epoch_of("whole"), hist_of("whole"));
    ck_assert_msg(run_ok("p1") && epoch_of("p1") == 1,
                  "trainer_run_epochs(t, 1): epoch %ld, expected 1", epoch_of("p1"));
    ck_assert_msg(run_ok("p1again") && hist_of("p1again") == 1,
                  "calling again with upto 1 at epoch 1 must do nothing (history has %ld rows)",
                  hist_of("p1again"));
    ck_assert_msg(run_ok("p3") && epoch_of("p3") == 3,
                  "then trainer_run_epochs(t, 3): epoch %ld, expected 3", epoch_of("p3"));
    ck_assert_msg(run_ok("p0") && epoch_of("p0") == 4,
                  "then trainer_run_epochs(t, 0): epoch %ld, expected 4", epoch_of("p0"));
    ck_assert_msg(got_i64("parts.rows") == 4,
                  "after 1 + 2 + 1 epochs the history has %ld rows, expected 4",
                  (long)got_i64("parts.rows"));
    same_weights("whole", "parts", "1 + 2 + 1 epochs in three calls");
    const float *vw = got_f32("whole.val_loss", 4), *vp = got_f32("parts.val_loss", 4);
    for (long i = 0; i < 4; i++)
        ck_assert_msg(memcmp(&vw[i], &vp[i], sizeof(float)) == 0,
                      "epoch %ld's validation loss differs between one call and three", i + 1);
    expect_written("p9.rc", "trainer_run_epochs");
    int rc = got_rc("p9.rc");
    ck_assert_msg(rc == ERR_ARG && epoch_of("p9") == 4,
                  "trainer_run_epochs(t, 9) with 4 epochs configured must be an ERR_ARG and "
                  "train nothing (got %s, epoch %ld)",
                  err_name((ErrCode)rc), epoch_of("p9"));
}

JUDGE(epoch_loop_stops)
{
    ck_assert_msg(run_ok("stop"), "%s", got_rc_msg("stop.rc"));
    long calls = (long)got_i64("stop.calls");
    ck_assert_msg(epoch_of("stop") == 2 && calls == 2,
                  "a callback set the stop flag after epoch 2: training ended at epoch %ld "
                  "after %ld callback calls, expected 2 and 2 (check the flag before each "
                  "epoch)",
                  epoch_of("stop"), calls);
    expect_written("fail.rc", "trainer_run_epochs");
    int rc = got_rc("fail.rc");
    ck_assert_msg(rc == ERR_IO && epoch_of("fail") == 2,
                  "a callback failing after epoch 3: expected its error (ERR_IO) and the "
                  "trainer left at epoch 2, the last one that finished; got %s and epoch %ld",
                  err_name((ErrCode)rc), epoch_of("fail"));
}

JUDGE(epoch_loop_bookkeeping)
{
    ck_assert_msg(run_ok("seen"), "%s", got_rc_msg("seen.rc"));
    long calls = (long)got_i64("seen.calls");
    ck_assert_msg(calls == 3 && epoch_of("seen") == 3 && hist_of("seen") == 3,
                  "trainer_run_epochs(t, 0) with 3 epochs configured: epoch %ld, %ld history "
                  "rows, the callbacks called %ld times; expected 3, 3 and 3",
                  epoch_of("seen"), hist_of("seen"), calls);
    for (long k = 1; k <= 3; k++) {
        long e = (long)got_i64(key("seen.call%ld.epoch", k));
        long h = (long)got_i64(key("seen.call%ld.hist_n", k));
        ck_assert_msg(h == k, "the callbacks of epoch %ld saw %ld history rows, expected %ld "
                              "(trainer_end_epoch records the epoch, then calls them)",
                      k, h, k);
        ck_assert_msg(e == k - 1,
                      "while epoch %ld's callbacks ran, t->epoch was %ld, expected %ld: an "
                      "epoch is finished only when trainer_end_epoch has returned, so set "
                      "t->epoch = e after it",
                      k, e, k - 1);
    }
    ck_assert_msg(run_ok("back") && epoch_of("back") == 3 && hist_of("back") == 3 &&
                      got_i64("back.calls") == 3,
                  "trainer_run_epochs(t, 2) at epoch 3 must do nothing and return 0 (got "
                  "%d, epoch %ld, %ld history rows)",
                  got_rc("back.rc"), epoch_of("back"), hist_of("back"));
    ck_assert_msg(run_ok("preset") && epoch_of("preset") == 0 && hist_of("preset") == 0,
                  "with the stop flag already set, trainer_run_epochs(t, 0) must train nothing "
                  "and return 0 (got %d, epoch %ld, %ld history rows): check the flag before "
                  "every epoch, the first one too",
                  got_rc("preset.rc"), epoch_of("preset"), hist_of("preset"));
}

/* got against lib's reference run. */
static void close_to_ref(const char *what, const float *got, const float *want, int64_t n,
                         double atol, double rtol, const char *hint)
{
    for (int64_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        ck_assert_msg(isfinite(g) && fabs(g - w) <= atol + rtol * fabs(w),
                      "%s[%lld] is %.7g, lib's epoch loop gives %.7g (tolerance %.2g)%s%s", what,
                      (long long)i, g, w, atol + rtol * fabs(w), hint ? ": " : "",
                      hint ? hint : "");
    }
}

/* A run's history and weights against the reference run's, which may come from
 * another machine (another BLAS, other vector widths): a right answer differs
 * from it by about 1e-7 of each tensor's largest value. */
static void matches_ref(const char *k_in, double rtol)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    long n = (long)ref_i64(key("%s.rows", k));
    static const char *const rows[] = {"val_loss", "train_loss", "val_acc", "lr"};
    for (int r = 0; r < 4; r++) {
        char what[64];
        snprintf(what, sizeof what, "the history's %s", rows[r]);
        close_to_ref(what, got_f32(key("%s.%s", k, rows[r]), n),
                     ref_f32(key("%s.%s", k, rows[r]), n), n, 1e-6, rtol,
                     "epoch e must train with trainer_train_epoch(t, e, ...) (the epoch number "
                     "fixes the batch order), then validate, then trainer_end_epoch(t, e, ...)");
    }
    for (int i = 0; i < 4; i++) {
        int64_t nw;
        const float *want = ref_f32_n(key("%s.%s", k, PARAMS[i]), &nw);
        double largest = 0;
        for (int64_t j = 0; j < nw; j++) largest = fmax(largest, fabs(want[j]));
        close_to_ref(PARAMS[i], got_f32(key("%s.%s", k, PARAMS[i]), nw), want, nw,
                     1e-4 * largest, rtol,
                     "the weights after training differ from lib's epoch loop's");
    }
}

JUDGE(epoch_loop_matches_lib)
{
    ck_assert_msg(run_ok("lib"), "%s", got_rc_msg("lib.rc"));
    ck_assert_msg(epoch_of("lib") == ref_i64("lib.epoch") && hist_of("lib") == ref_i64("lib.rows"),
                  "trainer_run_epochs(t, 0) with 4 epochs configured: epoch %ld, %ld history "
                  "rows, expected %lld and %lld",
                  epoch_of("lib"), hist_of("lib"), (long long)ref_i64("lib.epoch"),
                  (long long)ref_i64("lib.rows"));
    long best = (long)got_i64("lib.best_epoch"), want = (long)ref_i64("lib.best_epoch");
    ck_assert_msg(best == want,
                  "the trainer's best_epoch is %ld, lib's epoch loop gives %ld: pass the epoch "
                  "number e to trainer_end_epoch",
                  best, want);
    matches_ref("lib", 1e-3);
}
#endif

/* ---- ex05.5 checkpoint_validate ---------------------------------------------------------- */

/* The one defect a file is written with. */
enum {
    D_NONE,
    D_MISSING,    /* the last parameter is missing */
    D_SHAPE,      /* fc1.weight is [8, 5], not [7, 5] */
    D_F16,        /* fc1.weight is F16 */
    D_EXTRA,      /* a parameter the model does not have: model.fc9.weight */
    D_TRANSPOSED, /* fc1.weight is [5, 7]: as many values, another shape */
    D_FLAT,       /* fc1.weight is [35]: as many values, one dimension */
    D_LAST_BF16,  /* fc2.bias, the last one, is BF16 */
    D_FULL,       /* none, with an optimizer's and a history's tensors besides */
    D_SHAPE1,     /* fc1.weight is [7, 6], not [7, 5]: the second dimension differs */
    D_EXTRA_FIRST, /* an extra tensor first in the file, and first by name: model.a.weight */
};

#ifdef GRADE_RUNNER
static Module *ckpt_model(void)
{
    Rng rng;
    rng_seed(&rng, 3, 0);
    int64_t hidden[1] = {7};
    Module *m = mlp_new("mlp", 5, hidden, 1, 3, &rng);
    ck_assert_msg(m != NULL, "%s", err_message());
    return m;
}

/* Write the model's parameters to a file with one defect, then validate it;
 * records k.path (before the call) and k.rc. */
static void validate_run(const char *k_in, Module *m, const char *format, const char *version,
                         int defect)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    char path[64];
    snprintf(path, sizeof path, "/tmp/wb-grade05-ckpt-XXXXXX");
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    ParamRef p[8];
    int n = module_parameters(m, p, 8);
    ck_assert(n == 4);
    StTensor t[12];
    int k_ = 0;
    static float junk[64 * 64];
    if (defect == D_EXTRA_FIRST) {
        StTensor *s = &t[k_++];
        snprintf(s->name, sizeof s->name, "model.a.weight");
        s->dtype = DTYPE_F32, s->ndim = 1, s->shape[0] = 2, s->data = junk, s->bytes = 8;
    }
    for (int i = 0; i < n; i++) {
        if (defect == D_MISSING && i == n - 1) continue;
        StTensor *s = &t[k_++];
        ck_assert(snprintf(s->name, sizeof s->name, "model.%s", p[i].name) < (int)sizeof s->name);
        s->dtype = DTYPE_F32;
        s->ndim = p[i].param->value->ndim;
        for (int j = 0; j < s->ndim; j++) s->shape[j] = p[i].param->value->shape[j];
        if (defect == D_SHAPE && i == 0) s->shape[0] += 1;
        if (defect == D_SHAPE1 && i == 0) s->shape[1] += 1;
        if (defect == D_TRANSPOSED && i == 0) {
            int64_t r = s->shape[0];
            s->shape[0] = s->shape[1], s->shape[1] = r;
        }
        if (defect == D_FLAT && i == 0) s->ndim = 1, s->shape[0] = p[i].param->value->numel;
        if (defect == D_F16 && i == 0) s->dtype = DTYPE_F16;
        if (defect == D_LAST_BF16 && i == n - 1) s->dtype = DTYPE_BF16;
        int64_t numel = 1;
        for (int j = 0; j < s->ndim; j++) numel *= s->shape[j];
        s->data = junk;
        s->bytes = (size_t)numel * dtype_size(s->dtype);
    }
    if (defect == D_EXTRA) {
        StTensor *s = &t[k_++];
        snprintf(s->name, sizeof s->name, "model.fc9.weight");
        s->dtype = DTYPE_F32, s->ndim = 1, s->shape[0] = 2, s->data = junk, s->bytes = 8;
    }
    if (defect == D_FULL) {
        static const char *const more[] = {"optim.fc1.weight.momentum_buffer", "history.val_loss",
                                           "optim.fc2.bias.momentum_buffer"};
        for (int i = 0; i < 3; i++) {
            StTensor *s = &t[k_++];
            snprintf(s->name, sizeof s->name, "%s", more[i]);
            s->dtype = DTYPE_F32, s->ndim = 1, s->shape[0] = 3, s->data = junk, s->bytes = 12;
        }
    }
    const char *meta[4];
    int nm = 0;
    if (format) meta[2 * nm] = "wb.format", meta[2 * nm + 1] = format, nm++;
    if (version) meta[2 * nm] = "wb.version", meta[2 * nm + 1] = version, nm++;
    ck_assert_msg(safetensors_save(path, t, k_, meta, nm) == ERR_OK, "%s", err_message());
    SafeTensors *st = NULL;
    ck_assert_msg(safetensors_load(path, &st) == ERR_OK, "%s", err_message());
    put_str(key("%s.path", k), path);
    err_clear();
    put_rc(key("%s.rc", k), checkpoint_validate(st, m, path));
    safetensors_free(st);
    remove(path);
}

RUN(validate_checkpoints)
{
    Module *m = ckpt_model();
    validate_run("good", m, CHECKPOINT_FORMAT, "1", D_NONE);
    validate_run("weights", m, CHECKPOINT_WEIGHTS_FORMAT, "1", D_NONE);
    validate_run("noformat", m, NULL, "1", D_NONE);
    validate_run("pytorch", m, "pytorch", "1", D_NONE);
    validate_run("v2", m, CHECKPOINT_FORMAT, "2", D_NONE);
    validate_run("noversion", m, CHECKPOINT_FORMAT, NULL, D_NONE);
    validate_run("missing", m, CHECKPOINT_FORMAT, "1", D_MISSING);
    validate_run("shape", m, CHECKPOINT_FORMAT, "1", D_SHAPE);
    validate_run("f16", m, CHECKPOINT_FORMAT, "1", D_F16);
    validate_run("extra", m, CHECKPOINT_FORMAT, "1", D_EXTRA);
    module_free(m);
}

RUN(validate_lookalikes)
{
    Module *m = ckpt_model();
    ParamRef p[8];
    int n = module_parameters(m, p, 8);
    ck_assert(n == 4);
    for (int i = 0; i < n; i++)
        put_f32(key("before.%d", i), tensor_f32(p[i].param->value), p[i].param->value->numel);
    validate_run("full", m, CHECKPOINT_FORMAT, "1", D_FULL);
    validate_run("transposed", m, CHECKPOINT_FORMAT, "1", D_TRANSPOSED);
    validate_run("flat", m, CHECKPOINT_FORMAT, "1", D_FLAT);
    validate_run("bf16", m, CHECKPOINT_WEIGHTS_FORMAT, "1", D_LAST_BF16);
    validate_run("v10", m, CHECKPOINT_FORMAT, "10", D_NONE);
    validate_run("v1.5", m, CHECKPOINT_FORMAT, "1.5", D_NONE);
    validate_run("longer", m, CHECKPOINT_FORMAT "-old", "1", D_NONE);
    validate_run("shorter", m, "workbook", "1", D_NONE);
    validate_run("shape1", m, CHECKPOINT_FORMAT, "1", D_SHAPE1);
    validate_run("extrafirst", m, CHECKPOINT_FORMAT, "1", D_EXTRA_FIRST);
    for (int i = 0; i < n; i++)
        put_f32(key("after.%d", i), tensor_f32(p[i].param->value), p[i].param->value->numel);
    module_free(m);
}
#endif

#ifdef GRADE_JUDGE
static void expect_accepted(const char *k_in, const char *what)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    expect_written(key("%s.rc", k), "checkpoint_validate");
    ck_assert_msg(got_rc(key("%s.rc", k)) == ERR_OK, "%s was refused: %s", what,
                  got_rc_msg(key("%s.rc", k)));
}

static void expect_refused(const char *k_in, const char *what, const char *words,
                           const char *words2)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    expect_written(key("%s.rc", k), "checkpoint_validate");
    int rc = got_rc(key("%s.rc", k));
    ck_assert_msg(rc == ERR_FORMAT, "%s: checkpoint_validate returned %s, expected ERR_FORMAT",
                  what, err_name((ErrCode)rc));
    const char *msg = got_rc_msg(key("%s.rc", k)), *path = got_str(key("%s.path", k));
    ck_assert_msg(strstr(msg, path) && strstr(msg, words),
                  "%s: the message should name the file and say \"%s\"; it was: %s", what, words,
                  msg);
    if (words2)
        ck_assert_msg(strstr(msg, words2),
                      "%s: the message should say \"%s\"; it was: %s", what, words2, msg);
}

JUDGE(validate_checkpoints)
{
    expect_accepted("good", "a good checkpoint");
    expect_accepted("weights", "a good weights file");
    expect_refused("noformat", "no wb.format", "not a checkpoint of this workbook", NULL);
    expect_refused("pytorch", "another format", "not a checkpoint of this workbook", NULL);
    expect_refused("v2", "version 2", "version 2", NULL);
    expect_refused("noversion", "no version", "version", NULL);
    expect_refused("missing", "a missing tensor", "missing tensor \"model.fc2.bias\"", NULL);
    expect_refused("shape", "another shape", "shape [8, 5]", NULL);
    expect_refused("f16", "float16 weights", "F16", NULL);
    expect_refused("extra", "an extra tensor", "model.fc9.weight", NULL);
}

JUDGE(validate_lookalikes)
{
    expect_accepted("full", "a good checkpoint with optimizer (\"optim.\") and history "
                            "(\"history.\") tensors besides the model's");
    expect_refused("transposed", "fc1.weight stored as [5, 7] (as many values as [7, 5])",
                   "shape [5, 7]", "model.fc1.weight");
    expect_refused("flat", "fc1.weight stored as [35] (as many values as [7, 5])", "shape [35]",
                   "model.fc1.weight");
    expect_refused("bf16", "the last tensor, fc2.bias, in bfloat16", "BF16", "model.fc2.bias");
    expect_refused("v10", "version 10", "version 10", NULL);
    expect_refused("v1.5", "version 1.5 (not 1, although atoi reads 1)", "version 1.5", NULL);
    expect_refused("longer", "wb.format \"" CHECKPOINT_FORMAT "-old\"",
                   "not a checkpoint of this workbook", NULL);
    expect_refused("shorter", "wb.format \"workbook\"", "not a checkpoint of this workbook", NULL);
    expect_refused("shape1", "fc1.weight stored as [7, 6] (the second dimension differs)",
                   "shape [7, 6]", "model.fc1.weight");
    expect_refused("extrafirst", "an extra tensor, first in the file", "model.a.weight", NULL);
    for (int i = 0; i < 4; i++) {
        int64_t nb;
        const float *before = got_f32_n(key("before.%d", i), &nb);
        const float *after = got_f32(key("after.%d", i), nb);
        for (int64_t j = 0; j < nb; j++)
            ck_assert_msg(memcmp(&before[j], &after[j], sizeof(float)) == 0,
                          "checkpoint_validate changed the model's %s at [%lld] (%.7g became "
                          "%.7g): it must only check, touching nothing",
                          PARAMS[i], (long long)j, (double)before[j], (double)after[j]);
    }
}
#endif

/* ---- all of them ---------------------------------------------------------------------- */

/* The whole lesson's runs are experiments on Iris (Lesson 01's network, SGD with
 * momentum, no scheduler) whose inputs are drawn for this grading run
 * (drawn_whole.h): the split, the order of the training rows, the initial weights
 * and the batch size; the full run also draws its GradScaler, its clipping and its
 * early stopping. The runner puts the drawn weights into the experiment's model and
 * gives its trainer loaders that keep the drawn order, so that the judge can train
 * the same network itself, in double (oracle_mlp.h), and compare. */
/* lr 0.2 with momentum 0.5 halves the validation loss in 12 epochs; at lr 1 a float32
 * run and the same run in double part ways within a few epochs on 1 seed in 10. */
#define WHOLE_LR 0.2f
#define WHOLE_MOMENTUM 0.5f
#define RESUME_EPOCHS 4
#define RESUME_STOP 2
#define FULL_EPOCHS 12
/* The full run minimises 2^16 x the loss with the learning rate divided by 2^16: the
 * same training with gradients 2^16 times larger. Its GradScaler starts at 2^112 or
 * 2^120 and moves by 2^8: the loss is multiplied by 2^(scale + 16), which is 2^128 or
 * more (inf in float32: the step's gradients are inf or NaN, it is skipped and the
 * scale backs off) or at most 2^120 (the sums that make the gradients stay under 2^4
 * before scaling, with ReLU outputs under 4.3 in 1000 runs measured, so they stay
 * far from float's largest value, 2^128). So which steps are skipped follows from
 * the drawn scale and growth interval alone, and the judge works it out. */
#define FULL_WEIGHT 0x1p16f
#define FULL_LR (WHOLE_LR / 0x1p16f)
#define FULL_FACTOR 0x1p8f

typedef struct WholeDraw {
    DrawnIris iris;
    int64_t batch;
    int scale_exp;   /* the full run's GradScaler starts at 2^scale_exp */
    int interval;    /* and grows after this many clean steps */
    float clip;      /* clip_norm, in units of FULL_WEIGHT */
    int patience;    /* early stopping */
    float min_delta;
} WholeDraw;

static void whole_draw(const char *what, WholeDraw *w)
{
    drawn_iris(what, &w->iris);
    Drawn r = drawn_start(key("%s.settings", what));
    w->batch = drawn_int(&r, 10, 40);
    w->scale_exp = drawn_int(&r, 0, 1) ? 120 : 112;
    w->interval = (int)drawn_int(&r, 2, 6);
    w->clip = (float)drawn_int(&r, 3, 19) / 64.0f; /* most steps are clipped */
    w->patience = (int)drawn_int(&r, 1, 3);
    w->min_delta = (float)drawn_int(&r, 0, 20) / 500.0f;
}

#define WHOLE_SHAPE DRAWN_IRIS_SHAPE ", a random batch size"
#define FULL_SHAPE WHOLE_SHAPE ", the GradScaler's start and growth interval, clip_norm, patience and min_delta"

#ifdef GRADE_RUNNER
/* An experiment of the whole lesson and the loaders it trains with. */
typedef struct WholeRun {
    Experiment *e;
    Loader *train, *val;
} WholeRun;

/* The draw named @p what, its split as tensors, and the config of an experiment of
 * @p epochs epochs on Iris with Lesson 01's network, SGD with momentum, no scheduler. */
static void whole_start(const char *what, long epochs, WholeDraw *w, IrisTensors *t,
                        ExperimentConfig *c)
{
    whole_draw(what, w);
    drawn_iris_tensors(&w->iris, t);
    experiment_config_default(c);
    snprintf(c->data, sizeof c->data, "iris");
    c->hidden[0] = IRIS_HIDDEN;
    c->n_hidden = 1;
    snprintf(c->scheduler, sizeof c->scheduler, "none");
    c->lr = WHOLE_LR;
    c->momentum = WHOLE_MOMENTUM;
    c->epochs = epochs;
}

/* Open experiment @p name of config @p base with the drawn weights, on the drawn
 * split @p t in batches of w->batch, in order. */
static void whole_open(WholeRun *r, const char *name, const ExperimentConfig *base,
                       const WholeDraw *w, const IrisTensors *t)
{
    if (!g_root[0]) tmpdir_make(g_root, sizeof g_root, "wb-grade05");
    ExperimentConfig c = *base;
    snprintf(c.name, sizeof c.name, "%s", name);
    ck_assert_msg(experiment_open(&c, g_root, &r->e) == ERR_OK, "%s", err_message());
    Module *m = r->e->model;
    drawn_set_param(m, "fc1.weight", w->iris.w1, IRIS_HIDDEN * IRIS_FEATURES);
    drawn_set_param(m, "fc1.bias", w->iris.b1, IRIS_HIDDEN);
    drawn_set_param(m, "fc2.weight", w->iris.w2, IRIS_CLASSES * IRIS_HIDDEN);
    drawn_set_param(m, "fc2.bias", w->iris.b2, IRIS_CLASSES);
    LoaderOptions lo = {.batch_size = w->batch}, vo = {.batch_size = 512};
    ck_assert_msg(loader_new(t->x_train, t->y_train, device_cpu(), &lo, &r->train) == ERR_OK &&
                      loader_new(t->x_test, t->y_test, device_cpu(), &vo, &r->val) == ERR_OK,
                  "grader: %s", err_message());
    r->e->trainer->train = r->train;
    r->e->trainer->val = r->val;
    r->e->trainer->opts.progress = false;
}

static void whole_close(WholeRun *r)
{
    experiment_free(r->e);
    loader_free(r->train);
    loader_free(r->val);
}

RUN(stop_save_resume)
{
    /* A run stopped after epoch 2, checkpointed and resumed, against one of 4 epochs. */
    WholeDraw w;
    IrisTensors t;
    ExperimentConfig c;
    whole_start("05.resume", RESUME_EPOCHS, &w, &t, &c);
    WholeRun a, b, resumed;
    whole_open(&a, "a", &c, &w, &t);
    whole_open(&b, "b", &c, &w, &t);
    call_run("a", a.e, 0);
    call_run("b", b.e, RESUME_STOP);
    whole_open(&resumed, "c", &c, &w, &t);
    err_clear();
    put_rc("resume", experiment_resume(resumed.e, b.e->checkpoint));
    call_run("c", resumed.e, 0);
    put_weights("a", a.e->model);
    put_weights("c", resumed.e->model);
    whole_close(&a), whole_close(&b), whole_close(&resumed);
    drawn_iris_tensors_free(&t);
    cleanup();
}

RUN(full_run)
{
    /* A GradScaler that starts far too high and grows every few clean steps,
     * clipping, and early stopping: every exercise of the lesson is in it. (In
     * float32, not float16: rounding to float16 would turn a last-bit difference of
     * a right answer, such as a coefficient computed in double, into a visibly
     * different run.) */
    WholeDraw w;
    IrisTensors t;
    ExperimentConfig c;
    whole_start("05.full", FULL_EPOCHS, &w, &t, &c);
    c.loss_weight = FULL_WEIGHT;
    c.lr = FULL_LR;
    c.clip_norm = w.clip * FULL_WEIGHT;
    c.patience = w.patience;
    c.min_delta = w.min_delta;
    WholeRun r;
    whole_open(&r, "full", &c, &w, &t);
    Trainer *tr = r.e->trainer;
    grad_scaler_init(&tr->scaler, true);
    tr->scaler.scale = ldexpf(1.0f, w.scale_exp);
    tr->scaler.growth_factor = FULL_FACTOR;
    tr->scaler.backoff_factor = 1.0f / FULL_FACTOR;
    tr->scaler.growth_interval = w.interval;
    err_clear();
    put_rc("full.rc", trainer_call(tr, 0));
    put_i64("full.epoch", tr->epoch);
    put_i64("full.stop", tr->stop);
    put_f64("full.scale", tr->scaler.scale);
    put_history("full", tr);
    put_weights("full", r.e->model);
    whole_close(&r);
    drawn_iris_tensors_free(&t);
    cleanup();
}
#endif

#ifdef GRADE_JUDGE
/* The judge's run of the whole lesson, in double (oracle_mlp.h): its history, one row per
 * epoch. */
typedef struct WholeHistory {
    double train_loss[FULL_EPOCHS], val_loss[FULL_EPOCHS];
    int64_t val_right[FULL_EPOCHS], val_ties[FULL_EPOCHS];
    float scale[FULL_EPOCHS];
    long skipped[FULL_EPOCHS];
} WholeHistory;

/* @p epochs epochs of the drawn run on @p m: plain steps when @p full is false, else
 * with the full run's loss weight, GradScaler and clipping. */
static void whole_oracle(const WholeDraw *w, bool full, long epochs, OracleMlp *m,
                         WholeHistory *h)
{
    static OracleIris data;
    oracle_iris_start(&w->iris, &data, m);
    OracleMlp g;
    OracleSgd sgd;
    ck_assert_msg(oracle_mlp_init(&g, IRIS_FEATURES, IRIS_HIDDEN, IRIS_CLASSES) == 0 &&
                      oracle_sgd_init(&sgd, m, full ? (double)FULL_LR : (double)WHOLE_LR,
                                      (double)WHOLE_MOMENTUM) == 0,
                  "grader: out of memory");
    float scale = ldexpf(1.0f, w->scale_exp);
    int tracker = 0;
    for (long e = 0; e < epochs; e++) {
        double sum = 0;
        int64_t rows = 0;
        h->skipped[e] = 0;
        for (int64_t at = 0; at < IRIS_TRAIN; at += w->batch) {
            int64_t n = IRIS_TRAIN - at < w->batch ? IRIS_TRAIN - at : w->batch;
            double loss = oracle_mlp_grad(m, data.x_train + at * IRIS_FEATURES,
                                          data.y_train + at, n, &g);
            bool inf = full && isinf(scale * FULL_WEIGHT); /* the loss's factor, in float */
            if (inf) {
                h->skipped[e]++;
            } else {
                if (full) {
                    oracle_mlp_scale(&g, (double)FULL_WEIGHT);
                    double coef = (double)(w->clip * FULL_WEIGHT) / (oracle_mlp_norm(&g) + 1e-6);
                    if (coef < 1.0) oracle_mlp_scale(&g, coef);
                }
                oracle_sgd_step(&sgd, m, &g);
                sum += loss * (double)n;
                rows += n;
            }
            if (!full) continue;
            if (inf) { /* GradScaler's update, as PyTorch documents it */
                scale *= 1.0f / FULL_FACTOR;
                tracker = 0;
            } else if (++tracker == w->interval) {
                float grown = scale * FULL_FACTOR;
                if (isfinite(grown)) scale = grown;
                tracker = 0;
            }
        }
        OracleEval ev = oracle_mlp_eval(m, data.x_test, data.y_test, IRIS_POOL - IRIS_TRAIN, 1e-4);
        h->train_loss[e] = rows ? sum / (double)rows : NAN;
        h->val_loss[e] = ev.loss;
        h->val_right[e] = ev.right;
        h->val_ties[e] = ev.near_ties;
        h->scale[e] = full ? scale : 1.0f;
    }
    oracle_mlp_free(&g);
    oracle_sgd_free(&sgd);
}

/* How far a float32 run may be from the judge's: over 1000 seeds, the weights (of the
 * largest weight) and the losses (relative) stayed within 5e-7, except in runs where
 * a ReLU input came within ORACLE_KINK of 0 in the judge's run (1 in 7): there float32
 * may take the other branch of ReLU once, and 2 runs in 1000 ended 4e-4 (the losses)
 * and 2e-3 (the weights) apart. A wrong clipping coefficient, a step that should have
 * been skipped or a missed epoch is far more. */
#define WHOLE_RTOL 2e-5
#define WHOLE_RTOL_KINK 2e-2

static double whole_rtol(const OracleMlp *m)
{
    return m->near_kinks ? WHOLE_RTOL_KINK : WHOLE_RTOL;
}

static void whole_weights(const char *k, const OracleMlp *m, const char *what, const char *note)
{
    double largest = 0;
    for (int which = 0; which < 4; which++)
        for (int64_t j = 0; j < oracle_mlp_count(m, which); j++)
            largest = fmax(largest, fabs(oracle_mlp_weight(m, which, j)));
    for (int which = 0; which < 4; which++) {
        int64_t n = oracle_mlp_count(m, which);
        const float *got = got_f32(key("%s.%s", k, PARAMS[which]), n);
        for (int64_t j = 0; j < n; j++) {
            double want = oracle_mlp_weight(m, which, j);
            ck_assert_msg(isfinite(got[j]) && fabs(got[j] - want) <= whole_rtol(m) * largest,
                          "%s: %s[%lld] is %.7g; the judge's own run of the same training, in "
                          "double, gives %.7g (tolerance %.2g), %s",
                          what, PARAMS[which], (long long)j, (double)got[j], want,
                          whole_rtol(m) * largest, note);
        }
    }
}

JUDGE(stop_save_resume)
{
    WholeDraw w;
    whole_draw("05.resume", &w);
    const char *note = drawn_whole_note("05", WHOLE_SHAPE);
    ck_assert_msg(run_ok("a"), "%s", got_rc_msg("a.rc"));
    ck_assert_msg(run_ok("b"), "%s", got_rc_msg("b.rc"));
    ck_assert_msg(got_rc("resume") == ERR_OK, "loading the epoch-2 checkpoint: %s",
                  got_rc_msg("resume"));
    ck_assert_msg(run_ok("c"), "%s", got_rc_msg("c.rc"));
    ck_assert_msg(epoch_of("a") == 4 && epoch_of("b") == 2 && epoch_of("c") == 4,
                  "4 epochs, 2 epochs, then the rest from the checkpoint: ended at epochs %ld, "
                  "%ld and %ld, expected 4, 2 and 4",
                  epoch_of("a"), epoch_of("b"), epoch_of("c"));
    same_weights("a", "c", "resumed from the epoch-2 checkpoint");
    OracleMlp m;
    WholeHistory h;
    whole_oracle(&w, false, RESUME_EPOCHS, &m, &h);
    whole_weights("a", &m, "after 4 epochs", note);
    oracle_mlp_free(&m);
}

/* Whether early stopping (w->patience, w->min_delta) on the validation losses v of a
 * run of n epochs stops it after epoch n (stopped) or lets it run all `total`, as
 * exercise 05.3 decides, from epoch e with best and wait as given. An improvement is
 * v < best - min_delta; where v is within a few units of float's last place of that
 * bound, a right answer may decide either way (float or double), and both are
 * followed. */
static bool stop_fits(const float *v, long n, long total, bool stopped, const WholeDraw *w,
                      long e, float best, int wait)
{
    if (e == n) return !stopped && n == total;
    float bound = best - w->min_delta;
    bool improves = v[e] < bound;
    bool near = isfinite(bound) && fabsf(v[e] - bound) <= 4 * FLT_EPSILON * fabsf(bound);
    if ((improves || near) && stop_fits(v, n, total, stopped, w, e + 1, v[e], 0)) return true;
    if (improves && !near) return false;
    if (wait + 1 >= w->patience) return e + 1 == n && stopped;
    return stop_fits(v, n, total, stopped, w, e + 1, best, wait + 1);
}

/* Where early stopping stops on v (the float rule alone), for messages: 0 for never. */
static long stop_epoch(const float *v, long total, const WholeDraw *w)
{
    float best = INFINITY;
    int wait = 0;
    for (long e = 0; e < total; e++) {
        if (v[e] < best - w->min_delta)
            best = v[e], wait = 0;
        else if (++wait >= w->patience)
            return e + 1;
    }
    return 0;
}

/* A history row of the run against the judge's, within rtol (NaN where both are). */
static void history_close(const char *what, const float *got, const double *want, long n,
                          double rtol, const char *note)
{
    for (long i = 0; i < n; i++) {
        if (isnan(want[i]) && isnan(got[i])) continue;
        ck_assert_msg(isfinite(got[i]) && fabs(got[i] - want[i]) <= rtol * fabs(want[i]),
                      "the history's %s of epoch %ld is %.7g; the judge's own run of the same "
                      "training, in double, gives %.7g, %s",
                      what, i + 1, (double)got[i], want[i], note);
    }
}

JUDGE(full_run)
{
    WholeDraw w;
    whole_draw("05.full", &w);
    const char *note = drawn_whole_note("05", FULL_SHAPE);
    if (got_rc("full.rc") != ERR_OK) {
        expect_written("full.rc", "one of the exercises");
        ck_abort_msg("training failed: %s, %s", got_rc_msg("full.rc"), note);
    }
    long n = (long)got_i64("full.rows");
    ck_assert_msg(n >= 1 && n <= FULL_EPOCHS && epoch_of("full") == n,
                  "training stopped at epoch %ld with %ld history rows (of %d epochs), %s",
                  epoch_of("full"), n, FULL_EPOCHS, note);
    const float *val = got_f32("full.val_loss", n);
    bool stopped = got_i64("full.stop") != 0;
    if (!stop_fits(val, n, FULL_EPOCHS, stopped, &w, 0, INFINITY, 0)) {
        long at = stop_epoch(val, n, &w);
        ck_abort_msg("training ran %ld epochs%s; early stopping with patience %d and min_delta "
                     "%g on the validation losses it recorded %s (a stop after epoch e ends "
                     "training there), %s",
                     n, stopped ? " and stopped" : " without stopping", w.patience,
                     (double)w.min_delta,
                     at ? key("stops it after epoch %ld", at) : "does not stop it", note);
    }
    OracleMlp m;
    WholeHistory h;
    whole_oracle(&w, true, n, &m, &h);
    const float *scale = got_f32("full.loss_scale", n), *skip = got_f32("full.skipped", n);
    for (long i = 0; i < n; i++) {
        ck_assert_msg(skip[i] == (float)h.skipped[i],
                      "epoch %ld skipped %g steps for inf or NaN gradients; the GradScaler's "
                      "rules skip %ld (from 2^%d, x 2^8 after %d clean steps, / 2^8 after an "
                      "inf), %s",
                      i + 1, (double)skip[i], h.skipped[i], w.scale_exp, w.interval, note);
        ck_assert_msg(scale[i] == h.scale[i],
                      "the loss scale at the end of epoch %ld is %g; the GradScaler's rules give "
                      "%g (from 2^%d, x 2^8 after %d clean steps, / 2^8 after an inf), %s",
                      i + 1, (double)scale[i], (double)h.scale[i], w.scale_exp, w.interval, note);
    }
    ck_assert_msg(got_f64("full.scale") == h.scale[n - 1],
                  "the loss scale at the end is %g, the GradScaler's rules give %g, %s",
                  got_f64("full.scale"), (double)h.scale[n - 1], note);
    history_close("val_loss", val, h.val_loss, n, whole_rtol(&m), note);
    history_close("train_loss", got_f32("full.train_loss", n), h.train_loss, n, whole_rtol(&m),
                  note);
    const float *acc = got_f32("full.val_acc", n), *lr = got_f32("full.lr", n);
    for (long i = 0; i < n; i++) {
        double right = (double)acc[i] * (IRIS_POOL - IRIS_TRAIN);
        ck_assert_msg(fabs(right - (double)h.val_right[i]) <= (double)h.val_ties[i] + 0.01,
                      "after epoch %ld, %.0f of the 30 validation rows are right; in the judge's "
                      "run %lld are, %s",
                      i + 1, right, (long long)h.val_right[i], note);
        ck_assert_msg(lr[i] == FULL_LR, "the history's lr of epoch %ld is %g, expected %g, %s",
                      i + 1, (double)lr[i], (double)FULL_LR, note);
    }
    whole_weights("full", &m, key("after %ld epochs", n), note);
    oracle_mlp_free(&m);
}
#endif

/* ---- ex05.6 train_step_accumulated ------------------------------------------------------ */

/* A batch of ACC_N rows of ACC_D features and 3 classes, through an MLP 5-7-3. The
 * oracle is one plain step on the whole batch (train_step, lib's own), in the reference
 * run; the student's step is made of micro-batches of the same rows. */
#define ACC_N 10
#define ACC_D 5
static const char *const ACC_PARAMS[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};

#ifdef GRADE_RUNNER
#include "lib/train/train.h"

typedef struct AccRun {
    Module *model;
    Loss *loss;
    Optimizer *opt;
    Tensor *x[4], *y[4]; /* x[0], y[0]: the whole batch; then the micro-batches */
    int k;
} AccRun;

/* Rows [start, start + n) of the seeded batch as a (n, ACC_D) tensor and its labels. */
static void acc_rows(int start, int n, Tensor **x, Tensor **y)
{
    float rows[ACC_N * ACC_D];
    Rng rng;
    rng_seed(&rng, 56, 1);
    float all[ACC_N * ACC_D];
    for (int i = 0; i < ACC_N * ACC_D; i++) all[i] = 3.0f * rng_uniform(&rng) - 1.0f + 0.1f * (float)(i % 7);
    static const int32_t labels[ACC_N] = {2, 0, 1, 1, 2, 0, 2, 2, 1, 0};
    memcpy(rows, all + start * ACC_D, sizeof(float) * (size_t)(n * ACC_D));
    *x = tensor_new_2d(n, ACC_D);
    *y = tensor_new(DTYPE_I32, device_cpu(), 1, (int64_t[]){n});
    ck_assert_msg(*x && *y, "grader: %s", err_message());
    ck_assert_int_eq(tensor_set_rows(*x, rows), ERR_OK);
    memcpy(tensor_i32(*y), labels + start, sizeof(int32_t) * (size_t)n);
}

/* The model (seeded), plain SGD with lr @p lr and momentum @p momentum, the whole batch
 * and the micro-batches of @p sizes (k of them); every gradient set to 0.25 first, as a
 * step before would leave them, so that one not zeroed shows. */
static AccRun acc_new(const int *sizes, int k, float lr, float momentum)
{
    AccRun r = {0};
    Rng rng;
    rng_seed(&rng, 56, 0);
    r.model = mlp_new("mlp", ACC_D, (int64_t[]){7}, 1, 3, &rng);
    r.loss = loss_cross_entropy_new();
    r.opt = momentum > 0 ? optim_sgd_momentum_new(r.model, lr, momentum, 0.0f, false)
                         : optim_sgd_new(r.model, lr);
    ck_assert_msg(r.model && r.loss && r.opt, "grader: %s", err_message());
    acc_rows(0, ACC_N, &r.x[0], &r.y[0]);
    for (int i = 0, start = 0; i < k; start += sizes[i], i++)
        acc_rows(start, sizes[i], &r.x[i + 1], &r.y[i + 1]);
    r.k = k;
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(tensor_fill(module_find_param(r.model, ACC_PARAMS[i])->grad, 0.25f), ERR_OK);
    return r;
}

static void acc_free(AccRun *r)
{
    for (int i = 0; i < 4; i++) tensor_free(r->x[i]), tensor_free(r->y[i]);
    optim_free(r->opt);
    loss_free(r->loss);
    module_free(r->model);
}

/* k.NAME (the weights) and k.grad.NAME (the gradients the step left). */
static void acc_put(const char *k_in, const AccRun *r)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    for (int i = 0; i < 4; i++) {
        const Param *p = module_find_param(r->model, ACC_PARAMS[i]);
        put_f32(key("%s.%s", k, ACC_PARAMS[i]), tensor_f32(p->value), p->value->numel);
        put_f32(key("%s.grad.%s", k, ACC_PARAMS[i]), tensor_f32(p->grad), p->grad->numel);
    }
    put_i64(key("%s.steps", k), r->opt->step);
}

/* One step: lib's on the whole batch in the reference run, the student's on the
 * micro-batches otherwise. Records k.rc, k.loss (unless @p read_loss is false), the
 * weights, the gradients and the optimizer's step count. */
static void acc_step(const char *k_in, const int *sizes, int k, float lr, float momentum,
                     bool read_loss)
{
    char k_name[64];
    snprintf(k_name, sizeof k_name, "%s", k_in); /* key() reuses its buffers */
    AccRun r = acc_new(sizes, k, lr, momentum);
    float v = NAN;
#ifdef GRADE_REFERENCE
    ck_assert_msg(train_step(r.model, r.loss, r.opt, r.x[0], r.y[0], &v) == ERR_OK,
                  "grader: lib's train_step failed: %s", err_message());
    put_rc(key("%s.rc", k_name), ERR_OK);
#else
    err_clear();
    put_rc(key("%s.rc", k_name),
           train_step_accumulated(r.model, r.loss, r.opt, (const Tensor *const *)r.x + 1,
                                  (const Tensor *const *)r.y + 1, k, read_loss ? &v : NULL));
#endif
    if (read_loss) put_f64(key("%s.loss", k_name), v);
    acc_put(k_name, &r);
    acc_free(&r);
}

RUN(accumulate_matches_full_batch)
{
    /* 6 + 3 + 1 rows: unequal micro-batches (dividing by k is not n_i / N), one of a single row. */
    acc_step("uneven", (const int[]){6, 3, 1}, 3, 0.5f, 0.0f, true);
}

RUN(accumulate_edges)
{
    /* One micro-batch is the whole batch; two halves with momentum and no loss read. */
    acc_step("one", (const int[]){ACC_N}, 1, 0.5f, 0.0f, true);
    acc_step("halves", (const int[]){5, 5}, 2, 0.3f, 0.9f, false);
    /* Refused: no micro-batches, and one without rows; nothing may change. */
    AccRun r = acc_new((const int[]){ACC_N}, 1, 0.5f, 0.0f);
    acc_put("before", &r);
    err_clear();
    put_rc("none.rc", train_step_accumulated(r.model, r.loss, r.opt, (const Tensor *const *)r.x + 1,
                                             (const Tensor *const *)r.y + 1, 0, NULL));
    acc_put("none", &r);
    Tensor *empty_x = tensor_new_2d(0, ACC_D);
    Tensor *empty_y = tensor_new(DTYPE_I32, device_cpu(), 1, (int64_t[]){0});
    ck_assert_msg(empty_x && empty_y, "grader: %s", err_message());
    const Tensor *xs[2] = {r.x[1], empty_x}, *ys[2] = {r.y[1], empty_y};
    err_clear();
    put_rc("empty.rc", train_step_accumulated(r.model, r.loss, r.opt, xs, ys, 2, NULL));
    acc_put("empty", &r);
    tensor_free(empty_x);
    tensor_free(empty_y);
    acc_free(&r);
}
#endif

#ifdef GRADE_JUDGE
/* The student's weights and gradients (k.*) against one step on the whole batch (the
 * reference's k.*): the sums are added in another order, so a right answer differs by
 * a few units of float's last place. */
static void acc_matches(const char *k_in, const char *how)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    ck_assert_msg(got_rc(key("%s.rc", k)) == ERR_OK, "train_step_accumulated (%s) returned an "
                  "error: %s", how, got_rc_msg(key("%s.rc", k)));
    long steps = (long)got_i64(key("%s.steps", k));
    ck_assert_msg(steps == 1, "train_step_accumulated (%s): the optimizer took %ld steps, "
                  "expected 1: call optim_step once, after the last micro-batch", how, steps);
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < 4; i++) {
            const char *name = g ? key("%s.%s", k, ACC_PARAMS[i])
                                 : key("%s.grad.%s", k, ACC_PARAMS[i]);
            char what[96];
            snprintf(what, sizeof what, "%s", name);
            int64_t n;
            const float *want = ref_f32_n(what, &n);
            const float *got = got_f32(what, n);
            double largest = 0;
            for (int64_t j = 0; j < n; j++) largest = fmax(largest, fabs(want[j]));
            for (int64_t j = 0; j < n; j++)
                ck_assert_msg(isfinite(got[j]) && fabs(got[j] - want[j]) <= 1e-5 * largest + 1e-7,
                              "train_step_accumulated (%s): the %s of %s[%lld] is %.7g, one step "
                              "on the whole batch gives %.7g: %s",
                              how, g ? "weight" : "gradient", ACC_PARAMS[i], (long long)j,
                              (double)got[j], (double)want[j],
                              g ? "the step must use the whole batch's gradient"
                                : "zero the gradients once, before the loop, and weight each "
                                  "micro-batch's loss by n_i / N (its rows over all rows)");
        }
}

JUDGE(accumulate_matches_full_batch)
{
    expect_written("uneven.rc", "train_step_accumulated");
    acc_matches("uneven", "micro-batches of 6, 3 and 1 rows");
    double got = got_f64("uneven.loss"), want = ref_f64("uneven.loss");
    ck_assert_msg(fabs(got - want) <= 1e-6 * fabs(want) + 1e-7,
                  "*loss_value is %.7g, the whole batch's mean loss is %.7g: add the "
                  "micro-batches' losses weighted by n_i / N", got, want);
}

JUDGE(accumulate_edges)
{
    expect_written("one.rc", "train_step_accumulated");
    acc_matches("one", "one micro-batch of all 10 rows");
    acc_matches("halves", "two halves, SGD with momentum, loss_value NULL");
    static const char *const refused[2] = {"none", "empty"};
    static const char *const how[2] = {"k = 0", "a micro-batch without rows"};
    for (int c = 0; c < 2; c++) {
        int code = got_rc_code(key("%s.rc", refused[c]));
        ck_assert_msg(code == ERR_ARG, "train_step_accumulated with %s must return ERR_ARG, "
                      "got %s", how[c], got_rc_msg(key("%s.rc", refused[c])));
        for (int g = 0; g < 2; g++)
            for (int i = 0; i < 4; i++) {
                const char *b = g ? key("before.%s", ACC_PARAMS[i]) : key("before.grad.%s", ACC_PARAMS[i]);
                char before[96];
                snprintf(before, sizeof before, "%s", b);
                int64_t n;
                const float *was = got_f32_n(before, &n);
                const float *now = got_f32(g ? key("%s.%s", refused[c], ACC_PARAMS[i])
                                             : key("%s.grad.%s", refused[c], ACC_PARAMS[i]), n);
                ck_assert_msg(memcmp(was, now, sizeof(float) * (size_t)n) == 0,
                              "train_step_accumulated with %s changed the %s of %s: check the "
                              "arguments before zeroing or stepping anything",
                              how[c], g ? "weights" : "gradients", ACC_PARAMS[i]);
            }
        ck_assert_msg(got_i64(key("%s.steps", refused[c])) == 0,
                      "train_step_accumulated with %s stepped the optimizer", how[c]);
    }
}
#endif

/* name, exercise, function, what it checks, points, timeout (s), reference?, file */
#define CASES(X)                                                                                   \
    X(scaler_backoff_and_growth, "05.1", "grad_scaler_update",                                     \
      "backoff and reset on inf, growth after growth_interval clean steps", 6, 5, 0, NULL)         \
    X(scaler_edges, "05.1", "grad_scaler_update", "no growth into inf, disabled, the factors", 4,  \
      5, 0, NULL)                                                                                  \
    X(scaler_long_run, "05.1", "grad_scaler_update",                                               \
      "growth twice in a row, backoff twice in a row, an inf resets a partial count", 3, 5, 0,     \
      NULL)                                                                                        \
    X(clip_matches_pytorch, "05.2", "clip_grad_norm_scale",                                        \
      "PyTorch's clip_grad_norm_ below and above the max norm", 6, 5, 0, NULL)                     \
    X(clip_nonfinite_and_empty, "05.2", "clip_grad_norm_scale",                                    \
      "inf and NaN gradients, no gradients, squares beyond float", 4, 5, 0, NULL)                  \
    X(clip_precision, "05.2", "clip_grad_norm_scale",                                              \
      "small squares next to large ones; the 1e-6 of max_norm / (total + 1e-6)", 4, 5, 0, NULL)    \
    X(early_stopping_patience, "05.3", "early_stopping_call", "patience and min_delta", 6, 5, 0,   \
      NULL)                                                                                        \
    X(early_stopping_nan_and_empty, "05.3", "early_stopping_call",                                 \
      "NaN is no improvement; an empty history", 3, 5, 0, NULL)                                    \
    X(early_stopping_wait_resets, "05.3", "early_stopping_call",                                   \
      "patience counts from the last improvement; best moves only on an improvement", 3, 5, 0,     \
      NULL)                                                                                        \
    X(epoch_loop_resumes, "05.4", "trainer_run_epochs",                                            \
      "1 + 2 + 1 epochs in three calls equal 4 in one; a target beyond the total", 8, 60, 0, NULL) \
    X(epoch_loop_stops, "05.4", "trainer_run_epochs",                                              \
      "the stop flag; a failing callback leaves the last finished epoch", 5, 60, 0, NULL)          \
    X(epoch_loop_bookkeeping, "05.4", "trainer_run_epochs",                                        \
      "t->epoch set after each epoch ends; a target behind; a stop flag set before", 4, 60, 0,     \
      NULL)                                                                                        \
    X(epoch_loop_matches_lib, "05.4", "trainer_run_epochs",                                        \
      "4 epochs train exactly as lib's own loop (batch order, history, best epoch)", 4, 60, 1,     \
      NULL)                                                                                        \
    X(validate_checkpoints, "05.5", "checkpoint_validate",                                         \
      "format, version, missing, reshaped, retyped and extra tensors", 10, 10, 0, NULL)            \
    X(validate_lookalikes, "05.5", "checkpoint_validate",                                          \
      "a full checkpoint; same size, other shape; the last tensor's dtype; versions 10 and 1.5; "  \
      "formats that only start or end alike; the model untouched",                                 \
      5, 10, 0, NULL)                                                                              \
    X(accumulate_matches_full_batch, "05.6", "train_step_accumulated",                             \
      "micro-batches of 6, 3 and 1 rows step as the whole batch does: gradients, weights, loss",   \
      6, 10, 1, NULL)                                                                              \
    X(accumulate_edges, "05.6", "train_step_accumulated",                                          \
      "one micro-batch; two halves with momentum; k = 0 and an empty one refused, nothing changed", \
      4, 10, 1, NULL)                                                                              \
    X(stop_save_resume, "05", "all of Lesson 05",                                                  \
      "a run resumed from its checkpoint trains as one that never stopped (drawn inputs)", 5, 60,  \
      0, NULL)                                                                                     \
    X(full_run, "05", "all of Lesson 05",                                                          \
      "a GradScaler, clipping and early stopping train as the judge's own run (drawn inputs)", 6,  \
      60, 0, NULL)

GRADED_SUITE("05", "The full trainer", "lessons/05_trainer/exercises.c", CASES)
