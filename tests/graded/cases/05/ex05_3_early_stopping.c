/*
 * ex05_3_early_stopping.c: the cases of exercise 05.3, early_stopping_call: an
 * early-stopping callback's patience and min_delta.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. Inputs are
 * shared by both halves (outside the #ifdefs); what is expected lives only in
 * the JUDGE halves.
 */
#include "suite.h"

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
