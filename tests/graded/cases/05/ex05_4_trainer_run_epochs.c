/*
 * ex05_4_trainer_run_epochs.c: the cases of exercise 05.4, trainer_run_epochs:
 * the trainer's epoch loop, called in parts, stopped, and against lib's own loop.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. Inputs are
 * shared by both halves (outside the #ifdefs); what is expected lives only in
 * the JUDGE halves.
 */
#include "suite.h"

/* ---- ex05.4 trainer_run_epochs --------------------------------------------------------- */

#ifdef GRADE_RUNNER
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
