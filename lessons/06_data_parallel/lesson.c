/*
 * Part 6: beyond one GPU, data-parallel training.
 *
 * lesson37 --part 6 starts itself again under mpirun (lib/dist/launch.h) as
 * 2 ranks, which find each other in dist_init() and run the lesson's worker:
 * each says who it is, all start from rank 0's weights, each trains on its
 * own shard of every epoch, and the gradients are averaged in buckets after
 * every backward, while Lesson 05's trainer runs unchanged around a model
 * wrapped in DistributedDataParallel. Back in the first process, the part
 * checks that 2 ranks with batch B trained exactly as 1 rank with batch 2B,
 * resumes the 2 ranks' checkpoint on 1 rank, times compute against the
 * all-reduce for a small and a wide model on 1, 2 and 4 ranks, draws the
 * scaling, and ends with the ring all-reduce's cost model for real links.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lessons/lesson.h"
#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/core/rng.h"
#include "lib/core/timer.h"
#include "lib/dist/ddp.h"
#include "lib/dist/dist.h"
#include "lib/dist/launch.h"
#include "lib/dist/sampler.h"
#include "lib/io/plot.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/nn/optim.h"
#include "lib/train/checkpoint.h"
#include "lib/train/data.h"
#include "lib/train/iris.h"
#include "lib/train/train.h"
#include "lib/train/trainer.h"

#define PART 6
#define README "lessons/06_data_parallel/README.md"

/* The float tolerance of "the same training": the two runs add the same per-row
 * gradients in another order (the mean of two means of B rows against one mean of 2B),
 * which changes a weight by an ulp or so per step; 1e-6 is about 16 ulps of a weight
 * near 1, far below what a wrong average or a wrong shard gives (1e-2 and more). */
#define SAME_TRAINING 1e-6

typedef struct Options {
    long ranks;         /* ranks of the training run */
    const char *device; /* cpu or cuda */
    long epochs;
    long batch;         /* per rank */
    bool quick;
    bool no_cost;
    /* what a rank runs under mpirun (internal) */
    const char *worker; /* "lesson", "train" or "cost" */
    const char *model;  /* cost: "small" or "wide" */
    const char *resume; /* train: a checkpoint to start from */
    const char *weights; /* train: where rank 0 writes the final weights */
    const char *ckpt;   /* lesson: where rank 0 saves the checkpoint halfway */
    const char *data;   /* cost: the file rank 0 appends its line to */
    long steps;         /* cost: timed steps */
    bool overlap;       /* cost: all-reduce each bucket during backward */
} Options;

static const char *const workers[] = {"lesson", "train", "cost", NULL};
static const char *const models[] = {"small", "wide", NULL};
static const char *const devices[] = {"cpu", "cuda", NULL};

static bool parse_options(int argc, char **argv, Options *o, int *status)
{
    const LessonOption table[] = {
        OPT_LONG("ranks", &o->ranks, "N", 1, 16, "ranks of the training run (default 2)"),
        OPT_CHOICE("device", &o->device, "D", devices,
                   "cpu, or cuda: each rank its own GPU (default cpu)"),
        OPT_LONG("epochs", &o->epochs, "N", 2, 1000, "epochs of the training run (default 6)"),
        OPT_LONG("batch", &o->batch, "B", 1, 60, "rows per rank and step (default 8)"),
        OPT_SET("quick", &o->quick, "fewer timed steps, for class"),
        OPT_SET("no-cost", &o->no_cost, "skip the timing of section 6"),
        OPT_CHOICE("worker", &o->worker, "W", workers, "(internal) what a rank runs under mpirun"),
        OPT_CHOICE("model", &o->model, "M", models, "(internal) the cost worker's model"),
        OPT_TEXT("resume", &o->resume, "FILE", "(internal) the train worker's checkpoint"),
        OPT_TEXT("weights", &o->weights, "FILE", "(internal) where rank 0 writes the weights"),
        OPT_TEXT("ckpt", &o->ckpt, "FILE", "(internal) where rank 0 saves halfway"),
        OPT_TEXT("data", &o->data, "FILE", "(internal) the cost worker's data file"),
        OPT_LONG("steps", &o->steps, "N", 1, 100000, "(internal) the cost worker's timed steps"),
        OPT_SET("overlap", &o->overlap, "(internal) the cost worker overlaps"),
        OPT_END,
    };
    return lesson_options(PART, table, argc, argv, status);
}

/* ---- what every rank does ------------------------------------------------------------- */

/* The model's values on the host, in module_parameters() order (the caller frees). */
static int host_values(Module *m, float **out, int64_t *n)
{
    ParamRef refs[16];
    int np = module_parameters(m, refs, 16);
    int64_t total = module_num_scalars(m);
    float *v = malloc(sizeof *v * (size_t)(total ? total : 1));
    if (!v) return err_set(ERR_NOMEM, "out of memory");
    int64_t at = 0;
    for (int i = 0; i < np; i++) {
        const Tensor *t = refs[i].param->value;
        int rc = device_copy(v + at, device_cpu(), t->data, t->device,
                             sizeof(float) * (size_t)t->numel);
        if (rc) {
            free(v);
            return rc;
        }
        at += t->numel;
    }
    *out = v;
    *n = total;
    return ERR_OK;
}

/* A checksum of the weights that a change of one of them changes. */
static int checksum(Module *m, double *sum)
{
    float *v;
    int64_t n;
    TRY(host_values(m, &v, &n));
    *sum = 0;
    for (int64_t i = 0; i < n; i++) *sum += (double)v[i] * (double)(1 + i % 7);
    free(v);
    return ERR_OK;
}

static int write_weights(Module *m, const char *path)
{
    float *v;
    int64_t n;
    TRY(host_values(m, &v, &n));
    int rc = fileio_save_bytes(path, "weights file", v, sizeof *v * (size_t)n);
    free(v);
    return rc;
}

static int read_weights(const char *path, float *v, int64_t n)
{
    char *bytes;
    size_t len, want = sizeof *v * (size_t)n;
    if (fileio_read_max(path, want, "weights file", &bytes, &len) != ERR_OK)
        return err_context("did rank 0 write it?");
    if (len == want) memcpy(v, bytes, want);
    free(bytes);
    return len == want ? ERR_OK
                       : err_set(ERR_IO, "%s: %zu bytes, expected %zu (did rank 0 write it?)", path,
                                 len, want);
}

/* Rank 0 prints each rank's line, in rank order. */
#define RANK_LINE 320 /* one rank's line: say_who's longest fits */

static int print_ranks(ProcessGroup *pg, const char *mine)
{
    char line[RANK_LINE] = "";
    snprintf(line, sizeof line, "%s", mine);
    char *all = malloc(sizeof line * (size_t)pg->world);
    if (!all) return err_set(ERR_NOMEM, "out of memory");
    int rc = dist_all_gather(pg, line, sizeof line, all);
    if (rc == ERR_OK && pg->rank == 0)
        for (int r = 0; r < pg->world; r++)
            printf("    %s\n", all + r * sizeof line);
    fflush(stdout);
    free(all);
    return rc;
}

/* Section 1: who is who. */
static int say_who(ProcessGroup *pg)
{
    char dev[32], line[RANK_LINE], name[96] = "";
    device_str(pg->device, dev, sizeof dev);
    if (!device_is_host(pg->device)) {
        DeviceInfo info;
        if (device_info(pg->device, &info) == ERR_OK)
            snprintf(name, sizeof name, " (%.80s)", info.name);
    }
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    snprintf(line, sizeof line,
             "rank %d of %d  local rank %d  host %.24s  pid %ld  device %s%s%s%.40s", pg->rank,
             pg->world, pg->local_rank, pg->host, (long)getpid(), dev, name,
             visible ? "  CUDA_VISIBLE_DEVICES=" : "", visible ? visible : "");
    return print_ranks(pg, line);
}

/* Section 3: the shards of epoch 1, and whether they are disjoint and cover it. */
static int show_shards(ProcessGroup *pg, DistSampler *s)
{
    int64_t len = dist_sampler_len(s);
    int32_t *mine = malloc(sizeof *mine * (size_t)(len ? len : 1));
    int32_t *all = malloc(sizeof *all * (size_t)(len ? len : 1) * (size_t)pg->world);
    int rc = ERR_OK;
    if (!mine || !all) TRY_OR_DONE(err_set(ERR_NOMEM, "out of memory"));
    dist_sampler_set_epoch(s, 1);
    TRY_OR_DONE(dist_sampler_rows(s, mine));
    char line[160];
    int at = snprintf(line, sizeof line, "rank %d, epoch 1, %lld rows:", pg->rank, (long long)len);
    for (int64_t i = 0; i < len && i < 12 && at < 140; i++)
        at += snprintf(line + at, sizeof line - (size_t)at, " %d", mine[i]);
    if (len > 12) snprintf(line + at, sizeof line - (size_t)at, " ...");
    TRY_OR_DONE(print_ranks(pg, line));
    TRY_OR_DONE(dist_all_gather(pg, mine, sizeof *mine * (size_t)len, all));
    if (pg->rank == 0) {
        int64_t n = s->n, twice = 0, missing = 0;
        int *count = calloc((size_t)(n ? n : 1), sizeof *count);
        if (!count) TRY_OR_DONE(err_set(ERR_NOMEM, "out of memory"));
        for (int64_t i = 0; i < len * pg->world; i++) count[all[i]]++;
        for (int64_t i = 0; i < n; i++) twice += count[i] > 1, missing += count[i] == 0;
        printf("    every row of the %lld in some shard: %s; rows in two shards: %lld (%s)\n",
               (long long)n, missing ? "no" : "yes", (long long)twice,
               twice == len * pg->world - n ? "the padding that evens the shards out"
                                            : "unexpected");
        free(count);
    }
done:
    free(mine);
    free(all);
    return rc;
}

/* The training run of sections 2 to 5 on every rank; @p verbose: the lesson's narration. */
static int run_training(ProcessGroup *pg, const Options *o, bool verbose)
{
    IrisData iris = {0};
    Module *ddp = NULL;
    Loader *train = NULL, *val = NULL;
    Loss *loss = NULL;
    Optimizer *opt = NULL;
    Trainer *t = NULL;
    DistSampler s = {0};
    int rc = ERR_OK;
    bool r0 = pg->rank == 0;
    TRY_OR_DONE(iris_data_load(iris_csv_path(), &iris));
    /* every rank builds the model, each from its own seed: they start apart */
    Module *model = iris_mlp_new(100 + (uint64_t)pg->rank);
    if (!model) TRY_OR_DONE(err_code());
    if ((rc = module_to(model, pg->device)) != ERR_OK) {
        module_free(model);
        goto done;
    }
    double before = 0, after = 0;
    TRY_OR_DONE(checksum(model, &before));
    /* 2. DDP(model): rank 0's weights everywhere (exercise 06.4), then the buckets */
    DdpOptions dopt = {.bucket_mb = 48.0 / (1 << 20)};
    if (!(ddp = ddp_new(pg, model, &dopt))) TRY_OR_DONE(err_code());
    TRY_OR_DONE(checksum(ddp, &after));
    if (verbose) {
        char line[160];
        if (r0) printf("\n  2. Same start: every rank built the model from its own seed; DDP(model) "
                       "broadcasts rank 0's.\n");
        snprintf(line, sizeof line, "rank %d: weights checksum %+.9f before the broadcast, "
                 "%+.9f after", pg->rank, before, after);
        TRY_OR_DONE(print_ranks(pg, line));
    }
    /* 3. each rank its own shard (exercise 06.1) */
    TRY_OR_DONE(dist_sampler_init(&s, iris.x_train->shape[0], pg->world, pg->rank, true, 7, false));
    if (verbose) {
        if (r0) printf("\n  3. Each rank its own shard: DistributedSampler(seed 7), the epoch's "
                       "order cut into %d.\n", pg->world);
        TRY_OR_DONE(show_shards(pg, &s));
    }
    LoaderOptions lo = {.batch_size = o->batch, .seed = 7};
    TRY_OR_DONE(dist_sampler_loader(&s, iris.x_train, iris.train.y, pg->device, &lo, &train));
    LoaderOptions vo = {.batch_size = 30};
    TRY_OR_DONE(loader_new(iris.x_test, iris.test.y, pg->device, &vo, &val));
    if (!(loss = loss_cross_entropy_new()) || !(opt = optim_sgd_new(ddp, 0.2f)))
        TRY_OR_DONE(err_code());
    /* 4. Lesson 05's trainer, unchanged: it calls the wrapper as it calls any model */
    TrainerOptions to = {.epochs = o->epochs, .autocast = DTYPE_F32, .loss_weight = 1.0f};
    TRY_OR_DONE(trainer_new(ddp, train, val, loss, opt, NULL, pg->device, &to, &t));
    if (o->resume) TRY_OR_DONE(checkpoint_load(t, o->resume));
    if (verbose && r0) {
        int nb = 0;
        const Bucket *b = ddp_buckets(ddp, &nb);
        printf("\n  4. Gradients averaged in %d buckets after every backward (sizes in floats:",
               nb);
        for (int i = 0; i < nb; i++) printf(" %lld", (long long)b[i].numel);
        printf("),\n     with Lesson 05's trainer_call() around the wrapped model, unchanged. The "
               "trainer calls\n     module_call(model, x) and module_backward() as it always "
               "did; the wrapper is a module, so\n     what it adds (the broadcast when made, the "
               "all-reduce after backward) needs no change in\n     the caller: the __call__ "
               "story of Lesson 04 again.\n");
        module_print(ddp, stdout);
        printf("    epoch  rank 0's shard loss  val loss  val acc\n");
    }
    long half = o->epochs / 2;
    for (long e = t->epoch + 1; e <= o->epochs; e++) {
        TRY_OR_DONE(trainer_call(t, e));
        if (verbose && r0)
            printf("    %5ld %19.4f %9.4f %7.1f%%\n", e, (double)t->hist.train_loss[e - 1],
                   (double)t->hist.val_loss[e - 1], 100.0 * (double)t->hist.val_acc[e - 1]);
        if (e == half && o->ckpt) {
            /* 5. one file per run: rank 0 writes, the others wait until it is there */
            if (r0) TRY_OR_DONE(checkpoint_save(t, e, o->ckpt));
            TRY_OR_DONE(dist_barrier(pg));
            if (verbose && r0) printf("          (rank 0 alone saved the checkpoint of epoch %ld: "
                                      "%s)\n", e, lesson_path(o->ckpt));
        }
    }
    /* the ranks must agree bit for bit: identical averaged gradients, identical steps */
    double sums[16];
    TRY_OR_DONE(checksum(ddp, &after));
    TRY_OR_DONE(dist_all_gather(pg, &after, sizeof after, sums));
    for (int r = 1; r < pg->world && r0; r++)
        if (sums[r] != sums[0])
            TRY_OR_DONE(err_set(ERR_IO, "rank %d's weights differ from rank 0's after training "
                                        "(checksums %.9f and %.9f)", r, sums[r], sums[0]));
    if (verbose && r0) {
        DdpStats st = ddp_stats(ddp);
        printf("    after %ld steps all %d ranks hold the same weights (checksum %+.9f)\n",
               st.steps, pg->world, after);
    }
    if (r0 && o->weights) TRY_OR_DONE(write_weights(ddp, o->weights));
done:
    trainer_free(t);
    optim_free(opt);
    loss_free(loss);
    loader_free(train);
    loader_free(val);
    dist_sampler_free(&s);
    module_free(ddp);
    iris_data_free(&iris);
    return rc;
}

/* ---- section 6 on every rank: where a step's time goes ------------------------------ */

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median and the quartiles of @p n values (sorted in place). */
static void quartiles(double *v, long n, double q[3])
{
    qsort(v, (size_t)n, sizeof *v, compare_double);
    q[0] = v[n / 4], q[1] = v[n / 2], q[2] = v[(3 * n) / 4];
}

static int run_cost(ProcessGroup *pg, const Options *o)
{
    bool wide = strcmp(o->model, "wide") == 0;
    int64_t d = wide ? 256 : 4, classes = wide ? 10 : 3, batch = wide ? 64 : 16;
    int64_t hidden[2] = {wide ? 1024 : 10, 1024};
    Dataset ds = {0};
    Module *ddp = NULL;
    Loss *loss = NULL;
    Optimizer *opt = NULL;
    Tensor *x = NULL, *y = NULL;
    long warm = 3, steps = o->steps;
    double *compute = calloc((size_t)steps, sizeof *compute);
    double *comm = calloc((size_t)steps, sizeof *comm);
    double *alone = calloc((size_t)steps, sizeof *alone);
    Tensor *flat = NULL;
    int rc = ERR_OK;
    if (!compute || !comm || !alone) TRY_OR_DONE(err_set(ERR_NOMEM, "out of memory"));
    /* each rank its own rows: a synthetic batch drawn from its rank */
    TRY_OR_DONE(dataset_synthetic(batch, d, (int)classes, 0.5f, 11 + (uint64_t)pg->rank, &ds));
    TRY_OR_DONE(tensor_to(ds.x, pg->device, &x));
    TRY_OR_DONE(tensor_to(ds.y, pg->device, &y));
    Rng rng;
    rng_seed(&rng, 5, 0);
    Module *model = mlp_new("mlp", d, hidden, wide ? 2 : 1, classes, &rng);
    if (!model) TRY_OR_DONE(err_code());
    if ((rc = module_to(model, pg->device)) != ERR_OK) {
        module_free(model);
        goto done;
    }
    DdpOptions dopt = {.bucket_mb = 1.0, .overlap = o->overlap, .sync_timing = true};
    if (!(ddp = ddp_new(pg, model, &dopt))) TRY_OR_DONE(err_code());
    if (!(loss = loss_cross_entropy_new()) || !(opt = optim_sgd_new(ddp, 0.01f)))
        TRY_OR_DONE(err_code());
    for (long i = 0; i < warm + steps; i++) {
        float value;
        ddp_reset_stats(ddp);
        TRY_OR_DONE(train_step(ddp, loss, opt, x, y, &value));
        DdpStats st = ddp_stats(ddp);
        if (i >= warm) compute[i - warm] = st.forward_s + st.backward_s, comm[i - warm] = st.comm_s;
    }
    /* the all-reduce alone: the same bytes, every rank arriving together (a barrier first) */
    DdpStats st = ddp_stats(ddp);
    int64_t nflat = st.bytes / (int64_t)sizeof(float);
    if (!(flat = tensor_new(DTYPE_F32, pg->device, 1, &nflat))) TRY_OR_DONE(err_code());
    for (long i = 0; i < steps; i++) {
        TRY_OR_DONE(dist_barrier(pg));
        double t0 = timer_now();
        TRY_OR_DONE(dist_all_reduce_sum(pg, flat));
        TRY_OR_DONE(device_synchronize(pg->device));
        alone[i] = timer_now() - t0;
    }
    /* a step takes as long as its slowest rank */
    TRY_OR_DONE(dist_reduce_f64(pg, compute, (int)steps, DIST_MAX));
    TRY_OR_DONE(dist_reduce_f64(pg, comm, (int)steps, DIST_MAX));
    TRY_OR_DONE(dist_reduce_f64(pg, alone, (int)steps, DIST_MAX));
    if (pg->rank == 0) {
        double *total = malloc(sizeof *total * (size_t)steps);
        if (!total) TRY_OR_DONE(err_set(ERR_NOMEM, "out of memory"));
        for (long i = 0; i < steps; i++) total[i] = compute[i] + comm[i];
        double qc[3], qm[3], qt[3], qa[3];
        quartiles(compute, steps, qc);
        quartiles(comm, steps, qm);
        quartiles(total, steps, qt);
        quartiles(alone, steps, qa);
        free(total);
        /* One line more: the file as the earlier launches left it, saved again. */
        char *before = NULL;
        size_t len = 0;
        if (access(o->data, F_OK) == 0) TRY_OR_DONE(fileio_read(o->data, &before, &len));
        FILE *f = fileio_save_stream(o->data, "timing data file");
        if (f) {
            fwrite(before ? before : "", 1, len, f);
            fprintf(f, "%s %d %d %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g "
                       "%lld %lld %d\n",
                    o->model, pg->world, o->overlap ? 1 : 0, qc[0], qc[1], qc[2], qm[0], qm[1],
                    qm[2], qt[0], qt[1], qt[2], qa[0], qa[1], qa[2], (long long)st.bytes,
                    (long long)batch, pg->world > dist_cores() ? 1 : 0);
        }
        free(before);
        if (!f || fclose(f) != 0) TRY_OR_DONE(err_code());
    }
done:
    free(compute);
    free(comm);
    free(alone);
    tensor_free(flat);
    tensor_free(x);
    tensor_free(y);
    optim_free(opt);
    loss_free(loss);
    module_free(ddp);
    dataset_free(&ds);
    return rc;
}

/* A rank, started by mpirun: join the group, run the worker, leave. */
static int run_worker(const LessonContext *ctx, const Options *o)
{
    ProcessGroup *pg = NULL;
    int rc = dist_init(o->device, &pg);
    if (rc == ERR_OK) {
        bool lesson = strcmp(o->worker, "lesson") == 0 && !ctx->quiet;
        if (lesson) {
            if (pg->rank == 0)
                printf("  1. Processes and ranks: mpirun started %d copies of this program; "
                       "each is a rank.\n     The engine: %s%s.\n", pg->world, pg->engine,
                       pg->staged ? "; GPU memory goes through host copies to it (no NCCL in "
                                    "this build)" : "");
            rc = say_who(pg);
        }
        if (rc == ERR_OK)
            rc = strcmp(o->worker, "cost") == 0 ? run_cost(pg, o) : run_training(pg, o, lesson);
    }
    if (rc != ERR_OK) {
        char m[400];
        snprintf(m, sizeof m, "rank %d: %s", pg ? pg->rank : -1, err_message());
        lesson_error(PART, m);
    }
    fflush(stdout);
    dist_finalize(pg);
    return rc == ERR_OK ? LESSON_OK : LESSON_FAILED;
}

/* ---- the first process: launches, comparisons, the table -------------------------------- */

typedef struct Run {
    const LessonContext *ctx;
    const Options *o;
    char self[4096]; /* this program */
} Run;

/* Launch this program as @p ranks ranks running `--part 6` with @p extra options. */
/* The ranks of the last launch stopped at an exercise not written yet, each saying which
 * (on the terminal when their output was shown, else in their log). */
static bool g_ranks_todo, g_ranks_shown;

static int launch(const Run *run, int ranks, bool show, char *const extra[], double limit)
{
    char ranks_text[16], epochs[16], batch[16];
    snprintf(ranks_text, sizeof ranks_text, "%d", ranks);
    snprintf(epochs, sizeof epochs, "%ld", run->o->epochs);
    snprintf(batch, sizeof batch, "%ld", run->o->batch);
    char *argv[40] = {(char *)run->self, "--part", "6", "--out", (char *)run->ctx->out_dir,
                      "--no-plot", "--device", (char *)run->o->device, "--epochs", epochs};
    int k = 10;
    if (run->ctx->quiet) argv[k++] = "--quiet";
    for (int i = 0; extra[i] && k < 38; i++) argv[k++] = extra[i];
    bool has_batch = false;
    for (int i = 10; i < k; i++) has_batch |= strcmp(argv[i], "--batch") == 0;
    if (!has_batch) argv[k++] = "--batch", argv[k++] = batch;
    argv[k] = NULL;
    char log[1024];
    snprintf(log, sizeof log, "%s/06_ranks.log", run->ctx->out_dir);
    DistLaunchOptions lo = {ranks, limit, show ? NULL : log, true};
    DistLaunch r;
    fflush(stdout);
    TRY(dist_launch(&lo, argv, &r));
    if (r.timed_out)
        return err_set(ERR_IO, "%d ranks ran past %.0f s and were stopped (a rank waiting in a "
                               "collective that another never called?)%s%s",
                       ranks, limit, show ? "" : "; their output: ", show ? "" : log);
    if (r.status == LESSON_TODO) { /* the ranks stopped at an exercise not written yet */
        g_ranks_todo = true;
        g_ranks_shown = show;
        return err_set(ERR_TODO, "the %d ranks stopped at an exercise not written yet; their "
                                 "output: %s", ranks, lesson_path(log));
    }
    if (r.status != 0)
        return err_set(ERR_IO, "%d ranks: mpirun returned %d%s%s", ranks, r.status,
                       show ? "" : "; the ranks' output: ", show ? "" : lesson_path(log));
    return ERR_OK;
}

static const char *log_of(const Run *run)
{
    static char log[1024];
    snprintf(log, sizeof log, "%s/06_ranks.log", run->ctx->out_dir);
    return log;
}

static void out_path(const Run *run, const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", run->ctx->out_dir, name);
}

/* The largest difference between two weight files of the Iris MLP (83 floats). */
static int weights_apart(const char *a, const char *b, double *diff)
{
    float wa[83], wb[83];
    TRY(read_weights(a, wa, 83));
    TRY(read_weights(b, wb, 83));
    *diff = 0;
    for (int i = 0; i < 83; i++) *diff = fmax(*diff, fabs((double)wa[i] - (double)wb[i]));
    return ERR_OK;
}

/* Sections 1 to 5. */
static int section_training(const Run *run)
{
    const Options *o = run->o;
    char w2[1024], w1[1024], ckpt[1024], resumed[1024], bigger[16];
    out_path(run, "06_weights_2ranks.bin", w2, sizeof w2);
    out_path(run, "06_weights_1rank.bin", w1, sizeof w1);
    out_path(run, "06_checkpoint.safetensors", ckpt, sizeof ckpt);
    out_path(run, "06_weights_resumed.bin", resumed, sizeof resumed);
    char ranks[16];
    snprintf(ranks, sizeof ranks, "%ld", o->ranks);
    printf("  $ mpirun -np %ld lesson37 --part 6 --worker lesson ...   (launch.h adds what "
           "this machine needs)\n\n", o->ranks);
    char *lesson[] = {"--worker", "lesson", "--weights", w2, "--ckpt", ckpt, NULL};
    TRY(launch(run, (int)o->ranks, true, lesson, 120));
    /* 5. the same training as one rank with the whole batch */
    snprintf(bigger, sizeof bigger, "%ld", o->batch * o->ranks);
    char *one[] = {"--worker", "train", "--batch", bigger, "--weights", w1, NULL};
    TRY(launch(run, 1, false, one, 120));
    double diff;
    TRY(weights_apart(w2, w1, &diff));
    long steps = o->epochs * ((120 / o->ranks + o->batch - 1) / o->batch);
    printf("\n  5. Same training: %ld ranks x batch %ld against 1 rank x batch %s, %ld steps:\n",
           o->ranks, o->batch, bigger, steps);
    printf("  equivalence: max |w(%ld ranks) - w(1 rank)| = %.3g  (tolerance %.0e: %s)\n",
           o->ranks, diff, SAME_TRAINING,
           diff <= SAME_TRAINING ? "the same training" : "NOT the same training");
    printf("     The averaged gradient is the mean over the global batch either way; only the "
           "order of the\n     additions differs (the mean of two means against one mean), "
           "an ulp or so per step.\n");
    /* resume the ranks' checkpoint on one rank */
    char *res[] = {"--worker", "train", "--batch", bigger, "--resume", ckpt, "--weights", resumed,
                   NULL};
    TRY(launch(run, 1, false, res, 120));
    double rdiff;
    TRY(weights_apart(resumed, w1, &rdiff));
    printf("  resume: the %ld ranks' checkpoint of epoch %ld, resumed on 1 rank to epoch %ld: "
           "max |w - w(1 rank all along)| = %.3g (%s)\n",
           o->ranks, o->epochs / 2, o->epochs, rdiff,
           rdiff <= SAME_TRAINING ? "the same" : "NOT the same");
    return diff <= SAME_TRAINING && rdiff <= SAME_TRAINING
               ? ERR_OK
               : err_set(ERR_IO, "the runs do not agree (see the numbers above)");
}

/* One row of the cost data (run_cost's line). */
typedef struct CostRow {
    char model[8];
    int world, overlap, over;
    double compute[3], comm[3], total[3], alone[3];
    long long bytes, batch;
} CostRow;

static int read_cost(const char *path, CostRow *rows, int cap, int *n)
{
    char *text;
    size_t len;
    TRY(fileio_read(path, &text, &len));
    *n = 0;
    CostRow r;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line && *n < cap;
         line = strtok_r(NULL, "\n", &save))
        if (sscanf(line, "%7s %d %d %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lld %lld %d",
                   r.model, &r.world, &r.overlap, &r.compute[0], &r.compute[1], &r.compute[2],
                   &r.comm[0], &r.comm[1], &r.comm[2], &r.total[0], &r.total[1], &r.total[2],
                   &r.alone[0], &r.alone[1], &r.alone[2], &r.bytes, &r.batch, &r.over) == 18)
            rows[(*n)++] = r;
    free(text);
    return ERR_OK;
}

/* "1.23 ms [1.10-1.40]": a median and its quartiles, in the median's unit. */
static const char *spread(const double q[3], char *buf, size_t size)
{
    char m[24];
    timer_format(q[1], m, sizeof m);
    const char *unit = strchr(m, ' ');
    double scale = !unit ? 1 : !strcmp(unit, " ms") ? 1e3 : !strcmp(unit, " us") ? 1e6 : !strcmp(unit, " ns") ? 1e9 : 1;
    snprintf(buf, size, "%s [%.3g-%.3g]", m, q[0] * scale, q[2] * scale);
    return buf;
}

static const CostRow *find_row(const CostRow *rows, int n, const char *model, int world, int overlap)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].model, model) && rows[i].world == world && rows[i].overlap == overlap)
            return &rows[i];
    return NULL;
}

static void draw_scaling(const Run *run, const char *dat)
{
    if (!run->ctx->plots) return;
    char png[1024];
    out_path(run, "06_scaling.png", png, sizeof png);
    const char *gp = WB_ROOT "/lessons/06_data_parallel/scaling.gp";
    if (plot_draw(gp, dat, png, "Lesson 06: scaling efficiency per world size") != ERR_OK) {
        printf("  Plot: skipped (%s)\n", err_message());
        return;
    }
    printf("  Plot: %s\n", png);
    if (run->ctx->tty && !run->ctx->quiet && plot_draw(gp, dat, NULL, "scaling efficiency") != ERR_OK)
        printf("  Plot in the terminal: skipped (%s)\n", err_message());
}

/* Section 6. */
static int section_cost(const Run *run)
{
    const Options *o = run->o;
    char data[1024], dat[1024];
    out_path(run, "06_cost.txt", data, sizeof data);
    out_path(run, "06_scaling.dat", dat, sizeof dat);
    remove(data);
    /* one BLAS thread per rank: each rank computes on a core of its own (one GPU each) */
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    static const int worlds[] = {1, 2, 4};
    const char *model_names[] = {"small", "wide"};
    long small_steps = o->quick ? 60 : 200, wide_steps = o->quick ? 8 : 20;
    printf("\n  6. Cost: one step = compute (forward + backward) + the all-reduce, per rank "
           "batch fixed;\n     each number the median over the timed steps of the slowest "
           "rank, [quartiles].\n");
    for (int m = 0; m < 2; m++)
        for (int w = 0; w < 3; w++) {
            char steps[16];
            snprintf(steps, sizeof steps, "%ld", m ? wide_steps : small_steps);
            char *args[] = {"--worker", "cost", "--model", (char *)model_names[m], "--steps",
                            steps, "--data", data, NULL};
            TRY(launch(run, worlds[w], false, args, 300));
        }
    char steps[16];
    snprintf(steps, sizeof steps, "%ld", wide_steps);
    char *ov[] = {"--worker", "cost", "--model", "wide", "--steps", steps, "--data", data,
                  "--overlap", NULL};
    TRY(launch(run, 2, false, ov, 300));
    CostRow rows[16];
    int n = 0;
    TRY(read_cost(data, rows, 16, &n));
    if (n < 7) return err_set(ERR_IO, "%s holds %d of the 7 timings; the ranks' output: %s", data, n,
                              lesson_path(log_of(run)));
    printf("\n    %-5s %9s %5s  %-23s %-23s %-23s %9s %5s\n", "model", "grads", "ranks",
           "compute", "exchange after backward", "all-reduce alone", "step", "eff.");
    FILE *f = fileio_save_stream(dat, "plot data file"); /* saved when closed */
    if (!f) return err_code();
    fprintf(f, "# world small_efficiency wide_efficiency (1 = perfect weak scaling)\n");
    double eff[2][3] = {{0}};
    for (int m = 0; m < 2; m++) {
        const CostRow *one = find_row(rows, n, model_names[m], 1, 0);
        for (int w = 0; w < 3; w++) {
            const CostRow *r = find_row(rows, n, model_names[m], worlds[w], 0);
            if (!r || !one) continue;
            eff[m][w] = one->total[1] / r->total[1];
            char grads[32], c[64], x[64], a[64], t[32];
            if (r->bytes >= 1 << 20)
                snprintf(grads, sizeof grads, "%.2f MiB", (double)r->bytes / 1048576.0);
            else
                snprintf(grads, sizeof grads, "%lld B", r->bytes);
            printf("    %-5s %9s %4d%s  %-23s %-23s %-23s %9s %4.0f%%\n", r->model, grads, r->world,
                   r->over ? "*" : " ", spread(r->compute, c, sizeof c), spread(r->comm, x, sizeof x),
                   spread(r->alone, a, sizeof a), timer_format(r->total[1], t, sizeof t),
                   100 * eff[m][w]);
        }
    }
    for (int w = 0; w < 3; w++) fprintf(f, "%d %.4f %.4f\n", worlds[w], eff[0][w], eff[1][w]);
    if (fclose(f) != 0) return err_code();
    printf("    * more ranks than this machine's %d cores: they take turns (oversubscribed), so "
           "that row\n      measures sharing the cores as much as communication.\n",
           dist_cores());
    printf("    Each cell: the median [quartiles] of the slowest rank per step. The exchange "
           "after backward\n    includes waiting for the slowest rank; the all-reduce alone "
           "starts after a barrier.\n");
    printf("    efficiency = step time on 1 rank / step time on N ranks (each rank a batch of "
           "its own, so\n    N ranks do N times the work per step: 100%% is perfect).\n");
    const CostRow *small2 = find_row(rows, n, "small", 2, 0), *wide2 = find_row(rows, n, "wide", 2, 0);
    const CostRow *over2 = find_row(rows, n, "wide", 2, 1);
    const CostRow *wide1 = find_row(rows, n, "wide", 1, 0);
    char t1[32], t2[32], t3[32], t4[32];
    if (small2 && wide2 && wide1) {
        printf("\n    Why the small model does not scale: its all-reduce of %lld bytes takes %s "
               "alone, %.1fx its\n    compute of %s, a cost per call whatever the size (Lesson "
               "03's launch and sync costs,\n    now for communication). The wide model's %.2f MiB "
               "take %s against %s of compute:\n    the work per call is large enough to carry "
               "the fixed cost.\n",
               small2->bytes, timer_format(small2->alone[1], t1, sizeof t1),
               small2->alone[1] / small2->compute[1],
               timer_format(small2->compute[1], t2, sizeof t2), (double)wide2->bytes / 1048576.0,
               timer_format(wide2->alone[1], t3, sizeof t3),
               timer_format(wide2->compute[1], t4, sizeof t4));
        printf("    The wide model's compute per rank went from %s on 1 rank to %s on 2: the "
               "ranks share this\n    machine's cores and memory bandwidth (and whatever else "
               "runs on it); GPUs, one per rank, do not.\n",
               timer_format(wide1->compute[1], t1, sizeof t1),
               timer_format(wide2->compute[1], t2, sizeof t2));
    }
    if (wide2 && over2)
        printf("\n    Overlap (wide model, 2 ranks, 1 MiB buckets): each bucket's all-reduce starts "
               "as soon as backward\n    has finished its gradients (a backward hook), while "
               "backward goes on. Exchange left after\n    backward: %s without, %s with; the "
               "step %s without, %s with (%+.0f%%).\n    On CPU ranks MPI moves data only when a "
               "rank calls into it, and the ranks' cores are busy with\n    backward, so little "
               "can hide here; on GPUs NCCL runs on a stream of its own beside backward,\n    "
               "which is why PyTorch fills buckets in backward's order and starts the first one "
               "early.\n",
               timer_format(wide2->comm[1], t1, sizeof t1), timer_format(over2->comm[1], t2, sizeof t2),
               timer_format(wide2->total[1], t3, sizeof t3),
               timer_format(over2->total[1], t4, sizeof t4),
               100.0 * (over2->total[1] / wide2->total[1] - 1.0));
    draw_scaling(run, dat);
    return ERR_OK;
}

/* Section 7: on paper. */
static void section_beyond(const Run *run)
{
    (void)run;
    /* the wide model's gradients: 256x1024 + 1024 + 1024x1024 + 1024 + 1024x10 + 10 floats */
    double bytes = 4.0 * (256.0 * 1024 + 1024 + 1024.0 * 1024 + 1024 + 1024.0 * 10 + 10);
    printf("\n  7. Beyond one machine, on paper. The code does not change: a hostfile tells "
           "mpirun where\n     the ranks go, and NCCL finds the network itself:\n"
           "       $ cat hosts\n       node1 slots=8\n       node2 slots=8\n"
           "       $ mpirun --hostfile hosts -np 16 build/rel/solutions/lesson37 --part 6 "
           "--device cuda\n"
           "     (NCCL_SOCKET_IFNAME picks the network interface, NCCL_IB_HCA the InfiniBand "
           "card,\n     NCCL_DEBUG=INFO shows the path it chose.)\n");
    printf("     Modelled, not measured: a ring all-reduce sends each byte 2(p-1)/p times over "
           "each link of\n     the ring, so the ring's slowest link sets its time:\n"
           "       time = 2(p-1)/p x bytes / the slowest link's bandwidth  (latency left out)\n"
           "     For the wide model's %.2f MiB of gradients (nominal bandwidths, one direction; "
           "\"-\": the\n     link cannot join that many ranks, so a ring of them has a slower "
           "one; NVLink here is an HGX\n     or DGX H100 server's, which joins its 8 GPUs: "
           "NVIDIA's NVLink Switch System, with switches\n     outside the servers, joins up "
           "to 256, and is not modelled):\n", bytes / 1048576.0);
    /* A link joins at most `most` GPUs (0: any number): NVLink 4 through the NVSwitches of
     * one HGX H100 server joins 8; a PCIe bus, the GPUs of one machine (8 here). */
    static const struct {
        const char *link;
        double gbs;
        int most;
    } links[] = {{"NVLink 4 (HGX H100)", 450, 8}, {"PCIe 4.0 x16", 32, 8},
                 {"InfiniBand NDR 400G", 50, 0},   {"100 Gb Ethernet", 12.5, 0},
                 {"10 Gb Ethernet", 1.25, 0}};
    printf("       %-22s %10s %10s %10s\n", "slowest link", "p = 2", "p = 8", "p = 64");
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        printf("       %-22s", links[i].link);
        for (int p = 2; p <= 64; p *= (p == 2 ? 4 : 8)) {
            if (links[i].most && p > links[i].most)
                printf(" %10s", "-");
            else
                printf(" %7.3f ms", 1e3 * 2.0 * (p - 1) / p * bytes / (links[i].gbs * 1e9));
        }
        printf("\n");
    }
    /* 64 ranks of H100 SXM are 8 servers of 8: NVLink inside each, the network between. */
    double big = 350e6 * 4; /* a model of 350M float32 parameters */
    double ring = 2.0 * 63 / 64 * big / 50e9, server = 2.0 * 7 / 8 * big / 450e9;
    printf("     The time hardly grows with p (2(p-1)/p < 2): a ring scales, as long as the "
           "compute of a\n     step stays above it. Which link is the slowest depends on p. 64 "
           "H100 SXM GPUs are 8 HGX servers\n     of 8: NVLink joins the 8 of one server, and a ring "
           "through all 64 leaves each server over\n     the network, which is then its slowest "
           "link. So, modelled per link as NCCL builds its rings\n     (NVLink inside a server, "
           "a NIC between servers), for 350M parameters (%.1f GB of gradients):\n"
           "       8 ranks, one server, NVLink 4                 %8.1f ms\n"
           "       64 ranks, one ring over InfiniBand NDR        %8.1f ms  (NCCL runs a ring per "
           "NIC: with the\n"
           "                                                                8 NICs of a DGX H100, "
           "down to %.1f ms)\n"
           "       64 ranks over 10 Gb Ethernet                  %8.1f s\n"
           "     Between servers NCCL also uses trees, whose latency grows with log2(p) hops rather "
           "than p;\n     the model leaves latency out, which small messages and many ranks "
           "make dominant.\n",
           big / 1e9, 1e3 * server, 1e3 * ring, 1e3 * ring / 8, 2.0 * 63 / 64 * big / 1.25e9);
}

int lesson06_run(const LessonContext *ctx, int argc, char **argv)
{
    Options o = {.ranks = 2, .device = "cpu", .epochs = 6, .batch = 8};
    int status;
    if (!parse_options(argc, argv, &o, &status)) return status;
    if (o.worker) {
        if (!strcmp(o.worker, "cost") && (!o.model || !o.data || !o.steps)) {
            lesson_error(PART, "--worker cost needs --model, --data and --steps");
            return LESSON_BAD_INPUT;
        }
        return run_worker(ctx, &o);
    }
    if (120 % o.ranks != 0) {
        lesson_error(PART, "--ranks: the 120 training rows must split evenly (1, 2, 3, 4, 5, 6, 8, "
                           "10, 12 or 15 ranks); otherwise the sampler pads the shards with "
                           "repeated rows, and the run is no longer the same training as one rank");
        return LESSON_BAD_INPUT;
    }
    if (120 / o.ranks < o.batch) {
        lesson_error(PART, "--batch: each rank's shard of the 120 training rows must hold one "
                           "batch; lower --batch or --ranks");
        return LESSON_BAD_INPUT;
    }
    lesson_heading(PART, "Beyond one GPU: data-parallel training", README);
    if (!dist_mpi_built() || !dist_launcher()) {
        printf("  Part 6 needs Open MPI (mpirun and its library), which this machine lacks: "
               "make deps installs it\n  (Debian: openmpi-bin libopenmpi-dev). The other parts "
               "run without it.\n");
        return LESSON_OK;
    }
    Run run = {ctx, &o, ""};
    ssize_t len = readlink("/proc/self/exe", run.self, sizeof run.self - 1);
    if (len <= 0) {
        lesson_error(PART, "cannot find this program's own path (/proc/self/exe) to launch it");
        return LESSON_FAILED;
    }
    run.self[len] = '\0';
    int rc = section_training(&run);
    if (rc == ERR_OK && !o.no_cost && !strcmp(o.device, "cpu")) rc = section_cost(&run);
    else if (rc == ERR_OK && !o.no_cost)
        printf("\n  6. Cost: timed on CPU ranks, which can be 1, 2 and 4 on any machine (run "
               "without --device\n     cuda for the table); NCCL needs a GPU per rank.\n");
    if (rc == ERR_OK && !ctx->quiet) section_beyond(&run);
    if (rc != ERR_OK && g_ranks_todo && g_ranks_shown) return LESSON_TODO; /* they said it */
    if (rc != ERR_OK) {
        lesson_error(PART, err_message());
        return g_ranks_todo ? LESSON_TODO : LESSON_FAILED;
    }
    return LESSON_OK;
}
