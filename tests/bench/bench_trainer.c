/*
 * bench_trainer: what the trainer object costs, and what mixed precision buys on a GPU
 * (make bench).
 *
 * 1. The trainer against a bare loop doing the same work (the same model,
 *    data, batches, optimizer steps and validation each epoch), on the CPU,
 *    alternated and repeated. Each pair of runs (bare, then trainer) gives
 *    one overhead; the verdict is the median's, and only when every pair is on
 *    the same side of the target: a spread of pairs across it is noise, and
 *    the bench says so. Target: under 5% overhead.
 * 2. On a GPU (not the simulator): a 4096-wide MLP trained in float32, in
 *    float16 with a GradScaler and in bfloat16, from the same weights.
 *    Target: half precision at least 3x faster, accuracy within 0.5 points.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/counters.h"
#include "lib/train/data.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/nn/layers.h"
#include "lib/core/timer.h"
#include "lib/train/trainer.h"

#define OVERHEAD_TARGET 0.05
#define SPEEDUP_TARGET 3.0
#define ACCURACY_POINTS 0.5

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct Setup {
    Dataset train, val;
    Device dev;
    int64_t hidden[2];
    int n_hidden;
    long epochs;
    int64_t batch;
} Setup;

typedef struct Run {
    Module *model;
    Loss *loss;
    Optimizer *opt;
    Loader *train, *val;
    Trainer *t;
} Run;

static void run_free(Run *r)
{
    trainer_free(r->t);
    loader_free(r->train);
    loader_free(r->val);
    optim_free(r->opt);
    loss_free(r->loss);
    module_free(r->model);
    memset(r, 0, sizeof *r);
}

static int run_open(Run *r, const Setup *s, DType autocast)
{
    memset(r, 0, sizeof *r);
    Rng rng;
    rng_seed(&rng, 42, 0);
    r->model = mlp_new("mlp", s->train.x->shape[1], s->hidden, s->n_hidden, s->train.n_classes,
                       &rng);
    int rc = r->model ? module_to(r->model, s->dev) : (int)err_code();
    if (!rc && !(r->loss = loss_cross_entropy_new())) rc = err_code();
    if (!rc && !(r->opt = optim_sgd_momentum_new(r->model, 0.02f, 0.9f, 0.0f, false)))
        rc = err_code();
    /* On a GPU: a worker and pinned memory, and no shuffling, so that feeding the GPU
     * costs as little as it can and the comparison is of the arithmetic. */
    bool gpu = s->dev.kind == DEVICE_CUDA;
    LoaderOptions lo = {s->batch, !gpu, false, 7, gpu, gpu},
                  vo = {1024, false, false, 0, 0, gpu};
    if (!rc) rc = loader_new(s->train.x, s->train.y, s->dev, &lo, &r->train);
    if (!rc) rc = loader_new(s->val.x, s->val.y, s->dev, &vo, &r->val);
    TrainerOptions to = {s->epochs, 0.0f, autocast, autocast == DTYPE_F16, false, 1.0f, 0.0f};
    if (!rc) rc = trainer_new(r->model, r->train, r->val, r->loss, r->opt, NULL, s->dev, &to, &r->t);
    if (rc) run_free(r);
    return rc;
}

/* The same epochs written out: the loop a trainer replaces. */
static int bare_loop(Run *r, const Setup *s)
{
    for (long e = 1; e <= s->epochs; e++) {
        module_train(r->model, true);
        TRY(loader_begin(r->train, e));
        for (;;) {
            Batch b;
            bool done;
            const Tensor *logits, *dlogits;
            float v;
            TRY(loader_next(r->train, &b, &done));
            if (done) break;
            TRY(module_call(r->model, b.x, &logits));
            TRY(loss_forward(r->loss, logits, b.y, NULL));
            TRY(optim_zero_grad(r->opt));
            TRY(loss_backward(r->loss, &dlogits));
            TRY(module_backward(r->model, dlogits, NULL));
            TRY(loss_item(r->loss, &v));
            TRY(optim_step(r->opt));
        }
        module_train(r->model, false);
        module_set_grad_enabled(false);
        TRY(loader_begin(r->val, 1));
        for (;;) {
            Batch b;
            bool done;
            const Tensor *logits;
            float v, acc;
            TRY(loader_next(r->val, &b, &done));
            if (done) break;
            TRY(module_call(r->model, b.x, &logits));
            TRY(loss_forward(r->loss, logits, b.y, NULL));
            TRY(loss_item(r->loss, &v));
            TRY(loss_accuracy(logits, b.y, &acc));
        }
        module_set_grad_enabled(true);
    }
    return ERR_OK;
}

static int time_one(const Setup *s, bool trainer, double *secs, float *acc)
{
    Run r;
    TRY(run_open(&r, s, DTYPE_F32));
    TRY(device_synchronize(s->dev));
    double t0 = timer_now();
    int rc = trainer ? trainer_call(r.t, 0) : bare_loop(&r, s);
    if (!rc) rc = device_synchronize(s->dev);
    *secs = timer_now() - t0;
    if (acc && r.t->hist.n) *acc = r.t->hist.val_acc[r.t->hist.n - 1];
    run_free(&r);
    return rc;
}

/* The verdict on n paired overheads (sorted): met when every one is under the target,
 * not met when every one is at or above it, otherwise undecided: the runs' own spread
 * reaches across the target, as a shared machine's noise does. */
static const char *overhead_verdict(const double *sorted, int n, double target)
{
    if (sorted[n - 1] < target) return "met (every pair of runs under it)";
    if (sorted[0] >= target) return "NOT met (every pair of runs over it)";
    return "not decided: the pairs spread across the target, within this machine's noise "
           "(run it\n             again on a quieter machine)";
}

/* bench_trainer --check-verdict: the verdict on hand-made spreads. */
static int check_verdict(void)
{
    static const struct {
        double over[3];
        const char *starts;
    } cases[] = {{{0.01, 0.02, 0.04}, "met"},           {{0.06, 0.08, 0.1}, "NOT met"},
                 {{-0.063, 0.111, 0.156}, "not decided"}, {{0.01, 0.02, 0.05}, "not decided"},
                 {{0.05, 0.06, 0.07}, "NOT met"}};
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *v = overhead_verdict(cases[i].over, 3, OVERHEAD_TARGET);
        bool ok = !strncmp(v, cases[i].starts, strlen(cases[i].starts)) &&
                  (strcmp(cases[i].starts, "met") || strncmp(v, "met (", 5) == 0);
        printf("%s overheads %+.1f%% %+.1f%% %+.1f%%: %s\n", ok ? "ok  " : "FAIL",
               100 * cases[i].over[0], 100 * cases[i].over[1], 100 * cases[i].over[2], v);
        bad += !ok;
    }
    return bad ? 1 : 0;
}

static int overhead(void)
{
    Setup s = {{0}, {0}, device_cpu(), {128, 0}, 1, 3, 64};
    Dataset all = {0};
    TRY(dataset_synthetic(24000, 64, 10, 1.0f, 11, &all));
    int rc = dataset_split(&all, 1.0f / 6.0f, 11, &s.train, &s.val);
    dataset_free(&all);
    TRY(rc);
    enum { REPS = 7 };
    double bare[REPS], tr[REPS];
    for (int i = 0; i < REPS && !rc; i++) { /* alternated, so drift hits both alike */
        rc = time_one(&s, false, &bare[i], NULL);
        if (!rc) rc = time_one(&s, true, &tr[i], NULL);
    }
    dataset_free(&s.train);
    dataset_free(&s.val);
    TRY(rc);
    double over[REPS]; /* each pair's overhead: the two runs of a pair met the same drift */
    for (int i = 0; i < REPS; i++) over[i] = tr[i] / bare[i] - 1.0;
    qsort(bare, REPS, sizeof *bare, cmp_double);
    qsort(tr, REPS, sizeof *tr, cmp_double);
    qsort(over, REPS, sizeof *over, cmp_double);
    char x[32], y[32], x0[32], x1[32], y0[32], y1[32];
    printf("The trainer against a bare loop (CPU; %ld epochs of 20000 rows of 64 features, "
           "MLP 64-128-10,\nbatches of %lld, validation every epoch; %d pairs of runs, "
           "alternated; median, fastest to slowest):\n",
           s.epochs, (long long)s.batch, REPS);
    printf("  bare loop  %s  (%s to %s)\n  trainer    %s  (%s to %s)\n",
           timer_format(bare[REPS / 2], x, sizeof x), timer_format(bare[0], x0, sizeof x0),
           timer_format(bare[REPS - 1], x1, sizeof x1), timer_format(tr[REPS / 2], y, sizeof y),
           timer_format(tr[0], y0, sizeof y0), timer_format(tr[REPS - 1], y1, sizeof y1));
    printf("  overhead   %+.1f%%, the pairs from %+.1f%% to %+.1f%% (target: under %.0f%%)\n"
           "  verdict    %s\n",
           100.0 * over[REPS / 2], 100.0 * over[0], 100.0 * over[REPS - 1],
           100.0 * OVERHEAD_TARGET, overhead_verdict(over, REPS, OVERHEAD_TARGET));
    return ERR_OK;
}

static int mixed_precision(void)
{
    printf("\nMixed precision on a GPU (a 4096-wide MLP, float32 against float16 and "
           "bfloat16):\n");
    int n = 0;
    Device gpu;
    DeviceInfo info;
    if (device_count(&n) != ERR_OK || device_from_string("cuda", &gpu) != ERR_OK ||
        device_info(gpu, &info) != ERR_OK) {
        printf("  skipped: %s\n", err_message());
        return ERR_OK;
    }
    if (info.simulated) {
        printf("  skipped: this build runs the CUDA simulator, whose times are the CPU's\n");
        return ERR_OK;
    }
    Setup s = {{0}, {0}, gpu, {4096, 4096}, 2, 3, 2048};
    Dataset all = {0};
    TRY(dataset_synthetic(36864, 256, 10, 2.0f, 5, &all));
    int rc = dataset_split(&all, 4096.0f / 36864.0f, 5, &s.train, &s.val);
    dataset_free(&all);
    TRY(rc);
    const DType kinds[3] = {DTYPE_F32, DTYPE_F16, DTYPE_BF16};
    double secs[3] = {0};
    float acc[3] = {0};
    for (int k = 0; k < 3 && !rc; k++) {
        Run r;
        rc = run_open(&r, &s, kinds[k]);
        if (rc) break;
        rc = trainer_call(r.t, 1); /* a warm-up epoch: cuBLAS picks its kernels */
        run_free(&r);
        if (!rc) rc = run_open(&r, &s, kinds[k]);
        if (rc) break;
        double t0 = timer_now();
        rc = trainer_call(r.t, 0);
        if (!rc) rc = device_synchronize(gpu);
        secs[k] = timer_now() - t0;
        acc[k] = r.t->hist.val_acc[r.t->hist.n - 1];
        run_free(&r);
    }
    dataset_free(&s.train);
    dataset_free(&s.val);
    TRY(rc);
    printf("  %s, 32768 rows of 256 features, MLP 256-4096-4096-10, batches of 2048, 3 "
           "epochs:\n",
           info.name);
    for (int k = 0; k < 3; k++) {
        char t[32];
        double speedup = secs[0] / secs[k], points = 100.0 * fabs((double)(acc[k] - acc[0]));
        printf("  %-9s %10s  %5.2fx  val acc %.2f%%", dtype_name(kinds[k]),
               timer_format(secs[k], t, sizeof t), speedup, 100.0 * (double)acc[k]);
        if (k)
            printf("  (target: %.0fx and within %.1f points: %s)", SPEEDUP_TARGET,
                   ACCURACY_POINTS,
                   speedup >= SPEEDUP_TARGET && points <= ACCURACY_POINTS ? "met" : "NOT met");
        printf("\n");
    }
    return ERR_OK;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--check-verdict")) return check_verdict();
    if (argc > 1) {
        char q[160];
        fprintf(stderr, "bench_trainer: unknown argument %s (it takes none, or "
                        "--check-verdict)\n", err_quote(argv[1], strlen(argv[1]), 100, q,
                                                         sizeof q));
        return 2;
    }
    int rc = overhead();
    if (!rc) rc = mixed_precision();
    if (rc) {
        fprintf(stderr, "bench_trainer: %s\n", err_message());
        return 1;
    }
    return 0;
}
