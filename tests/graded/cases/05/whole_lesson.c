/*
 * whole_lesson.c: the cases of Lesson 05 as a whole: a run resumed from
 * its checkpoint, and a full run with a GradScaler, clipping and early stopping, from
 * inputs drawn for the grading run against the judge's own training.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h. Inputs are
 * shared by both halves (outside the #ifdefs); what is expected lives only in
 * the JUDGE halves.
 */
#include "suite.h"

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
