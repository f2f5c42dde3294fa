/*
 * ex05_1_grad_scaler_update.c: the cases of exercise 05.1, grad_scaler_update:
 * GradScaler's backoff and growth.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. Inputs are
 * shared by both halves (outside the #ifdefs); what is expected lives only in
 * the JUDGE halves.
 */
#include "suite.h"

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
