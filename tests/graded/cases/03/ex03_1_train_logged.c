/*
 * ex03_1_train_logged.c: the cases of exercise 03.1, train_logged: a training
 * that reads its loss every N epochs.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- ex03.1 train_logged -------------------------------------------------------------- */

/* train_logged runs: a record prefix, epochs, log_every. */
typedef struct LoggedShape {
    const char *p;
    long epochs, every;
} LoggedShape;

static const LoggedShape logged_shapes[] = {
    {"a", 30, 7}, /* 30 is not a multiple of 7: 4 reads */
    {"b", 12, 1}, /* the loss.item() habit: a sync every epoch */
    {"c", 12, 0}, /* never */
};
#define N_LOGGED ((int)(sizeof logged_shapes / sizeof logged_shapes[0]))

/* The run after the bad arguments, on the same model. */
#define AFTER_EPOCHS 6
#define AFTER_EVERY 2

/* A step that fails: a forward pre-hook on fc1 fails on its FAIL_AT-th call,
 * that is in the forward of epoch FAIL_AT, a logging epoch. */
#define FAIL_EPOCHS 14
#define FAIL_EVERY 3
#define FAIL_AT 9

#ifdef GRADE_RUNNER
/* The fc2 bias after training: it depends on every step. */
static void put_bias(const char *name, Setup *s)
{
    Param *b = module_find_param(s->model, "fc2.bias");
    Tensor *host = NULL;
    ck_assert_int_eq(tensor_to(b->value, device_cpu(), &host), ERR_OK);
    put_f32(name, tensor_f32(host), 3);
    tensor_free(host);
}

#ifdef GRADE_REFERENCE
/* lib's own loop, the loss read every epoch by train_step: the reference.
 * Records p.ref_loss (epochs values) and p.ref_bias. */
static void reference_run(const char *p, Device d, long epochs)
{
    Setup s;
    setup(&s, d);
    float *losses = malloc((size_t)(epochs > 0 ? epochs : 1) * sizeof *losses);
    ck_assert_ptr_nonnull(losses);
    for (long e = 0; e < epochs; e++)
        ck_assert_int_eq(train_step(s.model, s.loss, s.opt, s.x, s.y, &losses[e]), ERR_OK);
    put_f32(key("%s.ref_loss", p), losses, epochs);
    put_bias(key("%s.ref_bias", p), &s);
    free(losses);
    teardown(&s);
}
#endif
#endif

#ifdef GRADE_JUDGE
/* A run of train_logged (rc, n_logged, syncs, logged, bias) against lib's loop
 * of the same number of epochs, recorded under prefix p. */
static void logged_judge(const char *p, long epochs, long every, const char *when)
{
    expect_ok(key("%s.rc", p), "train_logged");
    long want = every ? epochs / every : 0;
    long n_logged = (long)got_i64(key("%s.n_logged", p));
    ck_assert_msg(n_logged == want,
                  "%s%ld epochs, log_every %ld: *n_logged is %ld, expected %ld (one read after "
                  "each epoch e with e %% %ld == 0, counting epochs from 1)",
                  when, epochs, every, n_logged, want, every);
    unsigned long long syncs = (unsigned long long)got_i64(key("%s.syncs", p));
    ck_assert_msg(syncs == (unsigned long long)want,
                  "%s%ld epochs, log_every %ld: the CPU waited for the GPU %llu times, expected "
                  "exactly %ld (only the reads of the loss may sync: pass NULL to train_step "
                  "and read with loss_item)",
                  when, epochs, every, syncs, want);
    const float *ref = ref_f32(key("%s.ref_loss", p), epochs);
    if (every) {
        const float *logged = got_guarded(key("%s.logged", p), "logged", want);
        for (long k = 0; k < want; k++)
            ck_assert_msg(agrees(logged[k], ref[(k + 1) * every - 1]),
                          "%slogged[%ld] is %.7g, expected %.7g, the loss of epoch %ld (read it "
                          "after that epoch's train_step)",
                          when, k, (double)logged[k], (double)ref[(k + 1) * every - 1],
                          (k + 1) * every);
    }
    const float *bias = got_f32(key("%s.bias", p), 3),
                *ref_bias = ref_f32(key("%s.ref_bias", p), 3);
    for (int j = 0; j < 3; j++)
        ck_assert_msg(agrees(bias[j], ref_bias[j]),
                      "%safter %ld epochs fc2.bias[%d] is %.7g, expected %.7g: run exactly %ld "
                      "train_steps",
                      when, epochs, j, (double)bias[j], (double)ref_bias[j], epochs);
}
#endif

#ifdef GRADE_RUNNER
#ifndef GRADE_REFERENCE
/* Train a fresh setup (or s, if not NULL) with train_logged; records p.rc,
 * p.n_logged, p.syncs, p.logged (guarded: exactly epochs / every floats) and
 * p.bias. */
static void logged_run(const char *p, Device d, Setup *given, long epochs, long every)
{
    Setup fresh, *s = given;
    if (!s) setup(s = &fresh, d);
    int64_t slots = every > 0 ? epochs / every : 0;
    float *logged = every > 0 ? guarded_new(slots, NAN) : NULL;
    long n_logged = -1;
    counters_reset();
    err_clear();
    int rc = train_logged(s->model, s->loss, s->opt, s->x, s->y, epochs, every, logged, &n_logged);
    Counters c = counters_get();
    put_rc(key("%s.rc", p), rc);
    put_i64(key("%s.n_logged", p), n_logged);
    put_i64(key("%s.syncs", p), (int64_t)c.syncs);
    if (logged) put_guarded(key("%s.logged", p), logged);
    put_bias(key("%s.bias", p), s);
    guarded_free(logged);
    if (!given) teardown(s);
}
#endif

RUN(logged_every_n)
{
    Device d = the_device();
    for (int i = 0; i < N_LOGGED; i++) {
        const LoggedShape *t = &logged_shapes[i];
#ifdef GRADE_REFERENCE
        reference_run(t->p, d, t->epochs);
#else
        logged_run(t->p, d, NULL, t->epochs, t->every);
#endif
    }
}

RUN(logged_bad_arguments)
{
    Device d = the_device();
#ifdef GRADE_REFERENCE
    reference_run("after", d, AFTER_EPOCHS);
#else
    Setup s;
    setup(&s, d);
    long n = -1;
    counters_reset();
    err_clear();
    put_rc("neg_epochs", train_logged(s.model, s.loss, s.opt, s.x, s.y, -1, 1, NULL, &n));
    put_i64("neg_epochs.launches", (int64_t)counters_get().launches);
    counters_reset();
    err_clear();
    put_rc("neg_every", train_logged(s.model, s.loss, s.opt, s.x, s.y, 3, -2, NULL, &n));
    put_i64("neg_every.launches", (int64_t)counters_get().launches);
    counters_reset();
    err_clear();
    n = -1;
    put_rc("zero", train_logged(s.model, s.loss, s.opt, s.x, s.y, 0, 5, NULL, &n));
    put_i64("zero.n_logged", n);
    put_i64("zero.launches", (int64_t)counters_get().launches);
    /* Then a real run on the same model, which none of the calls above may
     * have trained. */
    logged_run("after", d, &s, AFTER_EPOCHS, AFTER_EVERY);
    teardown(&s);
#endif
}

#ifndef GRADE_REFERENCE
/* A forward pre-hook that fails on its fail_at-th call. */
typedef struct FailState {
    long calls, fail_at;
} FailState;

static int fail_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)args, (void)nargs;
    FailState *f = state;
    if (++f->calls == f->fail_at)
        return err_set(ERR_IO, "the forward of epoch %ld failed on purpose", f->calls);
    *out = value_none();
    return ERR_OK;
}

static const CallableClass fail_class = {"FailOnCall", 2, fail_call, free};
#endif

RUN(logged_step_fails)
{
    Device d = the_device();
#ifdef GRADE_REFERENCE
    reference_run("r", d, FAIL_AT - 1);
#else
    Setup s;
    setup(&s, d);
    FailState *f = calloc(1, sizeof *f);
    ck_assert_ptr_nonnull(f);
    f->fail_at = FAIL_AT;
    Callable hook;
    HookHandle handle;
    ck_assert_int_eq(callable_new(&fail_class, f, &hook), ERR_OK);
    Module *fc1 = s.model->children[0];
    ck_assert_msg(module_register_forward_pre_hook(fc1, hook, &handle) == ERR_OK, "%s",
                  err_message());
    logged_run("r", d, &s, FAIL_EPOCHS, FAIL_EVERY);
    put_i64("forwards", ((FailState *)callable_state(hook))->calls);
    module_remove_hook(handle);
    callable_release(hook);
    teardown(&s);
#endif
}
#endif

#ifdef GRADE_JUDGE
JUDGE(logged_every_n)
{
    for (int i = 0; i < N_LOGGED; i++) {
        const LoggedShape *t = &logged_shapes[i];
        logged_judge(t->p, t->epochs, t->every, "");
    }
}

JUDGE(logged_bad_arguments)
{
    expect_written("neg_epochs", "train_logged");
    int rc = got_rc("neg_epochs");
    ck_assert_msg(rc == ERR_ARG, "epochs = -1 must be an ERR_ARG (got %s: %s)",
                  err_name((ErrCode)rc), got_rc_msg("neg_epochs"));
    rc = got_rc("neg_every");
    ck_assert_msg(rc == ERR_ARG, "log_every = -2 must be an ERR_ARG (got %s)",
                  err_name((ErrCode)rc));
    const char *bad[2] = {"neg_epochs", "neg_every"}, *what[2] = {"epochs = -1", "log_every = -2"};
    for (int i = 0; i < 2; i++) {
        long long launches = (long long)got_i64(key("%s.launches", bad[i]));
        ck_assert_msg(launches == 0,
                      "train_logged(%s) launched %lld kernels before returning ERR_ARG: check the "
                      "arguments before training",
                      what[i], launches);
    }
    rc = got_rc("zero");
    long n = (long)got_i64("zero.n_logged");
    unsigned long long launches = (unsigned long long)got_i64("zero.launches");
    ck_assert_msg(rc == ERR_OK && n == 0 && launches == 0,
                  "0 epochs must do nothing and log nothing (rc %d, n_logged %ld, %llu launches)",
                  rc, n, launches);
    logged_judge("after", AFTER_EPOCHS, AFTER_EVERY,
                 "after the calls above (which must not train), on the same model: ");
}

JUDGE(logged_step_fails)
{
    /* The step of epoch FAIL_AT fails (in its forward); epochs FAIL_EVERY,
     * 2 FAIL_EVERY, ... before it were logged. */
    long want = (FAIL_AT - 1) / FAIL_EVERY;
    int rc = got_rc("r.rc");
    expect_written("r.rc", "train_logged");
    ck_assert_msg(rc == ERR_IO,
                  "%d epochs, the step of epoch %d fails with an ERR_IO: train_logged returned %d "
                  "(%s), expected that error (return err_context(...), or the step's return "
                  "value)",
                  FAIL_EPOCHS, FAIL_AT, rc, err_name((ErrCode)rc));
    long long forwards = (long long)got_i64("forwards");
    ck_assert_msg(forwards == FAIL_AT,
                  "%d epochs, the step of epoch %d fails: train_logged ran %lld forwards, expected "
                  "%d (stop at the failing step and return its error)",
                  FAIL_EPOCHS, FAIL_AT, forwards, FAIL_AT);
    long n_logged = (long)got_i64("r.n_logged");
    ck_assert_msg(n_logged == want,
                  "%d epochs, log_every %d, the step of epoch %d fails: *n_logged is %ld, expected "
                  "%ld (the losses read before the failure: set *n_logged also when a step fails, "
                  "and do not read the loss of the failed step)",
                  FAIL_EPOCHS, FAIL_EVERY, FAIL_AT, n_logged, want);
    const float *logged = got_guarded("r.logged", "logged", FAIL_EPOCHS / FAIL_EVERY);
    const float *ref = ref_f32("r.ref_loss", FAIL_AT - 1);
    for (long k = 0; k < want; k++)
        ck_assert_msg(agrees(logged[k], ref[(k + 1) * FAIL_EVERY - 1]),
                      "logged[%ld] is %.7g, expected %.7g, the loss of epoch %ld (read it after "
                      "that epoch's train_step)",
                      k, (double)logged[k], (double)ref[(k + 1) * FAIL_EVERY - 1],
                      (k + 1) * FAIL_EVERY);
    for (long k = want; k < FAIL_EPOCHS / FAIL_EVERY; k++)
        ck_assert_msg(isnan(logged[k]),
                      "logged[%ld] was written (%.7g), but only %ld losses were read before the "
                      "step of epoch %d failed",
                      k, (double)logged[k], want, FAIL_AT);
    const float *bias = got_f32("r.bias", 3), *ref_bias = ref_f32("r.ref_bias", 3);
    for (int j = 0; j < 3; j++)
        ck_assert_msg(agrees(bias[j], ref_bias[j]),
                      "after the step of epoch %d failed, fc2.bias[%d] is %.7g, expected %.7g "
                      "(the model after %d steps): stop at the failing step",
                      FAIL_AT, j, (double)bias[j], (double)ref_bias[j], FAIL_AT - 1);
}
#endif

