/*
 * grade05.c: the graded suite of Lesson 05 (lessons/05_trainer/exercises.c).
 *
 * Oracles: PyTorch's clip_grad_norm_ (tests/fixtures/optim.txt); GradScaler's
 * rules and early stopping's, worked out by hand on sequences chosen so that
 * each rule (and each off-by-one) changes the outcome; for the epoch loop, an
 * uninterrupted run against an interrupted one (they must agree bit for bit)
 * and callbacks that log what they see; for checkpoint validation, files
 * written in the test with one defect each.
 */
#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graded.h"
#include "lib/amp.h"
#include "lib/checkpoint.h"
#include "lib/err.h"
#include "lib/experiment.h"
#include "lib/optim.h"
#include "lib/safetensors.h"
#include "tests/common/fixture.h"
#include "tests/common/tmpdir.h"

/* ---- ex05.1 grad_scaler_update ---------------------------------------------------- */

static void update(GradScaler *s, bool found_inf)
{
    s->found_inf = found_inf;
    s->unscaled = true;
    err_clear();
    int rc = grad_scaler_update(s);
    expect_ok(rc, "grad_scaler_update");
    ck_assert_msg(!s->found_inf && !s->unscaled,
                  "after update, found_inf and unscaled must be cleared for the next step");
}

GRADED_TEST(scaler_backoff_and_growth)
{
    GradScaler s;
    grad_scaler_init(&s, true);
    s.growth_interval = 3;
    /* clean, clean, inf, clean, clean, clean (grow), clean */
    const bool inf[] = {false, false, true, false, false, false, false};
    const float scale[] = {65536, 65536, 32768, 32768, 32768, 65536, 65536};
    const int tracker[] = {1, 2, 0, 1, 2, 0, 1};
    for (int i = 0; i < 7; i++) {
        update(&s, inf[i]);
        ck_assert_msg(s.scale == scale[i] && s.growth_tracker == tracker[i],
                      "step %d (%s): scale %g and growth_tracker %d, expected %g and %d "
                      "(interval 3: backoff x0.5 and reset on inf; grow x2 on the 3rd clean "
                      "step in a row, then reset)",
                      i + 1, inf[i] ? "inf" : "clean", (double)s.scale, s.growth_tracker,
                      (double)scale[i], tracker[i]);
    }
}

GRADED_TEST(scaler_edges)
{
    GradScaler s;
    grad_scaler_init(&s, true);
    s.growth_interval = 1;
    s.scale = 0x1p127f; /* growing would overflow to inf */
    update(&s, false);
    ck_assert_msg(s.scale == 0x1p127f && s.growth_tracker == 0,
                  "a scale of 2^127 must not grow into inf: got scale %g, tracker %d (keep the "
                  "scale, reset the tracker)",
                  (double)s.scale, s.growth_tracker);
    GradScaler off;
    grad_scaler_init(&off, false);
    off.found_inf = true;
    err_clear();
    expect_ok(grad_scaler_update(&off), "grad_scaler_update");
    ck_assert_msg(off.scale == 65536.0f && off.growth_tracker == 0,
                  "a disabled scaler must be left as it is");
    grad_scaler_init(&s, true);
    s.growth_factor = 4.0f, s.backoff_factor = 0.25f, s.growth_interval = 2;
    update(&s, false), update(&s, false);
    ck_assert_msg(s.scale == 262144.0f, "growth_factor 4: scale %g, expected 262144 (use the "
                                        "fields, not 2 and 0.5)",
                  (double)s.scale);
    update(&s, true);
    ck_assert_msg(s.scale == 65536.0f, "backoff_factor 0.25: scale %g, expected 65536",
                  (double)s.scale);
}

/* ---- ex05.2 clip_grad_norm_scale ---------------------------------------------------------- */

#define OFX "optim.txt"

static void clip_case(const char *set)
{
    char name[64];
    snprintf(name, sizeof name, "clip_%s.g", set);
    const Fixture *g = fixture(OFX, name);
    float *a = malloc(sizeof(float) * (size_t)g->n);
    memcpy(a, g->data, sizeof(float) * (size_t)g->n);
    /* Two arrays of different sizes: the norm is of all of them together. */
    float *grads[2] = {a, a + 30};
    int64_t sizes[2] = {30, g->n - 30};
    snprintf(name, sizeof name, "clip_%s.max_norm", set);
    float max_norm = fixture(OFX, name)->data[0], total = -1;
    err_clear();
    expect_ok(clip_grad_norm_scale(grads, sizes, 2, max_norm, &total), "clip_grad_norm_scale");
    snprintf(name, sizeof name, "clip_%s.total", set);
    float want = fixture(OFX, name)->data[0];
    char what[96];
    snprintf(what, sizeof what, "the total norm (%s)", set);
    if (!isfinite(want))
        ck_assert_msg(isnan(want) ? isnan(total) : total == want, "%s is %g, expected %g", what,
                      (double)total, (double)want);
    else
        expect_close_1d(what, &total, &want, 1, 0, 4e-7);
    snprintf(name, sizeof name, "clip_%s.out", set);
    snprintf(what, sizeof what, "the clipped gradients (%s)", set);
    const Fixture *out = fixture(OFX, name);
    for (int64_t i = 0; i < g->n; i++) {
        float w = out->data[i];
        ck_assert_msg(isnan(w) ? isnan(a[i]) : fabsf(a[i] - w) <= 1e-6f * fabsf(w) + 1e-30f,
                      "%s: value %lld is %g, expected %g (PyTorch's clip_grad_norm_)", what,
                      (long long)i, (double)a[i], (double)w);
    }
    free(a);
}

GRADED_TEST(clip_matches_pytorch)
{
    clip_case("under"); /* below the max: nothing changes */
    clip_case("over");  /* scaled by max_norm / (total + 1e-6) */
}

GRADED_TEST(clip_nonfinite_and_empty)
{
    clip_case("inf"); /* the norm is inf: every gradient is scaled by 0 */
    clip_case("nan"); /* the norm is NaN: so is every gradient, as in PyTorch */
    float total = -1;
    err_clear();
    expect_ok(clip_grad_norm_scale(NULL, NULL, 0, 1.0f, &total), "clip_grad_norm_scale");
    ck_assert_msg(total == 0.0f, "no gradients: the norm is 0, got %g", (double)total);
    float g[3] = {3e30f, 4e30f, 0.0f}; /* squares overflow float, not double */
    float *gs[1] = {g};
    int64_t n[1] = {3};
    expect_ok(clip_grad_norm_scale(gs, n, 1, 1.0f, &total), "clip_grad_norm_scale");
    ck_assert_msg(fabsf(total - 5e30f) <= 1e24f,
                  "values of 3e30 and 4e30: the norm is 5e30, got %g (sum the squares in "
                  "double)",
                  (double)total);
}

/* ---- ex05.3 early_stopping_call ---------------------------------------------------- */

/* Feed validation losses to an early stopping through a bare trainer's history. */
static long stop_epoch(const float *losses, int n, Trainer *t, Callable es)
{
    for (int i = 0; i < n; i++) {
        t->hist.val_loss[i] = losses[i];
        t->hist.n = i + 1;
        Value arg = value_ptr(t), r = value_none();
        err_clear();
        int rc = callable_call(es, &arg, 1, &r);
        expect_ok(rc, "early_stopping_call");
        if (t->stop) return i + 1;
    }
    return 0;
}

GRADED_TEST(early_stopping_patience)
{
    Trainer t;
    memset(&t, 0, sizeof t);
    float buf[16];
    t.hist.val_loss = buf;
    t.hist.cap = 16;
    /* improves until epoch 3, then 2 epochs within min_delta (not improvements), then worse */
    const float losses[] = {1.0f, 0.8f, 0.5f, 0.495f, 0.49f, 0.6f, 0.7f, 0.1f};
    struct {
        int patience;
        float min_delta;
        long want;
    } cases[] = {{2, 0.0f, 7}, {3, 0.0f, 0}, {2, 0.02f, 5}, {1, 0.02f, 4}};
    for (int k = 0; k < 4; k++) {
        Callable es;
        ck_assert_int_eq(early_stopping_new(cases[k].patience, cases[k].min_delta, &es), ERR_OK);
        t.stop = false;
        t.stop_reason[0] = '\0';
        long got = stop_epoch(losses, 8, &t, es);
        ck_assert_msg(got == cases[k].want,
                      "patience %d, min_delta %g, validation losses 1, .8, .5, .495, .49, .6, "
                      ".7, .1: stopped after epoch %ld, expected %ld (0: never; an improvement "
                      "is a loss below best - min_delta)",
                      cases[k].patience, (double)cases[k].min_delta, got, cases[k].want);
        EarlyStopping *st = callable_state(es);
        ck_assert_msg(st->stopped_epoch == got, "stopped_epoch is %ld, expected %ld",
                      st->stopped_epoch, got);
        ck_assert_msg(got == 0 || strstr(t.stop_reason, "no improvement"),
                      "the trainer's stop_reason should say why (\"no improvement in N epochs "
                      "...\"), got \"%s\"",
                      t.stop_reason);
        callable_release(es);
    }
    /* A loss equal to the best is not an improvement either. */
    const float flat[] = {1.0f, 0.5f, 0.5f, 0.5f};
    Callable es;
    early_stopping_new(2, 0.0f, &es);
    t.stop = false;
    long got = stop_epoch(flat, 4, &t, es);
    ck_assert_msg(got == 4, "patience 2, validation losses 1, .5, .5, .5: stopped after epoch "
                            "%ld, expected 4 (the same loss again is no improvement)",
                  got);
    callable_release(es);
}

GRADED_TEST(early_stopping_nan_and_empty)
{
    Trainer t;
    memset(&t, 0, sizeof t);
    float buf[8];
    t.hist.val_loss = buf;
    t.hist.cap = 8;
    Callable es;
    early_stopping_new(2, 0.0f, &es);
    Value arg = value_ptr(&t), r;
    err_clear();
    int rc = callable_call(es, &arg, 1, &r);
    ck_assert_msg(rc != ERR_TODO, "early_stopping_call is not written yet");
    ck_assert_msg(rc == ERR_ARG, "an empty history must be an ERR_ARG (got %s)",
                  err_name((ErrCode)rc));
    const float losses[] = {0.5f, NAN, NAN};
    long got = stop_epoch(losses, 3, &t, es);
    ck_assert_msg(got == 3, "a NaN validation loss is never an improvement: expected a stop "
                            "after epoch 3, got %ld",
                  got);
    callable_release(es);
}

/* ---- ex05.4 trainer_run_epochs --------------------------------------------------------- */

static char g_root[64];

static Experiment *tiny(const char *name, long epochs)
{
    if (!g_root[0]) {
        tmpdir_make(g_root, sizeof g_root, "wb-grade05");
    }
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
    if (g_root[0] && tmpdir_remove(g_root) != 0)
        fprintf(stderr, "could not remove %s\n", g_root);
}

static void same_weights(Experiment *a, Experiment *b, const char *how)
{
    ParamRef pa[8], pb[8];
    int n = module_parameters(a->model, pa, 8);
    module_parameters(b->model, pb, 8);
    for (int i = 0; i < n; i++)
        ck_assert_msg(memcmp(pa[i].param->value->data, pb[i].param->value->data,
                             sizeof(float) * (size_t)pa[i].param->value->numel) == 0,
                      "%s: %s differs from the uninterrupted run's", how, pa[i].name);
}

static int call(Experiment *e, long upto)
{
    err_clear();
    int rc = trainer_run_epochs(e->trainer, upto);
    ck_assert_msg(rc != ERR_TODO, "trainer_run_epochs is not written yet");
    return rc;
}

GRADED_TEST(epoch_loop_resumes)
{
    Experiment *whole = tiny("whole", 4), *parts = tiny("parts", 4);
    ck_assert_msg(call(whole, 0) == ERR_OK, "%s", err_message());
    ck_assert_msg(whole->trainer->epoch == 4 && whole->trainer->hist.n == 4,
                  "trainer_run_epochs(t, 0) with 4 epochs configured: epoch %ld, %ld history "
                  "rows, expected 4 and 4",
                  whole->trainer->epoch, whole->trainer->hist.n);
    ck_assert_msg(call(parts, 1) == ERR_OK && parts->trainer->epoch == 1,
                  "trainer_run_epochs(t, 1): epoch %ld, expected 1", parts->trainer->epoch);
    ck_assert_msg(call(parts, 1) == ERR_OK && parts->trainer->hist.n == 1,
                  "calling again with upto 1 at epoch 1 must do nothing (history has %ld rows)",
                  parts->trainer->hist.n);
    ck_assert_msg(call(parts, 3) == ERR_OK && parts->trainer->epoch == 3,
                  "then trainer_run_epochs(t, 3): epoch %ld, expected 3", parts->trainer->epoch);
    ck_assert_msg(call(parts, 0) == ERR_OK && parts->trainer->epoch == 4,
                  "then trainer_run_epochs(t, 0): epoch %ld, expected 4", parts->trainer->epoch);
    same_weights(whole, parts, "1 + 2 + 1 epochs in three calls");
    for (long i = 0; i < 4; i++)
        ck_assert_msg(whole->trainer->hist.val_loss[i] == parts->trainer->hist.val_loss[i],
                      "epoch %ld's validation loss differs between one call and three", i + 1);
    int rc = call(parts, 9);
    ck_assert_msg(rc == ERR_ARG && parts->trainer->epoch == 4,
                  "trainer_run_epochs(t, 9) with 4 epochs configured must be an ERR_ARG and "
                  "train nothing (got %s, epoch %ld)",
                  err_name((ErrCode)rc), parts->trainer->epoch);
    experiment_free(whole), experiment_free(parts);
    cleanup();
}

/* A callback that stops the trainer after epoch `at`, or fails at epoch `fail`. */
typedef struct Stopper {
    long at, fail, calls;
} Stopper;

static int stopper_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    Stopper *s = state;
    Trainer *t = args[0].as.p;
    s->calls++;
    *out = value_none();
    if (t->hist.n == s->fail) return err_set(ERR_IO, "the callback failed on purpose");
    if (t->hist.n == s->at) t->stop = true;
    return ERR_OK;
}
static const CallableClass stopper_class = {"Stopper", 1, stopper_call, NULL};

GRADED_TEST(epoch_loop_stops)
{
    Experiment *e = tiny("stop", 5);
    Stopper s = {2, 0, 0};
    Callable cb;
    callable_new(&stopper_class, &s, &cb);
    trainer_add_callback(e->trainer, cb);
    ck_assert_msg(call(e, 0) == ERR_OK, "%s", err_message());
    ck_assert_msg(e->trainer->epoch == 2 && s.calls == 2,
                  "a callback set the stop flag after epoch 2: training ended at epoch %ld "
                  "after %ld callback calls, expected 2 and 2 (check the flag before each "
                  "epoch)",
                  e->trainer->epoch, s.calls);
    Experiment *f = tiny("fail", 5);
    Stopper s2 = {0, 3, 0};
    Callable cb2;
    callable_new(&stopper_class, &s2, &cb2);
    trainer_add_callback(f->trainer, cb2);
    int rc = call(f, 0);
    ck_assert_msg(rc == ERR_IO && f->trainer->epoch == 2,
                  "a callback failing after epoch 3: expected its error (ERR_IO) and the "
                  "trainer left at epoch 2, the last one that finished; got %s and epoch %ld",
                  err_name((ErrCode)rc), f->trainer->epoch);
    callable_release(cb), callable_release(cb2);
    experiment_free(e), experiment_free(f);
    cleanup();
}

/* ---- ex05.5 checkpoint_validate ---------------------------------------------------------- */

/* Write the model's parameters to a file, with one defect, then validate it. */
static int validate_with(Module *m, const char *format, const char *version, int defect,
                         char *path, size_t size)
{
    snprintf(path, size, "/tmp/wb-grade05-ckpt-XXXXXX");
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    close(fd);
    ParamRef p[8];
    int n = module_parameters(m, p, 8);
    StTensor t[10];
    int k = 0;
    static float junk[64 * 64];
    for (int i = 0; i < n; i++) {
        if (defect == 1 && i == n - 1) continue; /* the last parameter is missing */
        StTensor *s = &t[k++];
        ck_assert(snprintf(s->name, sizeof s->name, "model.%s", p[i].name) < (int)sizeof s->name);
        s->dtype = DTYPE_F32;
        s->ndim = p[i].param->value->ndim;
        for (int j = 0; j < s->ndim; j++) s->shape[j] = p[i].param->value->shape[j];
        if (defect == 2 && i == 0) s->shape[0] += 1; /* another shape */
        int64_t numel = 1;
        for (int j = 0; j < s->ndim; j++) numel *= s->shape[j];
        if (defect == 3 && i == 0) s->dtype = DTYPE_F16;
        s->data = junk;
        s->bytes = (size_t)numel * dtype_size(s->dtype);
    }
    if (defect == 4) { /* a parameter the model does not have */
        StTensor *s = &t[k++];
        snprintf(s->name, sizeof s->name, "model.fc9.weight");
        s->dtype = DTYPE_F32, s->ndim = 1, s->shape[0] = 2, s->data = junk, s->bytes = 8;
    }
    const char *meta[4];
    int nm = 0;
    if (format) meta[2 * nm] = "wb.format", meta[2 * nm + 1] = format, nm++;
    if (version) meta[2 * nm] = "wb.version", meta[2 * nm + 1] = version, nm++;
    ck_assert_msg(safetensors_save(path, t, k, meta, nm) == ERR_OK, "%s", err_message());
    SafeTensors *st = NULL;
    ck_assert_msg(safetensors_load(path, &st) == ERR_OK, "%s", err_message());
    err_clear();
    int rc = checkpoint_validate(st, m, path);
    safetensors_free(st);
    remove(path);
    ck_assert_msg(rc != ERR_TODO, "checkpoint_validate is not written yet");
    return rc;
}

static void expect_refused(Module *m, const char *format, const char *version, int defect,
                           const char *what, const char *words)
{
    char path[64];
    int rc = validate_with(m, format, version, defect, path, sizeof path);
    ck_assert_msg(rc == ERR_FORMAT, "%s: checkpoint_validate returned %s, expected ERR_FORMAT",
                  what, err_name((ErrCode)rc));
    ck_assert_msg(strstr(err_message(), path) && strstr(err_message(), words),
                  "%s: the message should name the file and say \"%s\"; it was: %s", what,
                  words, err_message());
}

GRADED_TEST(validate_checkpoints)
{
    Rng rng;
    rng_seed(&rng, 3, 0);
    int64_t hidden[1] = {7};
    Module *m = mlp_new("mlp", 5, hidden, 1, 3, &rng);
    char path[64];
    int rc = validate_with(m, CHECKPOINT_FORMAT, "1", 0, path, sizeof path);
    ck_assert_msg(rc == ERR_OK, "a good checkpoint was refused: %s", err_message());
    rc = validate_with(m, CHECKPOINT_WEIGHTS_FORMAT, "1", 0, path, sizeof path);
    ck_assert_msg(rc == ERR_OK, "a good weights file was refused: %s", err_message());
    expect_refused(m, NULL, "1", 0, "no wb.format", "not a checkpoint of this workbook");
    expect_refused(m, "pytorch", "1", 0, "another format", "not a checkpoint of this workbook");
    expect_refused(m, CHECKPOINT_FORMAT, "2", 0, "version 2", "version 2");
    expect_refused(m, CHECKPOINT_FORMAT, NULL, 0, "no version", "version");
    expect_refused(m, CHECKPOINT_FORMAT, "1", 1, "a missing tensor", "missing tensor \"model.fc2.bias\"");
    expect_refused(m, CHECKPOINT_FORMAT, "1", 2, "another shape", "shape [8, 5]");
    expect_refused(m, CHECKPOINT_FORMAT, "1", 3, "float16 weights", "F16");
    expect_refused(m, CHECKPOINT_FORMAT, "1", 4, "an extra tensor", "model.fc9.weight");
    module_free(m);
}

/* ---- all of them: a run stopped early, checkpointed and resumed ------------------------ */

GRADED_TEST(stop_save_resume)
{
    Experiment *a = tiny("a", 4), *b = tiny("b", 4);
    ck_assert_msg(call(a, 0) == ERR_OK, "%s", err_message());
    ck_assert_msg(call(b, 2) == ERR_OK, "%s", err_message());
    Experiment *c = tiny("c", 4);
    err_clear();
    int rc = experiment_resume(c, b->checkpoint);
    ck_assert_msg(rc == ERR_OK, "loading the epoch-2 checkpoint: %s", err_message());
    ck_assert_msg(call(c, 0) == ERR_OK, "%s", err_message());
    same_weights(a, c, "resumed from the epoch-2 checkpoint");
    experiment_free(a), experiment_free(b), experiment_free(c);
    cleanup();
}

static const GradedCase cases[] = {
    {&scaler_backoff_and_growth, "05.1", "grad_scaler_update",
     "backoff and reset on inf, growth after growth_interval clean steps", 6, 5, NULL},
    {&scaler_edges, "05.1", "grad_scaler_update", "no growth into inf, disabled, the factors",
     4, 5, NULL},
    {&clip_matches_pytorch, "05.2", "clip_grad_norm_scale",
     "PyTorch's clip_grad_norm_ below and above the max norm", 6, 5, NULL},
    {&clip_nonfinite_and_empty, "05.2", "clip_grad_norm_scale",
     "inf and NaN gradients, no gradients, squares beyond float", 4, 5, NULL},
    {&early_stopping_patience, "05.3", "early_stopping_call", "patience and min_delta", 6, 5,
     NULL},
    {&early_stopping_nan_and_empty, "05.3", "early_stopping_call",
     "NaN is no improvement; an empty history", 3, 5, NULL},
    {&epoch_loop_resumes, "05.4", "trainer_run_epochs",
     "1 + 2 + 1 epochs in three calls equal 4 in one; a target beyond the total", 8, 60, NULL},
    {&epoch_loop_stops, "05.4", "trainer_run_epochs",
     "the stop flag; a failing callback leaves the last finished epoch", 5, 60, NULL},
    {&validate_checkpoints, "05.5", "checkpoint_validate",
     "format, version, missing, reshaped, retyped and extra tensors", 10, 10, NULL},
    {&stop_save_resume, "05", "all of Lesson 05", "a run resumed from its checkpoint", 5, 60,
     NULL},
};

const GradedLesson graded_lesson = {"05", "The full trainer", "lessons/05_trainer/exercises.c",
                                    cases, (int)(sizeof cases / sizeof cases[0])};
