/*
 * grade03.c: the graded suite of Lesson 03 (lessons/03_why_gpu_slower/exercises.c).
 *
 * Lesson 03 is about what code asks of the GPU, so the oracles are counts:
 * lib's counters (launches, syncs, copies, device memory in use) and their
 * trace, which records in order every launch (L), sync (S) and clock read
 * (C). They are the same on a GPU and on the simulator, so the grade does not
 * depend on the machine. The numbers themselves are checked against lib's own
 * training step and forward pass, run by the reference runner (lib and the
 * answers only, graded.h): the loss read every epoch by train_step, the
 * one-batch forward, and the launches of one forward. Timings use a fake
 * clock whose readings the judge works out itself (clock_reading).
 *
 * 03.4, the transpose, is a kernel, graded on the simulator wherever the grade
 * runs: its result against the drawn input, then its memory accesses. Those
 * are not taken from the simulator's counters, which live in the runner with
 * the student's code: the runner sends the trace of every access, and the
 * judge checks it against the output and costs it itself (trace_check.h).
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see graded.h.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../../protocol/drawn_whole.h"
#include "../graded.h"
#include "lib/core/err.h"
#ifdef GRADE_JUDGE
#include "../../oracles/oracle_iris.h"
#include "../../oracles/oracle_mlp.h"
#include "trace_check.h"
#endif
#ifdef GRADE_RUNNER
#include "kernels/kernels.h"
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif
#include "lib/device/backend.h"
#include "lib/core/callable.h"
#include "lib/core/counters.h"
#include "lib/device/device.h"
#include "lib/train/iris.h"
#include "lib/nn/layers.h"
#include "lib/nn/module.h"
#include "lib/core/timer.h"
#include "lib/train/train.h"
#endif

/* ---- what both halves know: the inputs ---------------------------------------------- */

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

/* predict_chunked runs: a record prefix, rows, chunk, and the encoder's
 * input and output features (encoder()). */
typedef struct ChunkShape {
    const char *p;
    int64_t n, chunk, in, out;
} ChunkShape;

static const ChunkShape chunk_shapes[] = {
    {"a", 23, 5, 6, 4},  /* the last chunk is short */
    {"b", 24, 6, 6, 4},  /* it is not */
    {"c", 7, 1, 6, 4},   /* one row at a time */
    {"d", 10, 64, 6, 4}, /* one chunk bigger than the input */
};
#define N_CHUNK ((int)(sizeof chunk_shapes / sizeof chunk_shapes[0]))

static const ChunkShape memory_shapes[] = {
    {"a", 23, 5, 6, 4},
    {"b", 10, 64, 6, 4},
};
#define N_MEMORY ((int)(sizeof memory_shapes / sizeof memory_shapes[0]))

static const ChunkShape edge_shapes[] = {
    {"one", 1, 3, 6, 4},   /* a single row, a chunk bigger than it */
    {"tail", 8, 7, 6, 4},  /* a last chunk of one row */
    {"wide", 9, 4, 11, 3}, /* another input width: d comes from x */
};
#define N_EDGE ((int)(sizeof edge_shapes / sizeof edge_shapes[0]))

#define ENC_IN 6  /* the encoder of the argument checks: input features */
#define ENC_OUT 4 /* and outputs */

/* The fake clock: it moves by a different amount at each read. Reading i
 * (from 0) is 100 plus the first i + 1 steps of 3, 5, 11, 17, 23, 3, 5, ... */
static double clock_reading(int64_t i)
{
    static const double steps[5] = {3.0, 5.0, 11.0, 17.0, 23.0};
    double now = 100.0 + 59.0 * (double)((i + 1) / 5);
    for (int64_t j = 0; j < (i + 1) % 5; j++)
        now += steps[j];
    return now;
}

#define TIMING_REPEATS 4
#define BETWEEN_REPEATS 3
#define CPU_REPEATS 3

/* ---- the RUN halves: set-up shared by the cases --------------------------------------- */

#ifdef GRADE_RUNNER
static Device the_device(void)
{
    int n = 0;
    ck_assert_msg(device_count(&n) == ERR_OK && n > 0, "no CUDA device (real or simulated): %s",
                  err_message());
    return device_cuda(0);
}

/* Iris and Lesson 01's network, on device d. */
typedef struct Setup {
    IrisData iris;
    Module *model;
    Loss *loss;
    Optimizer *opt;
    Tensor *x, *y;
} Setup;

static void setup(Setup *s, Device d)
{
    memset(s, 0, sizeof *s);
    ck_assert_msg(iris_data_load(iris_csv_path(), &s->iris) == ERR_OK, "%s",
                  err_message());
    s->model = iris_mlp_new(42);
    ck_assert_msg(s->model && module_to(s->model, d) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(tensor_to(s->iris.x_train, d, &s->x), ERR_OK);
    ck_assert_int_eq(tensor_to(s->iris.train.y, d, &s->y), ERR_OK);
    s->loss = loss_cross_entropy_new();
    s->opt = optim_sgd_new(s->model, 0.05f);
    ck_assert(s->loss && s->opt);
}

static void teardown(Setup *s)
{
    optim_free(s->opt);
    loss_free(s->loss);
    module_free(s->model);
    tensor_free(s->x);
    tensor_free(s->y);
    iris_data_free(&s->iris);
}

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

/* ---- the JUDGE halves: shared checks ---------------------------------------------------- */

#ifdef GRADE_JUDGE
/* Reference values may come from another machine (a package built on one,
 * graded on another): a float agrees within this. One more or one less
 * training step moves the losses and the bias by far more. */
#define REF_ATOL 1e-5
#define REF_RTOL 1e-4

static int agrees(double got, double want)
{
    return isfinite(got) && fabs(got - want) <= REF_ATOL + REF_RTOL * fabs(want);
}

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

/* ---- ex03.1 train_logged -------------------------------------------------------------- */

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

/* ---- ex03.2 predict_chunked ------------------------------------------------------------ */

#ifdef GRADE_RUNNER
/* in -> 9 -> out, on the CPU. */
static Module *encoder(int64_t in, int64_t out)
{
    Rng rng;
    rng_seed(&rng, 5, 0);
    Module *layers[] = {linear_new("fc1", in, 9, &rng), relu_new("relu"),
                        linear_new("fc2", 9, out, &rng)};
    Module *m = sequential_new("encoder", 3, layers);
    ck_assert(m);
    return m;
}

/* A (rows, cols) tensor on d, every value v. */
static Tensor *filled(Device d, int64_t rows, int64_t cols, float v)
{
    Tensor *host = tensor_new_2d(rows, cols), *t = NULL;
    ck_assert_ptr_nonnull(host);
    ck_assert_int_eq(tensor_fill(host, v), ERR_OK);
    ck_assert_int_eq(tensor_to(host, d, &t), ERR_OK);
    tensor_free(host);
    return t;
}

/* Input (n, t->in) and the encoder on d, in evaluation mode. In the reference
 * runner: the one-batch outputs (p.want) and the launches of one forward
 * (p.per_forward). Otherwise predict_chunked's rc, counters (p.launches,
 * p.h2d, p.d2h, p.syncs, p.mem_before, p.mem_after, p.mem_peak) and
 * outputs (p.out). */
static void chunked_run(const ChunkShape *t, Device d)
{
    const char *p = t->p;
    int64_t n = t->n, chunk = t->chunk;
    Rng rng;
    rng_seed(&rng, 17, (uint64_t)chunk);
    Tensor *xc = tensor_new_2d(n, t->in);
    ck_assert_ptr_nonnull(xc);
    ck_assert_int_eq(tensor_uniform(xc, &rng, -2.0f, 2.0f), ERR_OK);
    Module *m = encoder(t->in, t->out);
    ck_assert_int_eq(module_to(m, d), ERR_OK);
    module_train(m, false);
    Tensor *x = NULL, *got = NULL;
    ck_assert_int_eq(tensor_to(xc, d, &x), ERR_OK);
    /* One batch: the answer (in the reference runner); in both, it sizes the
     * model's buffers for n rows, so that no forward of a chunk allocates. */
    const Tensor *y;
    ck_assert_int_eq(module_forward(m, x, &y), ERR_OK);
#ifdef GRADE_REFERENCE
    ck_assert_int_eq(tensor_to(y, device_cpu(), &got), ERR_OK);
    put_f32(key("%s.want", p), tensor_f32(got), n * t->out);
    /* What one forward of a chunk costs, in launches. */
    Tensor *one = filled(d, 1, t->in, 0.5f);
    counters_reset();
    ck_assert_int_eq(module_forward(m, one, &y), ERR_OK);
    put_i64(key("%s.per_forward", p), (int64_t)counters_get().launches);
    tensor_free(one);
#else
    Tensor *out = filled(d, n, t->out, NAN); /* rows left unwritten stay NaN */
    counters_reset();
    size_t before = counters_get().mem_in_use;
    err_clear();
    int rc = predict_chunked(m, x, chunk, out);
    Counters c = counters_get();
    put_rc(key("%s.rc", p), rc);
    put_i64(key("%s.launches", p), (int64_t)c.launches);
    put_i64(key("%s.h2d", p), (int64_t)c.copies_h2d);
    put_i64(key("%s.d2h", p), (int64_t)c.copies_d2h);
    put_i64(key("%s.syncs", p), (int64_t)c.syncs);
    put_i64(key("%s.mem_before", p), (int64_t)before);
    put_i64(key("%s.mem_after", p), (int64_t)c.mem_in_use);
    put_i64(key("%s.mem_peak", p), (int64_t)c.mem_peak);
    ck_assert_int_eq(tensor_to(out, device_cpu(), &got), ERR_OK);
    put_f32(key("%s.out", p), tensor_f32(got), n * t->out);
    tensor_free(out);
#endif
    tensor_free(got);
    tensor_free(x);
    tensor_free(xc);
    module_free(m);
}

RUN(chunked_same_as_one_batch)
{
    Device d = the_device();
    for (int i = 0; i < N_CHUNK; i++)
        chunked_run(&chunk_shapes[i], d);
}

RUN(chunked_frees_its_buffer)
{
    Device d = the_device();
    for (int i = 0; i < N_MEMORY; i++)
        chunked_run(&memory_shapes[i], d);
}

RUN(chunked_edge_cases)
{
    Device d = the_device();
#ifndef GRADE_REFERENCE
    Module *m = encoder(ENC_IN, ENC_OUT);
    ck_assert_int_eq(module_to(m, d), ERR_OK);
    module_train(m, false);
    int64_t s0[2] = {0, ENC_IN}, s1[2] = {0, ENC_OUT};
    Tensor *x0 = tensor_new(DTYPE_F32, d, 2, s0), *o0 = tensor_new(DTYPE_F32, d, 2, s1);
    ck_assert(x0 && o0);
    Tensor *x3 = filled(d, 3, ENC_IN, 0.25f), *o3 = filled(d, 3, ENC_OUT, NAN);
    counters_reset();
    size_t before = counters_get().mem_in_use;
    err_clear();
    put_rc("empty", predict_chunked(m, x0, 4, o0));
    Counters c = counters_get();
    put_i64("empty.launches", (int64_t)c.launches);
    put_i64("empty.syncs", (int64_t)c.syncs);
    put_i64("empty.mem_before", (int64_t)before);
    put_i64("empty.mem_after", (int64_t)c.mem_in_use);
    put_i64("empty.mem_peak", (int64_t)c.mem_peak);
    const int64_t bad[2] = {0, -3};
    for (int i = 0; i < 2; i++) {
        counters_reset();
        err_clear();
        put_rc(key("chunk%d", i), predict_chunked(m, x3, bad[i], o3));
        put_i64(key("chunk%d.launches", i), (int64_t)counters_get().launches);
    }
    tensor_free(x0), tensor_free(o0), tensor_free(x3), tensor_free(o3);
    module_free(m);
#endif
    /* Then real runs, so that a body that only checks its arguments gets nothing. */
    for (int i = 0; i < N_EDGE; i++)
        chunked_run(&edge_shapes[i], d);
}
#endif

#ifdef GRADE_JUDGE
/* predict_chunked's outputs under prefix p against the one-batch forward. */
static void chunked_outputs_judge(const ChunkShape *t)
{
    const char *p = t->p;
    int64_t n = t->n, chunk = t->chunk;
    expect_ok(key("%s.rc", p), "predict_chunked");
    char what[96];
    if (t->in == ENC_IN)
        snprintf(what, sizeof what, "the outputs of %lld rows in chunks of %lld", (long long)n,
                 (long long)chunk);
    else
        snprintf(what, sizeof what, "the outputs of %lld rows of %lld features in chunks of %lld",
                 (long long)n, (long long)t->in, (long long)chunk);
    graded_note = "rows out of order, or a chunk lost or computed twice?";
    expect_close_2d(what, got_f32(key("%s.out", p), n * t->out),
                    ref_f32(key("%s.want", p), n * t->out), n, t->out, 1e-5, 1e-5);
    graded_note = NULL;
}

/* Its launches: one tensor_copy_rows, one forward and one tensor_put_rows per chunk. */
static void chunked_launches_judge(const ChunkShape *t)
{
    const char *p = t->p;
    int64_t n = t->n, chunk = t->chunk;
    unsigned long long per_forward = (unsigned long long)ref_i64(key("%s.per_forward", p));
    unsigned long long launches = (unsigned long long)got_i64(key("%s.launches", p));
    int64_t chunks = (n + chunk - 1) / chunk;
    unsigned long long expected = (unsigned long long)chunks * (per_forward + 2);
    ck_assert_msg(launches == expected,
                  "%lld rows in chunks of %lld: %llu launches, expected %llu (%lld chunks, each "
                  "one tensor_copy_rows, one forward of %llu launches and one tensor_put_rows)",
                  (long long)n, (long long)chunk, launches, expected, (long long)chunks,
                  per_forward);
}

JUDGE(chunked_same_as_one_batch)
{
    for (int i = 0; i < N_CHUNK; i++) {
        const char *p = chunk_shapes[i].p;
        int64_t n = chunk_shapes[i].n, chunk = chunk_shapes[i].chunk;
        chunked_outputs_judge(&chunk_shapes[i]);
        chunked_launches_judge(&chunk_shapes[i]);
        unsigned long long h2d = (unsigned long long)got_i64(key("%s.h2d", p)),
                           d2h = (unsigned long long)got_i64(key("%s.d2h", p));
        ck_assert_msg(d2h == 0 && h2d == 0,
                      "predict_chunked copied between the CPU and the GPU (%llu to, %llu from): "
                      "the data is on the device already",
                      h2d, d2h);
        unsigned long long syncs = (unsigned long long)got_i64(key("%s.syncs", p));
        ck_assert_msg(syncs <= 1,
                      "%lld chunks made %llu syncs, expected at most 1 (the buffer's release at "
                      "the end): make the buffer once, before the loop, and free it after",
                      (long long)((n + chunk - 1) / chunk), syncs);
    }
}

JUDGE(chunked_frees_its_buffer)
{
    for (int i = 0; i < N_MEMORY; i++) {
        const char *p = memory_shapes[i].p;
        int64_t n = memory_shapes[i].n, chunk = memory_shapes[i].chunk;
        chunked_outputs_judge(&memory_shapes[i]);
        long long before = got_i64(key("%s.mem_before", p)),
                  after = got_i64(key("%s.mem_after", p)), peak = got_i64(key("%s.mem_peak", p));
        ck_assert_msg(after == before,
                      "%lld rows in chunks of %lld: the device memory in use went from %lld to "
                      "%lld bytes (the test's input and output included): predict_chunked must "
                      "free its buffer (tensor_free) before it returns",
                      (long long)n, (long long)chunk, before, after);
        long long allowed = (long long)chunk * memory_shapes[i].in * (long long)sizeof(float);
        ck_assert_msg(peak - before <= allowed,
                      "%lld rows in chunks of %lld: predict_chunked had %lld bytes of device "
                      "memory allocated at once, expected at most %lld (one (chunk, %d) buffer "
                      "of floats, made once: not a buffer per chunk, nor one for all the rows)",
                      (long long)n, (long long)chunk, peak - before, allowed,
                      (int)memory_shapes[i].in);
    }
}

JUDGE(chunked_edge_cases)
{
    expect_ok("empty", "predict_chunked");
    unsigned long long launches = (unsigned long long)got_i64("empty.launches");
    ck_assert_msg(launches == 0, "an empty input must launch nothing (%llu launches)", launches);
    long long before = got_i64("empty.mem_before"), after = got_i64("empty.mem_after"),
              peak = got_i64("empty.mem_peak");
    unsigned long long syncs = (unsigned long long)got_i64("empty.syncs");
    ck_assert_msg(after == before && peak == before && syncs == 0,
                  "an empty input must do nothing, but predict_chunked allocated %lld bytes of "
                  "device memory (%lld still in use after it) and waited for the GPU %llu times "
                  "(on a GPU, freeing memory waits for it): return before making the buffer when "
                  "x has no rows",
                  peak - before, after - before, syncs);
    const int bad[2] = {0, -3};
    for (int i = 0; i < 2; i++) {
        int rc = got_rc(key("chunk%d", i));
        ck_assert_msg(rc == ERR_ARG, "chunk = %d must be an ERR_ARG (got %s)", bad[i],
                      err_name((ErrCode)rc));
        unsigned long long l = (unsigned long long)got_i64(key("chunk%d.launches", i));
        ck_assert_msg(l == 0,
                      "predict_chunked(chunk = %d) launched %llu kernels before returning "
                      "ERR_ARG: check chunk before any work",
                      bad[i], l);
    }
    for (int i = 0; i < N_EDGE; i++) {
        chunked_outputs_judge(&edge_shapes[i]);
        chunked_launches_judge(&edge_shapes[i]);
    }
}
#endif

/* ---- ex03.3 time_on_device ------------------------------------------------------------ */

#ifdef GRADE_RUNNER
/* The fake clock: reading number g_n_reads. */
static int64_t g_n_reads;

static double fake_clock(void)
{
    return clock_reading(g_n_reads++);
}

typedef struct Work {
    Device d;
    int calls, fail_at;
} Work;

static int launch_work(void *p)
{
    Work *w = p;
    w->calls++;
    if (w->fail_at && w->calls == w->fail_at) return err_set(ERR_IO, "the work failed on purpose");
    return device_is_host(w->d) ? ERR_OK : backend_of(w->d)->empty_kernel(w->d);
}

/* time_on_device of `repeats` empty kernels on the device, with work queued
 * before it, under the fake clock; records rc, calls, trace, reads, seconds. */
static void timing_run(long repeats)
{
    Device d = the_device();
    /* Work queued before the timing: it must not be counted. */
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(backend_of(d)->empty_kernel(d), ERR_OK);
    char trace[256];
    g_n_reads = 0;
    timer_set_clock(fake_clock);
    counters_trace(trace, sizeof trace);
    Work w = {d, 0, 0};
    double secs = -1;
    err_clear();
    int rc = time_on_device(d, launch_work, &w, repeats, &secs);
    counters_trace(NULL, 0);
    timer_set_clock(NULL);
    put_rc("rc", rc);
    put_i64("calls", w.calls);
    put_str("trace", trace);
    put_i64("reads", g_n_reads);
    put_f64("seconds", secs);
}

RUN(timing_waits_for_the_gpu)
{
    timing_run(TIMING_REPEATS);
}

RUN(timing_no_sync_between)
{
    timing_run(BETWEEN_REPEATS);
}

RUN(timing_errors_and_the_cpu)
{
    Device d = the_device();
    Work w = {d, 0, 2};
    double secs = 0;
    err_clear();
    put_rc("fail", time_on_device(d, launch_work, &w, 5, &secs));
    put_i64("fail.calls", w.calls);
    const long bad[2] = {0, -3};
    for (int i = 0; i < 2; i++) {
        Work none = {d, 0, 0};
        err_clear();
        put_rc(key("repeats%d", i), time_on_device(d, launch_work, &none, bad[i], &secs));
        put_i64(key("repeats%d.calls", i), none.calls);
    }
    /* On the CPU the same code is right, and nothing is counted as a sync. */
    Work cpu = {device_cpu(), 0, 0};
    g_n_reads = 0;
    timer_set_clock(fake_clock);
    counters_reset();
    secs = -1;
    err_clear();
    int rc = time_on_device(device_cpu(), launch_work, &cpu, CPU_REPEATS, &secs);
    Counters c = counters_get();
    timer_set_clock(NULL);
    put_rc("cpu", rc);
    put_i64("cpu.calls", cpu.calls);
    put_f64("cpu.seconds", secs);
    put_i64("cpu.syncs", (int64_t)c.syncs);
    put_i64("cpu.reads", g_n_reads);
}
#endif

#ifdef GRADE_JUDGE
/* Index of the first / last occurrence of c in s, or -1. */
static int first_of(const char *s, char c)
{
    const char *p = strchr(s, c);
    return p ? (int)(p - s) : -1;
}

static int last_of(const char *s, char c)
{
    const char *p = strrchr(s, c);
    return p ? (int)(p - s) : -1;
}

/* *seconds against the fake clock: (the last reading - the first) / repeats. */
static void seconds_judge(double secs, int64_t reads, long repeats, const char *where)
{
    double want = reads >= 1 ? (clock_reading(reads - 1) - clock_reading(0)) / (double)repeats : 0;
    ck_assert_msg(fabs(secs - want) < 1e-9,
                  "%s*seconds is %g, expected %g: (the last clock read - the first) / repeats",
                  where, secs, want);
}

/* The order of events: sync, clock, the work, sync, clock. */
static void timing_judge(long repeats)
{
    expect_ok("rc", "time_on_device");
    int calls = (int)got_i64("calls");
    ck_assert_msg(calls == repeats, "work was called %d times, expected repeats = %ld", calls,
                  repeats);
    const char *trace = got_str("trace");
    int64_t reads = got_i64("reads");
    int c0 = first_of(trace, 'C'), c1 = last_of(trace, 'C'), l0 = first_of(trace, 'L'),
        l1 = last_of(trace, 'L');
    ck_assert_msg(c0 >= 0 && c1 > c0,
                  "the clock (timer_now) was read %lld time(s); read it before and after the "
                  "work (events: %s, C = clock, S = sync, L = launch)",
                  (long long)reads, trace);
    ck_assert_msg(c0 < l0 && l1 < c1,
                  "the work ran outside the two clock reads (events: %s; C = clock, S = sync, L "
                  "= launch)",
                  trace);
    int s_before = -1;
    for (int i = 0; i < c0; i++)
        if (trace[i] == 'S') s_before = i;
    ck_assert_msg(s_before >= 0,
                  "the clock was read before waiting for the GPU, so work queued earlier would "
                  "be timed too: call device_synchronize before the first timer_now (events: "
                  "%s)",
                  trace);
    int s_after = -1;
    for (int i = l1 + 1; i < c1; i++)
        if (trace[i] == 'S') s_after = i;
    ck_assert_msg(s_after >= 0,
                  "the clock was read again without waiting for the GPU, so only the queueing "
                  "of the launches was timed: call device_synchronize after the work and before "
                  "the second timer_now (events: %s)",
                  trace);
    seconds_judge(got_f64("seconds"), reads, repeats, "");
}

JUDGE(timing_waits_for_the_gpu)
{
    timing_judge(TIMING_REPEATS);
}

JUDGE(timing_no_sync_between)
{
    timing_judge(BETWEEN_REPEATS);
    const char *trace = got_str("trace");
    int l0 = first_of(trace, 'L'), l1 = last_of(trace, 'L');
    for (int i = l0; i < l1; i++)
        ck_assert_msg(trace[i] != 'S',
                      "the CPU waited for the GPU between the calls of work (events: %s; C = "
                      "clock, S = sync, L = launch), so the GPU sat idle between them and the "
                      "syncs were timed too: sync only before the first clock read and after the "
                      "last call",
                      trace);
}

JUDGE(timing_errors_and_the_cpu)
{
    expect_written("fail", "time_on_device");
    int rc = got_rc("fail"), calls = (int)got_i64("fail.calls");
    ck_assert_msg(rc == ERR_IO && calls == 2,
                  "when the work fails on call 2 of 5, return its error at once (got %s after "
                  "%d calls)",
                  err_name((ErrCode)rc), calls);
    const long bad[2] = {0, -3};
    for (int i = 0; i < 2; i++) {
        rc = got_rc(key("repeats%d", i));
        ck_assert_msg(rc == ERR_ARG, "repeats = %ld must be an ERR_ARG (got %s)", bad[i],
                      err_name((ErrCode)rc));
        calls = (int)got_i64(key("repeats%d.calls", i));
        ck_assert_msg(calls == 0, "repeats = %ld is an ERR_ARG, but work was called %d times",
                      bad[i], calls);
    }
    rc = got_rc("cpu");
    calls = (int)got_i64("cpu.calls");
    double secs = got_f64("cpu.seconds");
    unsigned long long syncs = (unsigned long long)got_i64("cpu.syncs");
    ck_assert_msg(rc == ERR_OK && calls == CPU_REPEATS && secs >= 0.0 && syncs == 0,
                  "on the CPU: rc %d, %d calls, %g s, %llu syncs (expected 0, %d, >= 0, 0)", rc,
                  calls, secs, syncs, CPU_REPEATS);
    seconds_judge(secs, got_i64("cpu.reads"), CPU_REPEATS, "on the CPU: ");
}
#endif

/* ---- all of them: the sync demo in miniature ------------------------------------------- */

/* Lesson 01's network on the device from the inputs drawn for this grading run
 * (drawn_whole.h), full-batch SGD with lr 0.05, timed, its loss read every 5 epochs. */
#define TIMED_EPOCHS 20
#define TIMED_EVERY 5
#define TIMED_LR 0.05f

#ifdef GRADE_RUNNER
typedef struct SyncRun {
    Setup *s;
    long epochs, every, n_logged;
    float *logged;
} SyncRun;

static int sync_run(void *p)
{
    SyncRun *r = p;
    return train_logged(r->s->model, r->s->loss, r->s->opt, r->s->x, r->s->y, r->epochs, r->every,
                        r->logged, &r->n_logged);
}

RUN(timed_training)
{
    Device d = the_device();
    DrawnIris drawn;
    drawn_iris("03", &drawn);
    IrisTensors t;
    drawn_iris_tensors(&drawn, &t);
    Setup s;
    memset(&s, 0, sizeof s);
    s.model = drawn_iris_model(&drawn);
    ck_assert_msg(module_to(s.model, d) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(tensor_to(t.x_train, d, &s.x), ERR_OK);
    ck_assert_int_eq(tensor_to(t.y_train, d, &s.y), ERR_OK);
    s.loss = loss_cross_entropy_new();
    s.opt = optim_sgd_new(s.model, TIMED_LR);
    ck_assert(s.loss && s.opt);
    SyncRun r = {&s, TIMED_EPOCHS, TIMED_EVERY, 0, guarded_new(TIMED_EPOCHS / TIMED_EVERY, NAN)};
    double secs = -1;
    counters_reset();
    err_clear();
    put_rc("rc", time_on_device(d, sync_run, &r, 1, &secs));
    put_i64("syncs", (int64_t)counters_get().syncs);
    put_i64("n_logged", r.n_logged);
    put_f64("seconds", secs);
    put_guarded("logged", r.logged);
    guarded_free(r.logged);
    teardown(&s);
    drawn_iris_tensors_free(&t);
}
#endif

#ifdef GRADE_JUDGE
JUDGE(timed_training)
{
    expect_ok("rc", "time_on_device(train_logged)");
    unsigned long long syncs = (unsigned long long)got_i64("syncs");
    long n_logged = (long)got_i64("n_logged");
    double secs = got_f64("seconds");
    ck_assert_msg(syncs == 2 + 4 && n_logged == 4 && secs > 0.0,
                  "20 epochs read every 5, timed: %llu syncs (expected 2 for the timing + 4 "
                  "reads), %ld losses (expected 4), %g s",
                  syncs, n_logged, secs);
    const float *logged = got_guarded("logged", "logged", TIMED_EPOCHS / TIMED_EVERY);
    /* The judge's own run of the same 20 epochs, in double (oracle_mlp.h): a float32
     * run stays within 1e-6 of it, and one step more or less is 1e-3 away. */
    DrawnIris drawn;
    drawn_iris("03", &drawn);
    OracleIris data;
    OracleMlp m;
    double want[TIMED_EPOCHS];
    oracle_iris_start(&drawn, &data, &m);
    ck_assert_msg(oracle_mlp_train(&m, data.x_train, data.y_train, IRIS_TRAIN, IRIS_TRAIN,
                                   (double)TIMED_LR, TIMED_EPOCHS, want) == 0,
                  "grader: out of memory");
    oracle_mlp_free(&m);
    for (long k = 0; k < TIMED_EPOCHS / TIMED_EVERY; k++)
        ck_assert_msg(agrees(logged[k], want[(k + 1) * TIMED_EVERY - 1]),
                      "20 epochs read every 5, timed: logged[%ld] is %.7g, expected %.7g, the "
                      "loss of epoch %ld, %s",
                      k, (double)logged[k], want[(k + 1) * TIMED_EVERY - 1],
                      (k + 1) * TIMED_EVERY, drawn_whole_note("03", DRAWN_IRIS_SHAPE));
}
#endif

/* ---- ex03.4 the transpose ------------------------------------------------------------ */

/* k_transpose runs on the simulator (the Makefile's SIM_GRADED): the result cases check
 * the output; the counter cases also record every access the kernel made, and the judge
 * checks that record against the output and costs it itself (trace_check.h). */
#define TR_TAIL 64               /* sentinel floats after the output */
#define TR_SENTINEL (-23456.0f)  /* what they hold */

typedef struct TrShape {
    const char *p;
    int64_t rows, cols;
} TrShape;

/* The result's shapes: one element, not a multiple of a tile either way, one tile, a
 * column, a row, several tiles with ragged edges. */
static const TrShape tr_shapes[] = {
    {"a", 1, 1}, {"b", 3, 5}, {"c", 32, 32}, {"d", 33, 1}, {"e", 1, 65}, {"f", 70, 45},
};
#define N_TR ((int)(sizeof tr_shapes / sizeof tr_shapes[0]))
/* The counters' shapes: whole tiles, so every warp's request is a full one. */
static const TrShape tr_square = {"sq", 64, 64}, tr_wide = {"wide", 96, 160};

/* The input of shape p, drawn for this grading run: k / 256 in [-1024, 1024). */
static float *tr_input(const TrShape *s)
{
    int64_t n = s->rows * s->cols;
    float *h = malloc((size_t)(n ? n : 1) * sizeof *h);
    Drawn d = drawn_start(key("03.4.%s", s->p));
    for (int64_t i = 0; i < n; i++) h[i] = drawn_value(&d, 1024, 8);
    return h;
}

/* The argument checks: each call must return its error (or cudaSuccess) and launch nothing. */
static const struct {
    int in_null, out_null;
    int64_t rows, cols;
    const char *what;
    cudaError_t want;
} tr_args[] = {
    {0, 0, -1, 4, "rows = -1", cudaErrorInvalidValue},
    {0, 0, 4, -1, "cols = -1", cudaErrorInvalidValue},
    {0, 0, 65536, 65536, "rows = cols = 65536 (2^32 elements, too many for int indices)",
     cudaErrorInvalidValue},
    {0, 0, 1, (int64_t)INT_MAX + 1, "rows = 1, cols = 2^31 (too many for int indices)",
     cudaErrorInvalidValue},
    {1, 0, 4, 4, "in = NULL", cudaErrorInvalidValue},
    {0, 1, 4, 4, "out = NULL", cudaErrorInvalidValue},
    {0, 0, 0, 4, "rows = 0 (nothing to do, no launch)", cudaSuccess},
    {1, 1, 4, 0, "cols = 0 and NULL pointers (nothing to read: not an error)", cudaSuccess},
};
#define N_TR_ARGS ((int)(sizeof tr_args / sizeof tr_args[0]))

#ifdef GRADE_RUNNER
#include "../kernel_run.h"

/* k_transpose on shape s: name.rc (put_rc, with .name), name.sync, name.launches,
 * name.out (rows * cols + TR_TAIL floats), name.in (the input after the call), and
 * with `trace` the kernel's accesses (name.trace: their 32-bit words carried as the
 * bits of floats, never computed with) and the buffers' addresses. */
static void tr_run(const TrShape *s, int trace)
{
    quiet_device();
    int64_t n = s->rows * s->cols;
    float *h = tr_input(s), *back = malloc((size_t)(n + TR_TAIL) * sizeof *back);
    ck_assert(h && back);
    float *din = NULL, *dout = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&din, (size_t)(n ? n : 1) * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dout, (size_t)(n + TR_TAIL) * sizeof(float)), cudaSuccess);
    if (n)
        ck_assert_int_eq(cudaMemcpy(din, h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice),
                         cudaSuccess);
    for (int64_t i = 0; i < n + TR_TAIL; i++) back[i] = i < n ? NAN : TR_SENTINEL;
    ck_assert_int_eq(cudaMemcpy(dout, back, (size_t)(n + TR_TAIL) * sizeof(float),
                                cudaMemcpyHostToDevice),
                     cudaSuccess);
    put_i64(key("%s.in_base", s->p), (int64_t)(uintptr_t)din);
    put_i64(key("%s.out_base", s->p), (int64_t)(uintptr_t)dout);
#ifdef CUDASIM
    if (trace) cudasim_trace_start();
#endif
    long long before = launches();
    err_clear();
    cudaError_t e = k_transpose(din, dout, s->rows, s->cols, 0);
    put_rc(key("%s.rc", s->p), (int)e);
    put_str(key("%s.rc.name", s->p), cudaGetErrorName(e));
    cudaError_t sync = cudaDeviceSynchronize();
    put_i64(key("%s.sync", s->p), sync);
    put_str(key("%s.sync.name", s->p), cudaGetErrorString(sync));
    if (before >= 0) put_i64(key("%s.launches", s->p), launches() - before);
#ifdef CUDASIM
    if (trace) {
        cudasim_trace_stop();
        size_t nw = 0;
        const uint32_t *w = cudasim_trace_words(&nw);
        float *bits = malloc((nw ? nw : 1) * sizeof *bits);
        ck_assert(bits);
        memcpy(bits, w, nw * sizeof *w);
        put_f32(key("%s.trace", s->p), bits, (int64_t)nw);
        free(bits);
    }
#else
    (void)trace; /* a GPU records no accesses: the counter cases fail and say why */
#endif
    if (cudaMemcpy(back, dout, (size_t)(n + TR_TAIL) * sizeof(float), cudaMemcpyDeviceToHost) ==
        cudaSuccess)
        put_f32(key("%s.out", s->p), back, n + TR_TAIL);
    if (n && cudaMemcpy(back, din, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess)
        put_f32(key("%s.in", s->p), back, n);
    cudaFree(din);
    cudaFree(dout);
    free(h);
    free(back);
}

RUN(transpose_result)
{
    for (int i = 0; i < N_TR; i++) tr_run(&tr_shapes[i], 0);
}

RUN(transpose_arguments)
{
    quiet_device();
    float *din = NULL, *dout = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&din, 16 * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&dout, 16 * sizeof(float)), cudaSuccess);
    for (int i = 0; i < N_TR_ARGS; i++) {
        long long before = launches();
        cudaError_t e = k_transpose(tr_args[i].in_null ? NULL : din, tr_args[i].out_null ? NULL : dout,
                                    tr_args[i].rows, tr_args[i].cols, 0);
        put_rc(key("arg%d.rc", i), (int)e);
        if (before >= 0) put_i64(key("arg%d.launches", i), launches() - before);
        cudaGetLastError();
    }
    cudaFree(din);
    cudaFree(dout);
    tr_run(&tr_shapes[1], 0); /* and a good call after them */
}

RUN(transpose_counters_square) { tr_run(&tr_square, 1); }
RUN(transpose_counters_wide) { tr_run(&tr_wide, 1); }
#endif

#ifdef GRADE_JUDGE
static void tr_expect_written(const char *rk)
{
    ck_assert_msg(!(got_rc(rk) != cudaSuccess && got_rc_code(rk) == ERR_TODO),
                  "k_transpose is not written yet");
}

/* The output of shape s: out(j, i) = in(i, j), and the sentinels after it untouched. */
static const float *tr_expect_result(const TrShape *s)
{
    const char *p = s->p;
    long long r = (long long)s->rows, c = (long long)s->cols;
    int64_t n = s->rows * s->cols;
    tr_expect_written(key("%s.rc", p));
    ck_assert_msg(got_rc(key("%s.rc", p)) == cudaSuccess,
                  "k_transpose(rows = %lld, cols = %lld) returned %s; a good call returns "
                  "cudaSuccess",
                  r, c, got_str(key("%s.rc.name", p)));
    ck_assert_msg(got_i64(key("%s.sync", p)) == cudaSuccess,
                  "k_transpose(rows = %lld, cols = %lld): the kernel failed: %s", r, c,
                  got_str(key("%s.sync.name", p)));
    if (got_has(key("%s.launches", p)))
        ck_assert_msg(got_i64(key("%s.launches", p)) >= 1,
                      "k_transpose(rows = %lld, cols = %lld) launched no kernel: the work must "
                      "be done by a kernel on the GPU",
                      r, c);
    const float *out = got_f32(key("%s.out", p), n + TR_TAIL);
    float *in = tr_input(s);
    graded_note = drawn_note("the input's values");
    for (int64_t k = n; k < n + TR_TAIL; k++)
        ck_assert_msg(out[k] == TR_SENTINEL,
                      "k_transpose(rows = %lld, cols = %lld) wrote past the end of out: out[%lld] "
                      "changed (skip the threads of the last tiles that fall outside rows or "
                      "cols)",
                      r, c, (long long)k);
    for (int64_t j = 0; j < s->cols; j++)
        for (int64_t i = 0; i < s->rows; i++) {
            float want = in[i + j * s->rows], got = out[j + i * s->cols];
            ck_assert_msg(memcmp(&got, &want, sizeof got) == 0,
                          "k_transpose(rows = %lld, cols = %lld): out(%lld, %lld) = out[%lld] is "
                          "%g, expected in(%lld, %lld) = in[%lld] = %g (out is (cols, rows): "
                          "out(j, i) at out[j + i * cols], in(i, j) at in[i + j * rows]); %s",
                          r, c, (long long)j, (long long)i, (long long)(j + i * s->cols),
                          (double)got, (long long)i, (long long)j, (long long)(i + j * s->rows),
                          (double)want, graded_note);
        }
    if (n) {
        const float *after = got_f32(key("%s.in", p), n);
        for (int64_t k = 0; k < n; k++)
            ck_assert_msg(memcmp(&after[k], &in[k], sizeof in[k]) == 0,
                          "k_transpose(rows = %lld, cols = %lld) changed its input in[%lld]: "
                          "in is only read",
                          r, c, (long long)k);
    }
    free(in);
    graded_note = NULL;
    return out;
}

JUDGE(transpose_result)
{
    for (int i = 0; i < N_TR; i++) tr_expect_result(&tr_shapes[i]);
}

JUDGE(transpose_arguments)
{
    tr_expect_written("arg0.rc");
    for (int i = 0; i < N_TR_ARGS; i++) {
        const char *rk = key("arg%d.rc", i);
        int rc = got_rc(rk);
        ck_assert_msg(rc == (int)tr_args[i].want,
                      "k_transpose with %s returned %s (%d), expected %s", tr_args[i].what,
                      rc == cudaSuccess ? "cudaSuccess"
                      : rc == cudaErrorInvalidValue ? "cudaErrorInvalidValue" : "another error",
                      rc, tr_args[i].want == cudaSuccess ? "cudaSuccess" : "cudaErrorInvalidValue");
        if (got_has(key("arg%d.launches", i)))
            ck_assert_msg(got_i64(key("arg%d.launches", i)) == 0,
                          "k_transpose with %s launched a kernel: check the arguments first and "
                          "launch nothing when there is nothing to do",
                          tr_args[i].what);
    }
    tr_expect_result(&tr_shapes[1]);
}

/* A global access kind (loads or stores) of shape s at its ideal sectors, or the failure:
 * sectors per request against the ideal, the first costly instruction's first two lanes
 * as elements of their buffer, and what would fix it. */
static void tr_expect_sectors(const TrShape *s, const char *what, unsigned long long req,
                              unsigned long long sec, unsigned long long ideal,
                              const uint64_t bad[2], const char *fix)
{
    if (sec <= ideal) return;
    uint64_t in = (uint64_t)got_i64(key("%s.in_base", s->p)),
             out = (uint64_t)got_i64(key("%s.out_base", s->p));
    int64_t n = s->rows * s->cols;
    int is_out = bad[0] >= out && bad[0] < out + (uint64_t)n * 4;
    uint64_t base = is_out ? out : in;
    ck_abort_msg("k_transpose(rows = %lld, cols = %lld): global %s take %.2f sectors per request "
                 "where %.2f would hold their bytes (lane 0 at %s[%lld], lane 1 at %s[%lld]: "
                 "%lld bytes apart). A GPU moves whole 32-byte sectors, so that is %.1fx the "
                 "traffic: %s",
                 (long long)s->rows, (long long)s->cols, what, (double)sec / req,
                 (double)ideal / req, is_out ? "out" : "in", (long long)((bad[0] - base) / 4),
                 is_out ? "out" : "in", (long long)((bad[1] - base) / 4),
                 (long long)(bad[1] - bad[0]), (double)sec / ideal, fix);
}

/* The counter cases: the output right, the trace consistent with it, then every counter
 * at its ideal, the first one that is not named with what it means. */
static void tr_expect_counters(const TrShape *s)
{
    tr_expect_result(s);
    const char *p = s->p;
    long long r = (long long)s->rows, c = (long long)s->cols;
    ck_assert_msg(got_has(key("%s.trace", p)),
                  "no record of the kernel's accesses: these counters are the simulator's "
                  "(make grade grades Lesson 03 on the simulator)");
    int64_t nw = 0;
    const float *bits = got_f32_n(key("%s.trace", p), &nw);
    uint32_t *words = malloc((size_t)(nw ? nw : 1) * sizeof *words);
    ck_assert(words);
    memcpy(words, bits, (size_t)nw * sizeof *words);
    size_t n = 0;
    TraceAccess *a = trace_parse(words, (size_t)nw, &n);
    free(words);
    ck_assert_msg(a, "the record of the kernel's accesses is malformed");
    int64_t elems = s->rows * s->cols;
    TraceBuffer bufs[2] = {
        {"in", (uint64_t)got_i64(key("%s.in_base", p)), elems, 0, NULL, NULL},
        {"out", (uint64_t)got_i64(key("%s.out_base", p)), elems, 1, NULL, NULL},
    };
    float *in = tr_input(s), *fill = malloc((size_t)elems * sizeof *fill);
    uint64_t *writers = calloc((size_t)elems, sizeof *writers);
    ck_assert(in && fill && writers);
    bufs[1].writer = writers;
    for (int64_t k = 0; k < elems; k++) fill[k] = NAN;
    bufs[0].now = (uint8_t *)in;
    bufs[1].now = (uint8_t *)fill;
    char why[400];
    ck_assert_msg(trace_replay(a, n, bufs, 2, why, sizeof why) == 0,
                  "k_transpose(rows = %lld, cols = %lld): %s", r, c, why);
    const float *out = got_f32(key("%s.out", p), elems + TR_TAIL);
    ck_assert_msg(memcmp(fill, out, (size_t)elems * sizeof *fill) == 0,
                  "k_transpose(rows = %lld, cols = %lld): the kernel's recorded stores do not "
                  "make the output it left: the output must be written by the kernel",
                  r, c);
    TraceCost cost;
    ck_assert(trace_cost(a, n, &cost) == 0);
    free(a);
    free(in);
    free(fill);
    free(writers);
    ck_assert_msg(cost.ld_req > 0 && cost.st_req > 0,
                  "k_transpose(rows = %lld, cols = %lld): no global loads or no global stores "
                  "in the kernel's accesses",
                  r, c);
    tr_expect_sectors(s, "loads", cost.ld_req, cost.ld_sec, cost.ld_ideal, cost.bad_ld,
                      "make consecutive lanes (threadIdx.x) read consecutive addresses of in, "
                      "in[i + j * rows] with i from threadIdx.x");
    tr_expect_sectors(s, "stores", cost.st_req, cost.st_sec, cost.st_ideal, cost.bad_st,
                      "stage the tile in shared memory and let consecutive lanes (threadIdx.x) "
                      "write consecutive addresses of out, out[j + r * cols] with j from "
                      "threadIdx.x");
    ck_assert_msg(cost.sh_ld > 0 && cost.sh_st > 0,
                  "k_transpose(rows = %lld, cols = %lld): no shared-memory loads or stores: the "
                  "transpose goes through a __shared__ tile",
                  r, c);
    ck_assert_msg(cost.sh_st_wf <= cost.sh_st_ideal,
                  "k_transpose(rows = %lld, cols = %lld): shared stores take %.2f wavefronts per "
                  "instruction where %.2f is the ideal: a bank conflict (lanes 0 and 1 in banks "
                  "%llu and %llu, %lld bytes apart). Lanes that ask one bank for different words "
                  "wait in turn: write a row of the tile, tile[k][threadIdx.x]",
                  r, c, (double)cost.sh_st_wf / cost.sh_st, (double)cost.sh_st_ideal / cost.sh_st,
                  (unsigned long long)(cost.bad_sh_st[0] / 4 % 32),
                  (unsigned long long)(cost.bad_sh_st[1] / 4 % 32),
                  (long long)(cost.bad_sh_st[1] - cost.bad_sh_st[0]));
    ck_assert_msg(cost.sh_ld_wf <= cost.sh_ld_ideal,
                  "k_transpose(rows = %lld, cols = %lld): shared loads take %.2f wavefronts per "
                  "instruction where %.2f is the ideal: a %.0f-way bank conflict (lanes 0 and 1 in "
                  "banks %llu and %llu, %lld bytes apart). A column of a 32-column tile is 32 "
                  "words apart, all in one bank: pad the tile (tile[32][33]) so that a column "
                  "spans the 32 banks",
                  r, c, (double)cost.sh_ld_wf / cost.sh_ld, (double)cost.sh_ld_ideal / cost.sh_ld,
                  (double)cost.sh_ld_wf / cost.sh_ld_ideal,
                  (unsigned long long)(cost.bad_sh_ld[0] / 4 % 32),
                  (unsigned long long)(cost.bad_sh_ld[1] / 4 % 32),
                  (long long)(cost.bad_sh_ld[1] - cost.bad_sh_ld[0]));
}

JUDGE(transpose_counters_square) { tr_expect_counters(&tr_square); }
JUDGE(transpose_counters_wide) { tr_expect_counters(&tr_wide); }
#endif

#define CU_FILE "lessons/03_why_gpu_slower/exercises.cu"

/* name, exercise, function, what it checks, points, timeout (s), reference?, file */
#define CASES(X)                                                                                   \
    X(logged_every_n, "03.1", "train_logged",                                                      \
      "exactly epochs/N syncs, the losses of epochs N, 2N, ..., the same training", 9, 60, 1,      \
      NULL)                                                                                        \
    X(logged_bad_arguments, "03.1", "train_logged",                                                \
      "negative arguments, zero epochs, then a real run on the same model", 3, 20, 1, NULL)        \
    X(logged_step_fails, "03.1", "train_logged",                                                   \
      "a step that fails: its error, no more steps, *n_logged still set", 2, 20, 1, NULL)          \
    X(chunked_same_as_one_batch, "03.2", "predict_chunked",                                        \
      "the one-batch outputs, the expected launches, no copies, at most one sync", 9, 30, 1, NULL) \
    X(chunked_frees_its_buffer, "03.2", "predict_chunked",                                         \
      "one buffer of chunk rows, freed: device memory back to where it was", 3, 20, 1, NULL)       \
    X(chunked_edge_cases, "03.2", "predict_chunked",                                               \
      "an empty input, chunk 0 and -3, one row, a last chunk of one row, 11 features", 3, 20, 1,   \
      NULL)                                                                                        \
    X(timing_waits_for_the_gpu, "03.3", "time_on_device",                                          \
      "sync, clock, work, sync, clock; the time per repeat", 7, 10, 0, NULL)                       \
    X(timing_no_sync_between, "03.3", "time_on_device", "no sync between the calls of work", 2,    \
      10, 0, NULL)                                                                                 \
    X(timing_errors_and_the_cpu, "03.3", "time_on_device",                                         \
      "a failing work, repeats 0 and -3, the CPU", 3, 10, 0, NULL)                                 \
    X(transpose_result, "03.4", "k_transpose",                                                     \
      "out = in transposed for 1 x 1 to 70 x 45, nothing past the end, in unchanged", 4, 20, 0,    \
      CU_FILE)                                                                                     \
    X(transpose_arguments, "03.4", "k_transpose",                                                  \
      "bad sizes and NULL pointers: their error and no launch; then a good call", 2, 20, 0,        \
      CU_FILE)                                                                                     \
    X(transpose_counters_square, "03.4", "k_transpose",                                            \
      "64 x 64: coalesced loads and stores, a shared tile without bank conflicts", 3, 30, 0,       \
      CU_FILE)                                                                                     \
    X(transpose_counters_wide, "03.4", "k_transpose",                                              \
      "96 x 160: coalesced loads and stores, a shared tile without bank conflicts", 3, 30, 0,      \
      CU_FILE)                                                                                     \
    X(timed_training, "03", "all of Lesson 03",                                                    \
      "a timed training read every 5 epochs, from drawn weights on a drawn split", 4, 60, 0, NULL)

GRADED_SUITE("03", "Why the GPU looks slower", "lessons/03_why_gpu_slower/exercises.c", CASES)
