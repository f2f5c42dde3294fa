/*
 * Part 3: why the GPU looks slower, measured piece by piece, and how to make it win.
 *
 * Five demos, each runnable alone (make demo-sync, demo-launch, demo-copy,
 * demo-batch, demo-fused; make demos for all) and all together as part 3 of
 * lesson37:
 *   sync    Iris trained with the loss read back every N epochs (loss.item())
 *   launch  what an empty kernel launch and a 4-byte copy cost
 *   copy    host-to-device bandwidth from pageable and pinned memory, and a
 *           copy overlapped with compute on two streams
 *   batch   2000 inputs through an encoder one at a time, in chunks, at once
 *   fused   Iris per operation, as a CUDA Graph and as one fused kernel,
 *           against our CPU
 * Each prints its table, writes out/03_<demo>.csv and draws out/03_<demo>.png.
 * Without a GPU each runs its CPU half and says in one line what it skipped.
 * Every time is measured here, with the student's time_on_device (exercise
 * 03.3); the counts beside them come from lib's counters.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/lesson.h"
#include "lib/device/backend.h"
#include "lib/core/counters.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/train/iris.h"
#include "lib/nn/layers.h"
#include "lib/io/plot.h"
#include "lib/core/rng.h"
#include "lib/core/timer.h"
#include "lib/train/train.h"

#define PART 3
#define README "lessons/03_why_gpu_slower/README.md"
#define DIR WB_ROOT "/lessons/03_why_gpu_slower/"
#define LR 0.01f
#define SEED 42

static const char *const g_demos[] = {"sync", "launch", "copy", "batch", "fused"};
#define N_DEMOS 5

typedef struct Options {
    const char *demo; /* one of g_demos, or "all" */
    const char *device;
    bool quick;
    long epochs; /* 0: the default for the mode */
} Options;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: lesson37 --part 3 [--demo NAME] [--quick] [--device D] [--epochs N]\n"
            "  --demo NAME  sync, launch, copy, batch, fused, or all (default all)\n"
            "  --quick      the short class version: fewer epochs, smaller sizes\n"
            "  --device D   the GPU to use: cuda, cuda:N (default cuda)\n"
            "  --epochs N   Iris epochs in sync and fused (default 20000, --quick 2000)\n"
            "  and lesson37's own: --quiet, --out DIR, --no-plot\n");
}

static int parse_options(int argc, char **argv, Options *o)
{
    static const struct option longopts[] = {
        {"demo", required_argument, NULL, 'D'}, {"quick", no_argument, NULL, 'q'},
        {"device", required_argument, NULL, 'd'}, {"epochs", required_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        bool ok = true;
        switch (c) {
        case 'D':
            o->demo = optarg;
            ok = strcmp(optarg, "all") == 0;
            for (int i = 0; i < N_DEMOS; i++) ok |= strcmp(optarg, g_demos[i]) == 0;
            break;
        case 'q': o->quick = true; break;
        case 'd': o->device = optarg; break;
        case 'e': ok = lesson_parse_long(optarg, 1, 100000000, &o->epochs); break;
        case 'h': usage(stdout); return -1;
        default: return lesson_option_error(PART, c, argv, NULL, usage);
        }
        if (!ok) return lesson_option_error(PART, 0, argv, lesson_option_name(longopts, c), usage);
    }
    return lesson_no_arguments(PART, argc, argv, usage);
}

/* ---- the GPU, if there is one, and how big each demo is -------------------- */

typedef struct Gpu {
    bool ok;          /* a CUDA device to run the GPU halves on */
    bool simulated;   /* ... which is the CUDA simulator */
    Device dev;
    char label[24];   /* "cuda:0", or "cuda:0 (sim)" */
    char why[600];    /* why the GPU halves are skipped */
} Gpu;

static void find_gpu(const char *want, Gpu *g)
{
    memset(g, 0, sizeof *g);
    int n = 0;
    DeviceInfo info;
    if (device_count(&n) != ERR_OK) {
        snprintf(g->why, sizeof g->why, "%s", err_message());
    } else if (device_from_string(want, &g->dev) != ERR_OK) {
        snprintf(g->why, sizeof g->why, "--device %s: %s", want, err_message());
    } else if (device_is_host(g->dev)) {
        snprintf(g->why, sizeof g->why, "--device %s is not a CUDA device", want);
    } else if (device_info(g->dev, &info) != ERR_OK) {
        snprintf(g->why, sizeof g->why, "%s", err_message());
    } else {
        char name[16];
        g->ok = true;
        g->simulated = info.simulated;
        snprintf(g->label, sizeof g->label, "%s%s", device_str(g->dev, name, sizeof name),
                 g->simulated ? " (sim)" : "");
        printf("GPU: %s, %s\n", g->label, info.name);
    }
    if (!g->ok) printf("GPU: none (%s)\n", g->why);
    if (g->simulated)
        printf("  The CUDA simulator runs the GPU code on the CPU: its times say nothing about a "
               "GPU,\n  but its counts (launches, syncs, copies) are exactly what a GPU would "
               "get. Sizes shrink to fit.\n");
}

static void skipped(const Gpu *g) { printf("  GPU half: skipped (%s)\n", g->why); }

typedef struct Sizes {
    long epochs;                                /* Iris epochs: sync and fused */
    long launch_wait, launch_queue, tiny_copy;  /* launch: repeats */
    long cpu_calls;                             /* launch: CPU calls */
    size_t copy_max, copy_budget;               /* copy: the largest copy; bytes per size */
    size_t chunk_bytes;                         /* copy: overlap chunk */
    int chunks;                                 /* copy: overlap chunks */
    int64_t gemm_width;                         /* copy: overlap compute */
    int64_t batch_n, width;                     /* batch: inputs, encoder width */
} Sizes;

static Sizes sizes_for(const Options *o, const Gpu *g)
{
    Sizes full = {20000, 2000, 20000, 2000, 20000000, 256u << 20, 1024u << 20, 32u << 20, 8,
                  1024, 2000, 512};
    Sizes quick = {2000, 500, 5000, 500, 5000000, 16u << 20, 128u << 20, 8u << 20, 8,
                   1024, 500, 512};
    Sizes sim = {200, 20, 100, 20, 1000000, 1u << 20, 4u << 20, 256u << 10, 4,
                 64, 100, 64};
    Sizes s = g->simulated ? sim : o->quick ? quick : full;
    if (o->epochs) s.epochs = o->epochs;
    return s;
}

/* ---- output: CSV files and charts ------------------------------------------------ */

static FILE *csv_open(const LessonContext *ctx, const char *name, char *path, size_t size,
                      const char *header)
{
    snprintf(path, size, "%s/03_%s.csv", ctx->out_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
        return NULL;
    }
    fprintf(f, "%s\n", header);
    return f;
}

static int csv_close(FILE *f, const char *path)
{
    if (fclose(f) != 0) return err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
    printf("  Data: %s\n", path);
    return ERR_OK;
}

static void draw(const LessonContext *ctx, const char *script, const char *name,
                 const char *data, const char *title)
{
    char png[1024], gp[512];
    snprintf(png, sizeof png, "%s/03_%s.png", ctx->out_dir, name);
    snprintf(gp, sizeof gp, DIR "%s", script);
    if (!ctx->plots) return;
    if (plot_draw(gp, data, png, title) != ERR_OK) {
        printf("  Plot: skipped (%s)\n", err_message());
        return;
    }
    printf("  Plot: %s\n", png);
    if (ctx->tty && !ctx->quiet) plot_draw(gp, data, NULL, title);
}

static const char *fmt_time(double s, char *buf, size_t n) { return timer_format(s, buf, n); }

/* "+1.20 ms" or "-80.0 us": a difference of two times, which noise can make negative. */
static const char *signed_time(double s, char *buf, size_t n)
{
    char t[32];
    snprintf(buf, n, "%c%s", s < 0 ? '-' : '+', timer_format(fabs(s), t, sizeof t));
    return buf;
}

/* "773 M", "12.3 k": a rate per second. */
static const char *fmt_rate(double r, char *buf, size_t n)
{
    static const char *units[] = {"", " k", " M", " G"};
    int u = 0;
    while (u < 3 && r >= 1000.0) r /= 1000.0, u++;
    snprintf(buf, n, "%.*f%s", r >= 100.0 ? 0 : r >= 10.0 ? 1 : 2, r, units[u]);
    return buf;
}

/* ---- one Iris training run: Lesson 01's network, data, loss and SGD on a device --- */

typedef struct Run {
    Device dev;
    Module *model;
    Loss *loss;
    Optimizer *opt;
    Tensor *x, *y;
} Run;

static void run_close(Run *r)
{
    optim_free(r->opt);
    loss_free(r->loss);
    module_free(r->model);
    tensor_free(r->x);
    tensor_free(r->y);
    memset(r, 0, sizeof *r);
}

static int run_open(Run *r, const IrisData *iris, Device dev)
{
    memset(r, 0, sizeof *r);
    r->dev = dev;
    r->model = iris_mlp_new(SEED); /* every run starts from the same weights */
    int rc = r->model ? module_to(r->model, dev) : (int)err_code();
    if (!rc) rc = tensor_to(iris->x_train, dev, &r->x);
    if (!rc) rc = tensor_to(iris->train.y, dev, &r->y);
    if (!rc && !(r->loss = loss_cross_entropy_new())) rc = err_code();
    if (!rc && !(r->opt = optim_sgd_new(r->model, LR))) rc = err_code();
    if (rc) run_close(r);
    return rc;
}

/* The training loss after training (a sync on a GPU, outside any timing). */
static int run_final_loss(Run *r, float *value)
{
    return train_evaluate(r->model, r->loss, r->x, r->y, value, NULL);
}

/* ==== demo sync: the loss read back every N epochs ==================================== */

typedef struct SyncWork {
    Run *run;
    long epochs, every;
    float *logged;
    long n_logged;
    Counters used;
} SyncWork;

static int sync_work(void *p)
{
    SyncWork *w = p;
    counters_reset();
    int rc = train_logged(w->run->model, w->run->loss, w->run->opt, w->run->x, w->run->y,
                          w->epochs, w->every, w->logged, &w->n_logged);
    w->used = counters_get();
    return rc;
}

/* One device's rows of the table; returns the time of the run that reads every epoch over
 * the time of the run that never reads in *every_epoch_ratio. */
static int sync_rows(FILE *csv, const IrisData *iris, Device dev, const char *label,
                     long epochs, int repeats, double *every_epoch_ratio)
{
    static const long every[] = {0, 1, 10, 100, 200, 1000, 2000};
    float *all = calloc((size_t)epochs, sizeof *all), *some = calloc((size_t)epochs, sizeof *some);
    if (!all || !some) {
        free(all), free(some);
        return err_set(ERR_NOMEM, "out of memory for %ld losses", epochs);
    }
    double never = 0;
    /* A short run first, untimed: the first run also pays for warming caches,
     * clocks and (on a GPU) loading the kernels. */
    Run r0;
    int rc = run_open(&r0, iris, dev);
    if (!rc) {
        long n = 0;
        rc = train_logged(r0.model, r0.loss, r0.opt, r0.x, r0.y, epochs < 100 ? epochs : 100, 0,
                          NULL, &n);
        if (!rc) rc = device_synchronize(dev);
        run_close(&r0);
    }
    for (size_t i = 0; i < sizeof every / sizeof *every && !rc; i++) {
        if (every[i] > epochs) break;
        /* The best of a few runs from the same start: a run is short, and the
         * first one also pays for warming caches and clocks up. */
        SyncWork w = {NULL, epochs, every[i], every[i] == 1 ? all : some, 0, {0}};
        double secs = INFINITY;
        float final = NAN;
        for (int k = 0; k < repeats && !rc; k++) {
            Run r;
            double t = 0;
            if ((rc = run_open(&r, iris, dev))) break;
            w.run = &r;
            rc = time_on_device(dev, sync_work, &w, 1, &t);
            if (!rc) rc = run_final_loss(&r, &final);
            run_close(&r);
            secs = fmin(secs, t);
        }
        if (rc) break;
        /* The losses read must be the ones every-epoch reading saw (same work, same order). */
        double worst = 0;
        for (long k = 0; every[i] > 1 && k < w.n_logged; k++)
            worst = fmax(worst, fabs((double)some[k] - all[(k + 1) * every[i] - 1]));
        if (every[i] == 0) never = secs;
        if (every[i] == 1) *every_epoch_ratio = secs / never;
        char t[32], x[32], e[16];
        snprintf(e, sizeof e, "%ld", every[i]);
        printf("  %-14s %7s %8llu %10s %12s %9.2fx %11.4f%s\n", label,
               every[i] ? e : "never", (unsigned long long)w.used.syncs,
               fmt_time(secs, t, sizeof t), every[i] ? signed_time(secs - never, x, sizeof x) : "-",
               secs / never, (double)final,
               worst > 1e-6 ? "  (logged losses differ from every-epoch reading!)" : "");
        fprintf(csv, "%s,%ld,%llu,%.9g,%.9g,%.9g,%.7g\n", label, every[i],
                (unsigned long long)w.used.syncs, secs, secs - never, secs / never,
                (double)final);
    }
    free(all);
    free(some);
    return rc;
}

static int demo_sync(const LessonContext *ctx, const Sizes *s, const Gpu *g,
                     const IrisData *iris)
{
    printf("\n== demo-sync: the loss read back every N epochs (loss.item() in a log line) ==\n");
    printf("  Iris, %ld full-batch epochs of Lesson 01's network. Each read of the loss copies "
           "one float\n  to the CPU, and the CPU first waits for all the GPU work queued before "
           "it: a sync.\n",
           s->epochs);
    printf("  The source lesson reported 16.85 s reading every epoch, 13.08 s every 2000 epochs "
           "and\n  5.21 s not reading at all; here it is measured on this machine (each row the "
           "best of 3 runs%s).\n\n",
           g->simulated ? ", 1 on the simulator" : "");
    char path[1024];
    FILE *csv = csv_open(ctx, "sync", path, sizeof path,
                         "device,every,syncs,seconds,extra_seconds,ratio,final_loss");
    if (!csv) return err_code();
    printf("  %-14s %7s %8s %10s %12s %10s %11s\n", "device", "every N", "syncs", "time",
           "extra time", "vs never", "final loss");
    double cpu_ratio = NAN, gpu_ratio = NAN;
    int rc = sync_rows(csv, iris, device_cpu(), "cpu", s->epochs, 3, &cpu_ratio);
    if (!rc && g->ok)
        rc = sync_rows(csv, iris, g->dev, g->label, s->epochs, g->simulated ? 1 : 3, &gpu_ratio);
    int rc2 = csv_close(csv, path);
    if (rc) return rc;
    if (rc2) return rc2;
    if (!g->ok) skipped(g);
    printf("  Reading every epoch costs %.2fx the silent run on the CPU (there is nothing to wait "
           "for)",
           cpu_ratio);
    if (g->ok && g->simulated)
        printf("\n  and %.2fx on %s: the simulator finishes each launch before it returns, so "
               "a read\n  has nothing to wait for there; the syncs column is what a GPU would "
               "do.\n",
               gpu_ratio, g->label);
    else if (g->ok)
        printf("\n  and %.2fx on %s: each read stops the CPU until the GPU has caught up, so the "
               "CPU can\n  no longer queue the next epoch's launches while the GPU works.\n",
               gpu_ratio, g->label);
    else
        printf(".\n");
    draw(ctx, "sync.gp", "sync", path, "Iris: time with the loss read back every N epochs");
    return ERR_OK;
}

/* ==== demo launch: an empty launch, a sync, a 4-byte copy ============================== */

typedef struct LaunchWork {
    Device dev;
    void *dev4;
    float host4;
    volatile int sink;
} LaunchWork;

static int empty_call(void *p)
{
    ((LaunchWork *)p)->sink++; /* one store, so the call cannot be removed */
    return ERR_OK;
}

static int small_memcpy(void *p)
{
    LaunchWork *w = p;
    float v = (float)w->sink;
    memcpy((void *)&w->host4, &v, sizeof v);
    w->sink++;
    return ERR_OK;
}

static int launch_queued(void *p) { return backend_of(((LaunchWork *)p)->dev)->empty_kernel(((LaunchWork *)p)->dev); }

static int launch_and_wait(void *p)
{
    LaunchWork *w = p;
    TRY(backend_of(w->dev)->empty_kernel(w->dev));
    return device_synchronize(w->dev);
}

static int read4(void *p)
{
    LaunchWork *w = p;
    return device_copy(&w->host4, device_cpu(), w->dev4, w->dev, sizeof w->host4);
}

static int write4(void *p)
{
    LaunchWork *w = p;
    return device_copy(w->dev4, w->dev, &w->host4, device_cpu(), sizeof w->host4);
}

typedef struct LaunchRow {
    const char *what;
    bool gpu;
    int (*fn)(void *);
    long repeats;
} LaunchRow;

static int launch_row(FILE *csv, const LaunchRow *row, LaunchWork *w, const char *label,
                      double *per)
{
    TRY(row->fn(w)); /* warm up: the first launch also loads the kernel */
    TRY(device_synchronize(w->dev));
    counters_reset();
    double secs = 0;
    TRY(time_on_device(w->dev, row->fn, w, row->repeats, &secs));
    Counters c = counters_get();
    /* time_on_device's own two syncs are not the operation's */
    double syncs = ((double)c.syncs - (row->gpu ? 2.0 : 0.0)) / (double)row->repeats;
    char t[32], r[32];
    printf("  %-40s %-13s %9ld %10s %10s %8.2f %6.2f\n", row->what, label, row->repeats,
           fmt_time(secs, t, sizeof t), fmt_rate(1.0 / secs, r, sizeof r),
           (double)c.launches / (double)row->repeats, syncs);
    fprintf(csv, "\"%s\",%s,%.9g,%ld,%.9g,%.9g\n", row->what, label, secs, row->repeats,
            (double)c.launches / (double)row->repeats, syncs);
    *per = secs;
    return ERR_OK;
}

/* Launches one Iris training epoch makes on @p dev (counted, not timed). */
static int iris_epoch_launches(const IrisData *iris, Device dev, double *launches)
{
    Run r;
    TRY(run_open(&r, iris, dev));
    int rc = train_step(r.model, r.loss, r.opt, r.x, r.y, NULL); /* first: allocations */
    counters_reset();
    if (!rc) rc = train_step(r.model, r.loss, r.opt, r.x, r.y, NULL);
    *launches = (double)counters_get().launches;
    run_close(&r);
    return rc;
}

static int demo_launch(const LessonContext *ctx, const Sizes *s, const Gpu *g,
                       const IrisData *iris)
{
    printf("\n== demo-launch: what one launch, one sync and one tiny copy cost ==\n");
    printf("  A kernel launch is a request the CPU sends to the GPU; a sync is the CPU waiting "
           "for\n  the answer. Here there is no work at all, so all that is left is the cost "
           "itself.\n\n");
    char path[1024];
    FILE *csv = csv_open(ctx, "launch", path, sizeof path,
                         "what,device,seconds,repeats,launches_per_op,syncs_per_op");
    if (!csv) return err_code();
    printf("  %-40s %-13s %9s %10s %10s %8s %6s\n", "operation", "device", "repeats", "each",
           "per second", "launches", "syncs");
    LaunchWork w = {device_cpu(), NULL, 0.0f, 0};
    LaunchRow cpu_rows[] = {
        {"empty C function call (the CPU's launch)", false, empty_call, s->cpu_calls},
        {"4-byte memcpy (the CPU's loss.item())", false, small_memcpy, s->cpu_calls},
    };
    LaunchRow gpu_rows[] = {
        {"empty kernel, queued (throughput)", true, launch_queued, s->launch_queue},
        {"empty kernel, then wait (round trip)", true, launch_and_wait, s->launch_wait},
        {"read 4 bytes back (loss.item())", true, read4, s->tiny_copy},
        {"write 4 bytes to the GPU", true, write4, s->tiny_copy},
    };
    double cpu_call = 0, per[4] = {0}, unused;
    int rc = launch_row(csv, &cpu_rows[0], &w, "cpu", &cpu_call);
    if (!rc) rc = launch_row(csv, &cpu_rows[1], &w, "cpu", &unused);
    if (!rc && g->ok) {
        w.dev = g->dev;
        rc = device_alloc(g->dev, sizeof(float), &w.dev4);
        for (int i = 0; i < 4 && !rc; i++) rc = launch_row(csv, &gpu_rows[i], &w, g->label, &per[i]);
        device_free(g->dev, w.dev4, sizeof(float));
    }
    int rc2 = csv_close(csv, path);
    if (rc) return rc;
    if (rc2) return rc2;
    if (!g->ok) {
        skipped(g);
    } else {
        double per_epoch = 0;
        TRY(iris_epoch_launches(iris, g->dev, &per_epoch));
        char a[32], b[32], c[32], d[32];
        printf("  A queued launch costs %s of CPU time, %.0fx an empty C call; waiting for one "
               "costs %s.\n",
               fmt_time(per[0], a, sizeof a), per[0] / cpu_call, fmt_time(per[1], b, sizeof b));
        printf("  One Iris epoch is %.0f launches, so %ld epochs spend about %s just launching,\n"
               "  and %s more if the loss is read back every epoch.\n",
               per_epoch, s->epochs, fmt_time(per_epoch * per[0] * (double)s->epochs, c, sizeof c),
               fmt_time(per[2] * (double)s->epochs, d, sizeof d));
    }
    draw(ctx, "bars.gp", "launch", path, "The cost of one operation (seconds, log scale)");
    return ERR_OK;
}

/* ==== demo copy: bandwidth, pageable and pinned; overlap ================================ */

typedef struct CopyWork {
    Device dev;
    void *dst;
    const void *src;
    size_t bytes;
    bool to_gpu;
} CopyWork;

static int copy_once(void *p)
{
    CopyWork *w = p;
    if (!w->to_gpu) {
        memcpy(w->dst, w->src, w->bytes);
        return ERR_OK;
    }
    return device_copy(w->dst, w->dev, w->src, device_cpu(), w->bytes);
}

static long copy_repeats(size_t bytes, size_t budget)
{
    size_t r = budget / (bytes ? bytes : 1);
    return r < 3 ? 3 : r > 1000 ? 1000 : (long)r;
}

static int time_copy(Device dev, void *dst, const void *src, size_t bytes, bool to_gpu,
                     long repeats, double *gbps, double *secs)
{
    CopyWork w = {dev, dst, src, bytes, to_gpu};
    TRY(copy_once(&w)); /* warm up */
    TRY(time_on_device(dev, copy_once, &w, repeats, secs));
    *gbps = (double)bytes / *secs * 1e-9;
    return ERR_OK;
}

static void size_str(size_t b, char *buf, size_t n)
{
    if (b >= (1u << 20))
        snprintf(buf, n, "%zu MiB", b >> 20);
    else if (b >= 1024)
        snprintf(buf, n, "%zu KiB", b >> 10);
    else
        snprintf(buf, n, "%zu B", b);
}

/* Overlap: copy chunk i + 1 while chunk i is computed. */
typedef struct Overlap {
    Device dev;
    const float *pinned;  /* chunks * chunk floats, pinned */
    float **dchunk;       /* a device buffer per chunk */
    float *weight, *out;  /* (width, width) and (rows, width) on the device */
    int chunks;
    int64_t rows, width;
    int mode;             /* 0 copies only, 1 compute only, 2 serial, 3 overlapped */
} Overlap;

static int overlap_compute(Overlap *o, int i)
{
    /* out (rows, width) = chunk (rows, width) x weight (width, width) */
    return backend_of(o->dev)->gemm(o->dev, false, false, o->rows, o->width, o->width, 1.0f, o->dchunk[i],
                        o->rows, o->weight, o->width, 0.0f, o->out, o->rows);
}

static int overlap_work(void *p)
{
    Overlap *o = p;
    size_t bytes = (size_t)(o->rows * o->width) * sizeof(float);
    const float *src = o->pinned;
    if (o->mode == 3) { /* copy i + 1 on the copy stream while i is computed */
        TRY(backend_of(o->dev)->copy_async(o->dev, o->dchunk[0], src, bytes));
        for (int i = 0; i < o->chunks; i++) {
            TRY(backend_of(o->dev)->copy_wait(o->dev)); /* compute i waits for copy i, on the GPU */
            if (i + 1 < o->chunks)
                TRY(backend_of(o->dev)->copy_async(o->dev, o->dchunk[i + 1],
                                       src + (size_t)(i + 1) * (size_t)(o->rows * o->width),
                                       bytes));
            TRY(overlap_compute(o, i));
        }
        return ERR_OK;
    }
    for (int i = 0; i < o->chunks; i++) {
        if (o->mode != 1)
            TRY(device_copy(o->dchunk[i], o->dev, src + (size_t)i * (size_t)(o->rows * o->width),
                             device_cpu(), bytes));
        if (o->mode != 0) TRY(overlap_compute(o, i));
    }
    return ERR_OK;
}

static int demo_overlap(const Sizes *s, const Gpu *g)
{
    Overlap o = {g->dev, NULL, NULL, NULL, NULL, s->chunks, 0, s->gemm_width, 0};
    o.rows = (int64_t)(s->chunk_bytes / sizeof(float)) / o.width;
    size_t chunk = (size_t)(o.rows * o.width) * sizeof(float);
    size_t wbytes = (size_t)(o.width * o.width) * sizeof(float);
    int rc = backend_of(o.dev)->host_alloc(o.dev, chunk * (size_t)o.chunks, (void **)&o.pinned);
    o.dchunk = calloc((size_t)o.chunks, sizeof *o.dchunk);
    if (!rc && !o.dchunk) rc = err_set(ERR_NOMEM, "out of memory");
    for (int i = 0; !rc && i < o.chunks; i++) rc = device_alloc(g->dev, chunk, (void **)&o.dchunk[i]);
    if (!rc) rc = device_alloc(g->dev, wbytes, (void **)&o.weight);
    if (!rc) rc = device_alloc(g->dev, chunk, (void **)&o.out);
    if (!rc) {
        float *h = (float *)o.pinned;
        for (size_t i = 0; i < chunk / sizeof(float) * (size_t)o.chunks; i++) h[i] = (float)(i % 7);
        rc = backend_of(g->dev)->zero(g->dev, o.weight, wbytes);
    }
    static const char *const what[] = {"copies only", "compute only", "copy, then compute",
                                       "copy i+1 while computing i"};
    double t[4] = {0};
    for (int m = 0; m < 4 && !rc; m++) {
        o.mode = m;
        rc = overlap_work(&o); /* warm up */
        if (!rc) rc = time_on_device(g->dev, overlap_work, &o, 1, &t[m]);
    }
    if (!rc) {
        char a[32], b[24];
        size_str(chunk, b, sizeof b);
        printf("\n  Overlap: %d chunks of %s from pinned memory, each multiplied by a %lld x "
               "%lld matrix\n",
               o.chunks, b, (long long)o.width, (long long)o.width);
        for (int m = 0; m < 4; m++) printf("    %-30s %10s\n", what[m], fmt_time(t[m], a, sizeof a));
        if (g->simulated)
            printf("    (the simulator runs every stream in order, so nothing overlaps here)\n");
        else
            printf("    the best overlap can do is the longer of the two (%s); it saved %.0f%% "
                   "of what it could\n",
                   fmt_time(fmax(t[0], t[1]), a, sizeof a),
                   100.0 * (t[2] - t[3]) / fmax(1e-12, t[2] - fmax(t[0], t[1])));
    }
    backend_of(o.dev)->host_free(o.dev, (void *)o.pinned);
    for (int i = 0; o.dchunk && i < o.chunks; i++) device_free(g->dev, o.dchunk[i], chunk);
    free(o.dchunk);
    device_free(g->dev, o.weight, wbytes);
    device_free(g->dev, o.out, chunk);
    return rc;
}

static int demo_copy(const LessonContext *ctx, const Sizes *s, const Gpu *g)
{
    printf("\n== demo-copy: moving data to the GPU, from pageable and from pinned memory ==\n");
    printf("  Ordinary (pageable) memory can be moved by the OS, so the driver first copies it "
           "into a\n  pinned buffer; pinned (page-locked) memory goes to the GPU directly. Small "
           "copies\n  cost their latency, big ones the bandwidth of the link.\n\n");
    size_t max = s->copy_max;
    char *src = malloc(max), *dst = malloc(max);
    void *pinned = NULL, *dev = NULL;
    int rc = src && dst ? ERR_OK : err_set(ERR_NOMEM, "out of memory for %zu bytes", max);
    if (!rc) memset(src, 1, max), memset(dst, 0, max); /* touch every page first */
    bool gpu = g->ok;
    if (!rc && gpu) rc = backend_of(g->dev)->host_alloc(g->dev, max, &pinned);
    if (!rc && gpu) rc = device_alloc(g->dev, max, &dev);
    if (!rc && gpu) memset(pinned, 1, max);
    char path[1024];
    FILE *csv = rc ? NULL : csv_open(ctx, "copy", path, sizeof path,
                                     "bytes,cpu_memcpy_gbps,pageable_gbps,pinned_gbps,"
                                     "pageable_seconds,pinned_seconds");
    if (!rc && !csv) rc = err_code();
    if (!rc)
        printf("  %-9s %8s %13s %23s %23s\n", "size", "repeats", "CPU memcpy", "to GPU, pageable",
               "to GPU, pinned");
    for (size_t b = 4; b <= max && !rc; b *= 16) {
        long reps = copy_repeats(b, s->copy_budget);
        double mem = 0, page = NAN, pin = NAN, tm, tp = NAN, tq = NAN;
        rc = time_copy(device_cpu(), dst, src, b, false, reps, &mem, &tm);
        if (!rc && gpu) rc = time_copy(g->dev, dev, src, b, true, reps, &page, &tp);
        if (!rc && gpu) rc = time_copy(g->dev, dev, pinned, b, true, reps, &pin, &tq);
        if (rc) break;
        char sz[24], a[32], c[32];
        size_str(b, sz, sizeof sz);
        printf("  %-9s %8ld %8.2f GB/s", sz, reps, mem);
        if (gpu)
            printf(" %8.2f GB/s %10s %8.2f GB/s %10s", page, fmt_time(tp, a, sizeof a), pin,
                   fmt_time(tq, c, sizeof c));
        printf("\n");
        fprintf(csv, "%zu,%.6g,%.6g,%.6g,%.6g,%.6g\n", b, mem, page, pin, tp, tq);
    }
    if (csv) {
        int rc2 = csv_close(csv, path);
        if (!rc) rc = rc2;
    }
    free(src);
    free(dst);
    if (gpu) backend_of(g->dev)->host_free(g->dev, pinned);
    if (dev) device_free(g->dev, dev, max);
    if (rc) return rc;
    if (!gpu) {
        skipped(g);
    } else {
        TRY(demo_overlap(s, g));
    }
    draw(ctx, "copy.gp", "copy", path, "Copy bandwidth against size");
    return ERR_OK;
}

/* ==== demo batch: one at a time, in chunks, at once ===================================== */

typedef struct BatchWork {
    Module *model;
    const Tensor *x;
    Tensor *out;
    int64_t chunk;
    Counters used;
} BatchWork;

static int batch_work(void *p)
{
    BatchWork *w = p;
    counters_reset();
    int rc = predict_chunked(w->model, w->x, w->chunk, w->out);
    w->used = counters_get();
    return rc;
}

static double max_abs_diff(const Tensor *a, const Tensor *b)
{
    double worst = 0;
    for (int64_t i = 0; i < a->numel; i++)
        worst = fmax(worst, fabs((double)tensor_f32(a)[i] - (double)tensor_f32(b)[i]));
    return worst;
}

static int batch_rows(FILE *csv, const Sizes *s, Device dev, const char *label,
                      const Tensor *xcpu, double *one_by_one_ratio)
{
    Rng rng;
    rng_seed(&rng, SEED, 1);
    int64_t w = s->width, n = s->batch_n;
    Module *layers[] = {linear_new("fc1", w, w, &rng), relu_new("relu"),
                        linear_new("fc2", w, w, &rng)};
    Module *model = sequential_new("encoder", 3, layers);
    Tensor *x = NULL, *out = NULL, *ref = NULL, *got = NULL;
    int64_t shape[2] = {n, w};
    int rc = model ? module_to(model, dev) : (int)err_code();
    if (!rc) rc = tensor_to(xcpu, dev, &x);
    if (!rc && !(out = tensor_new(DTYPE_F32, dev, 2, shape))) rc = err_code();
    if (!rc) module_train(model, false);
    BatchWork bw = {model, x, out, n, {0}};
    if (!rc) rc = batch_work(&bw); /* warm up, and the one-batch answer */
    if (!rc) rc = tensor_to(out, device_cpu(), &ref);
    const int64_t chunks[] = {1, 8, 64, 256, n};
    double one_batch = 0, first = 0;
    for (int i = 4; i >= 0 && !rc; i--) { /* one batch first: the others compare to it */
        if (i < 4 && chunks[i] >= n) continue;
        bw.chunk = chunks[i];
        double secs = 0;
        rc = time_on_device(dev, batch_work, &bw, 1, &secs);
        if (!rc) rc = tensor_to(out, device_cpu(), &got);
        if (rc) break;
        double diff = max_abs_diff(got, ref);
        tensor_free(got);
        got = NULL;
        if (i == 4) one_batch = secs;
        if (i == 0) first = secs;
        char t[32], per[32], c[24];
        snprintf(c, sizeof c, "%lld", (long long)chunks[i]);
        printf("  %-14s %10s %7lld %9llu %10s %11s %9.1fx %9.1e\n", label,
               i == 4 ? "all" : c, (long long)((n + chunks[i] - 1) / chunks[i]),
               (unsigned long long)bw.used.launches, fmt_time(secs, t, sizeof t),
               fmt_time(secs / (double)n, per, sizeof per), secs / one_batch, diff);
        fprintf(csv, "%s,%lld,%lld,%llu,%.9g,%.9g,%.3g\n", label, (long long)chunks[i],
                (long long)((n + chunks[i] - 1) / chunks[i]),
                (unsigned long long)bw.used.launches, secs, secs / one_batch, diff);
    }
    *one_by_one_ratio = first / one_batch;
    tensor_free(ref);
    tensor_free(x);
    tensor_free(out);
    module_free(model);
    return rc;
}

static int demo_batch(const LessonContext *ctx, const Sizes *s, const Gpu *g)
{
    printf("\n== demo-batch: %lld inputs of %lld numbers through a %lld-%lld-%lld encoder ==\n",
           (long long)s->batch_n, (long long)s->width, (long long)s->width, (long long)s->width,
           (long long)s->width);
    printf("  The same work, cut into chunks: one input at a time, in chunks of 8, 64 and 256, "
           "and\n  all at once (predict_chunked, exercise 03.2). The inputs are on the device "
           "already.\n  The source material reports about 40x between one at a time and one "
           "batch on a\n  mid-range GPU.\n\n");
    Rng rng;
    rng_seed(&rng, SEED, 2);
    Tensor *x = tensor_new_2d(s->batch_n, s->width);
    int rc = x ? tensor_uniform(x, &rng, -1.0f, 1.0f) : (int)err_code();
    char path[1024];
    FILE *csv = rc ? NULL : csv_open(ctx, "batch", path, sizeof path,
                                     "device,chunk,calls,launches,seconds,ratio,max_diff");
    if (!rc && !csv) rc = err_code();
    if (!rc)
        printf("  %-14s %10s %7s %9s %10s %11s %10s %9s\n", "device", "chunk", "calls",
               "launches", "time", "per input", "vs batch", "max diff");
    double cpu_ratio = NAN, gpu_ratio = NAN;
    if (!rc) rc = batch_rows(csv, s, device_cpu(), "cpu", x, &cpu_ratio);
    if (!rc && g->ok) rc = batch_rows(csv, s, g->dev, g->label, x, &gpu_ratio);
    if (csv) {
        int rc2 = csv_close(csv, path);
        if (!rc) rc = rc2;
    }
    tensor_free(x);
    if (rc) return rc;
    if (!g->ok) skipped(g);
    printf("  One at a time against one batch: %.1fx on the CPU", cpu_ratio);
    if (g->ok) printf(", %.1fx on %s", gpu_ratio, g->label);
    printf(".\n  (max diff: the largest difference from the one-batch outputs; the sums run in "
           "another\n  order when the shapes change, so a few units in the last place are "
           "normal.)\n");
    draw(ctx, "batch.gp", "batch", path, "Encoder inference: total time against chunk size");
    return ERR_OK;
}

/* ==== demo fused: make the GPU win on Iris ============================================= */

typedef struct FusedWork {
    Run *run;
    long epochs;
    int way; /* 0 per-op (train_logged every `every`), 1 graph, 2 fused */
    long every;
    size_t nodes;
    Counters used;
} FusedWork;

static int graph_train(FusedWork *w)
{
    Run *r = w->run;
    /* Epoch 1 runs normally: it makes every buffer, since nothing may be
     * allocated while recording. Then one epoch is recorded (not run) and
     * replayed for the other epochs. */
    TRY(train_step(r->model, r->loss, r->opt, r->x, r->y, NULL));
    if (w->epochs < 2) return ERR_OK;
    TRY(backend_of(r->dev)->capture_begin(r->dev));
    int rc = train_step(r->model, r->loss, r->opt, r->x, r->y, NULL);
    BackendGraph *graph = NULL;
    int rc2 = backend_of(r->dev)->capture_end(r->dev, &graph);
    if (rc) {
        backend_of(r->dev)->graph_free(graph);
        return err_context("recording one epoch");
    }
    TRY(rc2);
    w->nodes = backend_of(r->dev)->graph_nodes(graph);
    for (long e = 2; e <= w->epochs && !rc; e++) rc = backend_of(r->dev)->graph_launch(graph);
    backend_of(r->dev)->graph_free(graph);
    return rc;
}

static int fused_train(FusedWork *w)
{
    Run *r = w->run;
    ParamRef p[4];
    if (module_parameters(r->model, p, 4) != 4)
        return err_set(ERR_ARG, "the fused kernel trains Lesson 01's network (4 parameters)");
    return backend_of(r->dev)->mlp_train_fused(r->dev, tensor_f32(r->x), tensor_i32(r->y), r->x->shape[0],
                                   r->x->shape[1], p[0].param->value->shape[0],
                                   p[2].param->value->shape[0], tensor_f32(p[0].param->value),
                                   tensor_f32(p[1].param->value), tensor_f32(p[2].param->value),
                                   tensor_f32(p[3].param->value), w->epochs, LR, NULL);
}

static int fused_work(void *p)
{
    FusedWork *w = p;
    counters_reset();
    long n_logged = 0;
    int rc;
    float *logged = NULL;
    if (w->way == 0 && w->every > 0) {
        logged = malloc(sizeof *logged * (size_t)(w->epochs / w->every + 1));
        if (!logged) return err_set(ERR_NOMEM, "out of memory");
    }
    if (w->way == 0)
        rc = train_logged(w->run->model, w->run->loss, w->run->opt, w->run->x, w->run->y,
                          w->epochs, w->every, logged, &n_logged);
    else if (w->way == 1)
        rc = graph_train(w);
    else
        rc = fused_train(w);
    free(logged);
    w->used = counters_get();
    return rc;
}

static int demo_fused(const LessonContext *ctx, const Sizes *s, const Gpu *g,
                      const IrisData *iris)
{
    printf("\n== demo-fused: making the GPU win on Iris ==\n");
    printf("  The same %ld epochs, from the same weights, five ways. The GPU loses while every "
           "epoch\n  is over a dozen tiny launches and a sync; it wins once they are gone: a CUDA "
           "Graph records\n  one epoch and replays it with one launch, and a fused kernel runs "
           "all the epochs in one.\n\n",
           s->epochs);
    struct Way {
        const char *what;
        bool gpu;
        int way;
        long every;
    } ways[] = {
        {"CPU, ours (Lesson 01)", false, 0, 0},
        {"GPU, per operation, loss read every epoch", true, 0, 1},
        {"GPU, per operation, never read", true, 0, 0},
        {"GPU, one epoch as a CUDA Graph, replayed", true, 1, 0},
        {"GPU, fused: all epochs in one kernel", true, 2, 0},
    };
    char path[1024];
    FILE *csv = csv_open(ctx, "fused", path, sizeof path,
                         "what,device,seconds,launches,syncs,final_loss");
    if (!csv) return err_code();
    printf("  %-42s %-13s %9s %7s %10s %10s %8s %10s %9s\n", "way", "device", "launches", "syncs",
           "time", "per epoch", "vs CPU", "final loss", "vs CPU");
    double t[5] = {0};
    float loss[5] = {NAN, NAN, NAN, NAN, NAN};
    int rc = ERR_OK;
    for (int i = 0; i < 5 && !rc; i++) {
        if (ways[i].gpu && !g->ok) continue;
        Device dev = ways[i].gpu ? g->dev : device_cpu();
        Run r;
        if ((rc = run_open(&r, iris, dev))) break;
        FusedWork w = {&r, s->epochs, ways[i].way, ways[i].every, 0, {0}};
        rc = time_on_device(dev, fused_work, &w, 1, &t[i]);
        if (!rc) rc = run_final_loss(&r, &loss[i]);
        run_close(&r);
        if (rc) {
            err_context("%s", ways[i].what);
            break;
        }
        char a[32], b[32], d[16];
        snprintf(d, sizeof d, "%+.1e", (double)(loss[i] - loss[0]));
        printf("  %-42s %-13s %9llu %7llu %10s %10s %7.2fx %10.4f %9s\n", ways[i].what,
               ways[i].gpu ? g->label : "cpu", (unsigned long long)w.used.launches,
               (unsigned long long)w.used.syncs, fmt_time(t[i], a, sizeof a),
               fmt_time(t[i] / (double)s->epochs, b, sizeof b), t[i] / t[0], (double)loss[i],
               i ? d : "-");
        if (ways[i].way == 1 && w.nodes)
            printf("  %-42s (the graph holds %zu operations)\n", "", w.nodes);
        fprintf(csv, "\"%s\",%s,%.9g,%llu,%llu,%.7g\n", ways[i].what,
                ways[i].gpu ? g->label : "cpu", t[i], (unsigned long long)w.used.launches,
                (unsigned long long)w.used.syncs, (double)loss[i]);
    }
    int rc2 = csv_close(csv, path);
    if (rc) return rc;
    if (rc2) return rc2;
    if (!g->ok) {
        skipped(g);
    } else {
        double worst = 0;
        for (int i = 1; i < 5; i++) worst = fmax(worst, fabs((double)(loss[i] - loss[0])));
        printf("  Fused against our CPU: %.1fx %s. Graph against per-op with a read every "
               "epoch: %.1fx faster.\n",
               t[0] > t[4] ? t[0] / t[4] : t[4] / t[0], t[0] > t[4] ? "faster" : "slower",
               t[1] / t[3]);
        printf("  All five end at the same loss within %.1e (%s: the sums run in different "
               "orders).\n",
               worst, worst < 1e-3 ? "as they should" : "MORE THAN EXPECTED, look into it");
        if (g->simulated)
            printf("  (simulator times: run on a GPU to see who wins)\n");
    }
    draw(ctx, "bars.gp", "fused", path, "Iris training, five ways (seconds, log scale)");
    return ERR_OK;
}

/* ==== the part ========================================================================= */

int lesson03_run(const LessonContext *ctx, int argc, char **argv)
{
    Options o = {"all", "cuda", false, 0};
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc < 0 ? LESSON_OK : rc;
    lesson_heading(PART, "Why the GPU looks slower, and how to make it win", README);
    Gpu g;
    find_gpu(o.device, &g);
    Sizes s = sizes_for(&o, &g);
    IrisData iris = {0};
    bool all = strcmp(o.demo, "all") == 0;
    bool needs_iris = all || !strcmp(o.demo, "sync") || !strcmp(o.demo, "launch") ||
                      !strcmp(o.demo, "fused");
    if (needs_iris && (rc = iris_data_load(WB_ROOT "/lessons/data/iris.csv", &iris))) {
        lesson_error(PART, err_message());
        return LESSON_FAILED;
    }
    int status = LESSON_OK;
    for (int i = 0; i < N_DEMOS; i++) {
        if (!all && strcmp(o.demo, g_demos[i]) != 0) continue;
        switch (i) {
        case 0: rc = demo_sync(ctx, &s, &g, &iris); break;
        case 1: rc = demo_launch(ctx, &s, &g, &iris); break;
        case 2: rc = demo_copy(ctx, &s, &g); break;
        case 3: rc = demo_batch(ctx, &s, &g); break;
        default: rc = demo_fused(ctx, &s, &g, &iris); break;
        }
        if (rc) {
            char msg[1200];
            snprintf(msg, sizeof msg, "demo-%s: %s", g_demos[i], err_message());
            lesson_error(PART, msg);
            status = LESSON_FAILED;
            if (err_code() == ERR_TODO) break; /* the next demo needs the same exercise */
        }
    }
    if (needs_iris) iris_data_free(&iris);
    return status;
}
