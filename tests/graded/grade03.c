/*
 * grade03.c: the graded suite of Lesson 03 (lessons/03_why_gpu_slower/exercises.c).
 *
 * Lesson 03 is about what code asks of the GPU, so the oracles are counts:
 * lib's counters (launches, syncs, copies) and their trace, which records
 * in order every launch (L), sync (S) and clock read (C). They are the same
 * on a GPU and on the simulator, so the grade does not depend on the
 * machine. The numbers themselves are checked against lib's own training
 * step and forward pass, run in the test.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graded.h"
#include "lib/backend.h"
#include "lib/counters.h"
#include "lib/device.h"
#include "lib/err.h"
#include "lib/iris.h"
#include "lib/layers.h"
#include "lib/timer.h"
#include "lib/train.h"

static Device the_device(void)
{
    int n = 0;
    ck_assert_msg(device_count(&n) == ERR_OK && n > 0, "no CUDA device (real or simulated): %s",
                  err_message());
    return device_cuda(0);
}

/* ---- ex03.1 train_logged -------------------------------------------------------------- */

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
    ck_assert_msg(iris_data_load(WB_ROOT "/lessons/data/iris.csv", &s->iris) == ERR_OK, "%s",
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
static void final_bias(Setup *s, float out[3])
{
    Param *b = module_find_param(s->model, "fc2.bias");
    Tensor *host = NULL;
    ck_assert_int_eq(tensor_to(b->value, device_cpu(), &host), ERR_OK);
    memcpy(out, tensor_f32(host), 3 * sizeof(float));
    tensor_free(host);
}

/* lib's own loop, the loss read every epoch: the reference. */
static void reference_run(Device d, long epochs, float *losses, float bias[3])
{
    Setup s;
    setup(&s, d);
    for (long e = 0; e < epochs; e++)
        ck_assert_int_eq(train_step(s.model, s.loss, s.opt, s.x, s.y, &losses[e]), ERR_OK);
    final_bias(&s, bias);
    teardown(&s);
}

static void check_logged(Device d, long epochs, long every)
{
    float ref[64], ref_bias[3], bias[3], logged[64];
    ck_assert(epochs <= 64);
    reference_run(d, epochs, ref, ref_bias);
    Setup s;
    setup(&s, d);
    for (int i = 0; i < 64; i++) logged[i] = NAN;
    long n_logged = -1;
    counters_reset();
    err_clear();
    int rc = train_logged(s.model, s.loss, s.opt, s.x, s.y, epochs, every,
                          every ? logged : NULL, &n_logged);
    Counters c = counters_get();
    expect_ok(rc, "train_logged");
    long want = every ? epochs / every : 0;
    ck_assert_msg(n_logged == want,
                  "%ld epochs, log_every %ld: *n_logged is %ld, expected %ld (one read after each "
                  "epoch e with e %% %ld == 0, counting epochs from 1)",
                  epochs, every, n_logged, want, every);
    ck_assert_msg(c.syncs == (uint64_t)want,
                  "%ld epochs, log_every %ld: the CPU waited for the GPU %llu times, expected "
                  "exactly %ld (only the reads of the loss may sync: pass NULL to train_step "
                  "and read with loss_item)",
                  epochs, every, (unsigned long long)c.syncs, want);
    for (long k = 0; k < want; k++)
        ck_assert_msg(fabsf(logged[k] - ref[(k + 1) * every - 1]) <= 1e-6f,
                      "logged[%ld] is %g, expected %g, the loss of epoch %ld (read it after "
                      "that epoch's train_step)",
                      k, (double)logged[k], (double)ref[(k + 1) * every - 1], (k + 1) * every);
    final_bias(&s, bias);
    for (int j = 0; j < 3; j++)
        ck_assert_msg(fabsf(bias[j] - ref_bias[j]) <= 1e-6f,
                      "after %ld epochs fc2.bias[%d] is %g, expected %g: run exactly %ld "
                      "train_steps",
                      epochs, j, (double)bias[j], (double)ref_bias[j], epochs);
    teardown(&s);
}

GRADED_TEST(logged_every_n)
{
    Device d = the_device();
    check_logged(d, 30, 7); /* 30 is not a multiple of 7: 4 reads */
    check_logged(d, 12, 1); /* the loss.item() habit: a sync every epoch */
    check_logged(d, 12, 0); /* never */
}

GRADED_TEST(logged_bad_arguments)
{
    Device d = the_device();
    Setup s;
    setup(&s, d);
    long n = -1;
    err_clear();
    int rc = train_logged(s.model, s.loss, s.opt, s.x, s.y, -1, 1, NULL, &n);
    ck_assert_msg(rc != ERR_TODO, "train_logged is not written yet");
    ck_assert_msg(rc == ERR_ARG, "epochs = -1 must be an ERR_ARG (got %s: %s)",
                  err_name((ErrCode)rc), err_message());
    rc = train_logged(s.model, s.loss, s.opt, s.x, s.y, 3, -2, NULL, &n);
    ck_assert_msg(rc == ERR_ARG, "log_every = -2 must be an ERR_ARG (got %s)",
                  err_name((ErrCode)rc));
    counters_reset();
    rc = train_logged(s.model, s.loss, s.opt, s.x, s.y, 0, 5, NULL, &n);
    ck_assert_msg(rc == ERR_OK && n == 0 && counters_get().launches == 0,
                  "0 epochs must do nothing and log nothing (rc %d, n_logged %ld, %llu launches)",
                  rc, n, (unsigned long long)counters_get().launches);
    teardown(&s);
}

/* ---- ex03.2 predict_chunked ------------------------------------------------------------ */

static Module *encoder(void)
{
    Rng rng;
    rng_seed(&rng, 5, 0);
    Module *layers[] = {linear_new("fc1", 6, 9, &rng), relu_new("relu"),
                        linear_new("fc2", 9, 4, &rng)};
    Module *m = sequential_new("encoder", 3, layers);
    ck_assert(m);
    return m;
}

static void check_chunked(Device d, int64_t n, int64_t chunk)
{
    Rng rng;
    rng_seed(&rng, 17, (uint64_t)chunk);
    Tensor *xc = tensor_new_2d(n, 6);
    tensor_uniform(xc, &rng, -2.0f, 2.0f);
    Module *m = encoder();
    ck_assert_int_eq(module_to(m, d), ERR_OK);
    module_train(m, false);
    Tensor *x = NULL, *want = NULL, *got = NULL;
    ck_assert_int_eq(tensor_to(xc, d, &x), ERR_OK);
    /* The answer: one batch. This also sizes the model's buffers for n rows. */
    const Tensor *y;
    ck_assert_int_eq(module_forward(m, x, &y), ERR_OK);
    ck_assert_int_eq(tensor_to(y, device_cpu(), &want), ERR_OK);
    /* What one forward of a chunk costs, in launches. */
    Tensor *one = tensor_new(DTYPE_F32, d, 2, (int64_t[]){1, 6});
    counters_reset();
    ck_assert_int_eq(module_forward(m, one, &y), ERR_OK);
    uint64_t per_forward = counters_get().launches;
    tensor_free(one);
    int64_t shape[2] = {n, 4};
    Tensor *out = tensor_new(DTYPE_F32, d, 2, shape);
    counters_reset();
    err_clear();
    int rc = predict_chunked(m, x, chunk, out);
    Counters c = counters_get();
    expect_ok(rc, "predict_chunked");
    ck_assert_int_eq(tensor_to(out, device_cpu(), &got), ERR_OK);
    char what[96];
    snprintf(what, sizeof what, "the outputs of %lld rows in chunks of %lld", (long long)n,
             (long long)chunk);
    graded_note = "rows out of order, or a chunk lost or computed twice?";
    expect_close_2d(what, tensor_f32(got), tensor_f32(want), n, 4, 1e-5, 1e-5);
    graded_note = NULL;
    int64_t chunks = (n + chunk - 1) / chunk;
    uint64_t expected = (uint64_t)chunks * (per_forward + 2);
    ck_assert_msg(c.launches == expected,
                  "%lld rows in chunks of %lld: %llu launches, expected %llu (%lld chunks, each "
                  "one tensor_copy_rows, one forward of %llu launches and one tensor_put_rows)",
                  (long long)n, (long long)chunk, (unsigned long long)c.launches,
                  (unsigned long long)expected, (long long)chunks,
                  (unsigned long long)per_forward);
    ck_assert_msg(c.copies_d2h == 0 && c.copies_h2d == 0,
                  "predict_chunked copied between the CPU and the GPU (%llu to, %llu from): the "
                  "data is on the device already",
                  (unsigned long long)c.copies_h2d, (unsigned long long)c.copies_d2h);
    ck_assert_msg(c.syncs <= 1,
                  "%lld chunks made %llu syncs, expected at most 1 (the buffer's release at the "
                  "end): make the buffer once, before the loop, and free it after",
                  (long long)chunks, (unsigned long long)c.syncs);
    tensor_free(got);
    tensor_free(want);
    tensor_free(out);
    tensor_free(x);
    tensor_free(xc);
    module_free(m);
}

GRADED_TEST(chunked_same_as_one_batch)
{
    Device d = the_device();
    check_chunked(d, 23, 5);  /* the last chunk is short */
    check_chunked(d, 24, 6);  /* it is not */
    check_chunked(d, 7, 1);   /* one row at a time */
    check_chunked(d, 10, 64); /* one chunk bigger than the input */
}

GRADED_TEST(chunked_edge_cases)
{
    Device d = the_device();
    Module *m = encoder();
    ck_assert_int_eq(module_to(m, d), ERR_OK);
    int64_t s0[2] = {0, 6}, s1[2] = {0, 4}, s2[2] = {3, 6}, s3[2] = {3, 4};
    Tensor *x0 = tensor_new(DTYPE_F32, d, 2, s0), *o0 = tensor_new(DTYPE_F32, d, 2, s1);
    counters_reset();
    err_clear();
    int rc = predict_chunked(m, x0, 4, o0);
    expect_ok(rc, "predict_chunked");
    ck_assert_msg(counters_get().launches == 0,
                  "an empty input must launch nothing (%llu launches)",
                  (unsigned long long)counters_get().launches);
    Tensor *x3 = tensor_new(DTYPE_F32, d, 2, s2), *o3 = tensor_new(DTYPE_F32, d, 2, s3);
    rc = predict_chunked(m, x3, 0, o3);
    ck_assert_msg(rc == ERR_ARG, "chunk = 0 must be an ERR_ARG (got %s)", err_name((ErrCode)rc));
    tensor_free(x0), tensor_free(o0), tensor_free(x3), tensor_free(o3);
    module_free(m);
}

/* ---- ex03.3 time_on_device ------------------------------------------------------------ */

/* A clock that moves by a different amount at each read, and remembers what it said. */
static double g_reads[64];
static int g_n_reads;

static double fake_clock(void)
{
    static const double steps[] = {3.0, 5.0, 11.0, 17.0, 23.0};
    double now = 100.0;
    for (int i = 0; i <= g_n_reads; i++) now += steps[i % 5];
    if (g_n_reads < 64) g_reads[g_n_reads] = now;
    g_n_reads++;
    return now;
}

typedef struct Work {
    Device d;
    int calls, fail_at;
} Work;

static int launch_work(void *p)
{
    Work *w = p;
    w->calls++;
    if (w->fail_at && w->calls == w->fail_at)
        return err_set(ERR_IO, "the work failed on purpose");
    return w->d.kind == DEVICE_CUDA ? backend_empty_kernel(w->d) : ERR_OK;
}

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

GRADED_TEST(timing_waits_for_the_gpu)
{
    Device d = the_device();
    /* Work queued before the timing: it must not be counted. */
    for (int i = 0; i < 3; i++) ck_assert_int_eq(backend_empty_kernel(d), ERR_OK);
    char trace[256];
    g_n_reads = 0;
    timer_set_clock(fake_clock);
    counters_trace(trace, sizeof trace);
    Work w = {d, 0, 0};
    double secs = -1;
    err_clear();
    int rc = time_on_device(d, launch_work, &w, 4, &secs);
    counters_trace(NULL, 0);
    timer_set_clock(NULL);
    expect_ok(rc, "time_on_device");
    ck_assert_msg(w.calls == 4, "work was called %d times, expected repeats = 4", w.calls);
    int c0 = first_of(trace, 'C'), c1 = last_of(trace, 'C'), l0 = first_of(trace, 'L'),
        l1 = last_of(trace, 'L');
    ck_assert_msg(c0 >= 0 && c1 > c0,
                  "the clock (timer_now) was read %d time(s); read it before and after the "
                  "work (events: %s, C = clock, S = sync, L = launch)",
                  g_n_reads, trace);
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
    double want = (g_reads[(g_n_reads < 64 ? g_n_reads : 64) - 1] - g_reads[0]) / 4.0;
    ck_assert_msg(fabs(secs - want) < 1e-9,
                  "*seconds is %g, expected %g: (the last clock read - the first) / repeats",
                  secs, want);
}

GRADED_TEST(timing_errors_and_the_cpu)
{
    Device d = the_device();
    Work w = {d, 0, 2};
    double secs = 0;
    err_clear();
    int rc = time_on_device(d, launch_work, &w, 5, &secs);
    ck_assert_msg(rc != ERR_TODO, "time_on_device is not written yet");
    ck_assert_msg(rc == ERR_IO && w.calls == 2,
                  "when the work fails on call 2 of 5, return its error at once (got %s after "
                  "%d calls)",
                  err_name((ErrCode)rc), w.calls);
    rc = time_on_device(d, launch_work, &w, 0, &secs);
    ck_assert_msg(rc == ERR_ARG, "repeats = 0 must be an ERR_ARG (got %s)", err_name((ErrCode)rc));
    /* On the CPU the same code is right, and nothing is counted as a sync. */
    Work cpu = {device_cpu(), 0, 0};
    counters_reset();
    rc = time_on_device(device_cpu(), launch_work, &cpu, 3, &secs);
    ck_assert_msg(rc == ERR_OK && cpu.calls == 3 && secs >= 0.0 && counters_get().syncs == 0,
                  "on the CPU: rc %d, %d calls, %g s, %llu syncs (expected 0, 3, >= 0, 0)", rc,
                  cpu.calls, secs, (unsigned long long)counters_get().syncs);
}

/* ---- all of them: the sync demo in miniature ------------------------------------------- */

typedef struct SyncRun {
    Setup *s;
    long epochs, every, n_logged;
    float logged[16];
} SyncRun;

static int sync_run(void *p)
{
    SyncRun *r = p;
    return train_logged(r->s->model, r->s->loss, r->s->opt, r->s->x, r->s->y, r->epochs,
                        r->every, r->logged, &r->n_logged);
}

GRADED_TEST(timed_training)
{
    Device d = the_device();
    Setup s;
    setup(&s, d);
    SyncRun r = {&s, 20, 5, 0, {0}};
    double secs = -1;
    counters_reset();
    err_clear();
    int rc = time_on_device(d, sync_run, &r, 1, &secs);
    expect_ok(rc, "time_on_device(train_logged)");
    ck_assert_msg(counters_get().syncs == 2 + 4 && r.n_logged == 4 && secs > 0.0,
                  "20 epochs read every 5, timed: %llu syncs (expected 2 for the timing + 4 "
                  "reads), %ld losses (expected 4), %g s",
                  (unsigned long long)counters_get().syncs, r.n_logged, secs);
    teardown(&s);
}

static const GradedCase cases[] = {
    {&logged_every_n, "03.1", "train_logged",
     "exactly epochs/N syncs, the losses of epochs N, 2N, ..., the same training", 9, 60, NULL},
    {&logged_bad_arguments, "03.1", "train_logged", "negative arguments, zero epochs", 3, 20,
     NULL},
    {&chunked_same_as_one_batch, "03.2", "predict_chunked",
     "the one-batch outputs, the expected launches, no copies, at most one sync", 9, 30, NULL},
    {&chunked_edge_cases, "03.2", "predict_chunked", "an empty input, chunk 0", 3, 10, NULL},
    {&timing_waits_for_the_gpu, "03.3", "time_on_device",
     "sync, clock, work, sync, clock; the time per repeat", 7, 10, NULL},
    {&timing_errors_and_the_cpu, "03.3", "time_on_device",
     "a failing work, repeats 0, the CPU", 3, 10, NULL},
    {&timed_training, "03", "all of Lesson 03", "a timed training read every 5 epochs", 4, 60,
     NULL},
};

const GradedLesson graded_lesson = {"03", "Why the GPU looks slower",
                                    "lessons/03_why_gpu_slower/exercises.c", cases,
                                    (int)(sizeof cases / sizeof cases[0])};
