/*
 * Part 3: why the GPU looks slower, measured piece by piece, and what could make it win.
 *
 * Six demos, each runnable alone (make demo-sync, demo-launch, demo-copy,
 * demo-batch, demo-fused, demo-timeline; make demos for all) and all together as part 3 of
 * lesson37:
 *   sync    Iris trained with the loss read back every N epochs (loss.item())
 *   launch  what an empty kernel launch and a 4-byte copy cost
 *   copy    host-to-device bandwidth from pageable and pinned memory, and a
 *           copy overlapped with compute on two streams
 *   batch   2000 inputs through an encoder one at a time, in chunks, at once
 *   fused   Iris per operation, as a CUDA Graph and as one fused kernel,
 *           against our CPU
 *   timeline  a few epochs of Iris as two lanes, CPU and GPU, recorded with the
 *           loss read every epoch and never (who waits for whom)
 * Each prints its table, writes out/03_<demo>.csv and draws out/03_<demo>.png.
 * Without a GPU each runs its CPU half and says in one line what it skipped.
 * Every time is measured here, with the student's time_on_device (exercise
 * 03.3); the counts beside them come from lib's counters.
 *
 * Each demo is a file of its own, demo_<demo>.c; this file is the part: its
 * options, the GPU, the sizes, what the demos share (demos.h) and their order.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/lesson.h"
#include "lessons/03_why_gpu_slower/demos.h"
#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/device/device.h"
#include "lib/io/plot.h"
#include "lib/train/iris.h"

#define PART 3
#define README "lessons/03_why_gpu_slower/README.md"
#define DIR WB_ROOT "/lessons/03_why_gpu_slower/"

/* The demos in the order the part runs them, then "all" (--demo all runs them all). */
static const char *const g_demos[] = {"sync",  "launch",   "copy", "batch",
                                      "fused", "timeline", "all",  NULL};
#define N_DEMOS 6

typedef struct Options {
    const char *demo; /* one of g_demos */
    const char *device;
    bool quick;
    long epochs; /* 0: the default for the mode */
} Options;

/* The part's options; lesson37 --part 3 --help prints them from this table. */
static bool parse_options(int argc, char **argv, Options *o, int *status)
{
    const LessonOption table[] = {
        OPT_CHOICE("demo", &o->demo, "NAME", g_demos,
                   "sync, launch, copy, batch, fused, timeline, or all (default all)"),
        OPT_SET("quick", &o->quick, "the short class version: fewer epochs, smaller sizes"),
        OPT_DEVICE("device", &o->device, "D", "the GPU to use: cuda, cuda:N (default cuda)"),
        OPT_LONG("epochs", &o->epochs, "N", 1, 100000000,
                 "Iris epochs in sync and fused (default 20000, --quick 2000)"),
        OPT_END,
    };
    return lesson_options(PART, table, argc, argv, status);
}

/* ---- the GPU, if there is one, and how big each demo is -------------------- */

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
        snprintf(g->name, sizeof g->name, "%.95s", info.name);
        printf("GPU: %s, %s\n", g->label, info.name);
    }
    if (!g->ok) printf("GPU: none (%s)\n", g->why);
    if (g->simulated)
        printf("  The CUDA simulator runs the GPU code on the CPU: its times say nothing about a "
               "GPU,\n  but its counts (launches, syncs, copies) are exactly what a GPU would "
               "get. Sizes shrink to fit.\n");
}

void demo_skipped(const Gpu *g) { printf("  GPU half: skipped (%s)\n", g->why); }

void demo_sim_note(const Gpu *g)
{
    if (g->ok && g->simulated)
        printf("  (%s rows: the CPU time of the CUDA simulator, not a GPU's time; read their "
               "counts,\n  which are a GPU's, and no speed-up or slow-down from their times.)\n",
               g->label);
}

/* ---- repeated measurements --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

Spread demo_spread(double *times, int n)
{
    Spread s = {NAN, NAN, NAN, n};
    if (n < 1) return s;
    qsort(times, (size_t)n, sizeof *times, cmp_double);
    s.median = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    s.min = times[0];
    s.max = times[n - 1];
    return s;
}

const char *fmt_spread(const Spread *s, char *buf, size_t n)
{
    if (s->runs < 2 || !(s->median > 0)) {
        snprintf(buf, n, "-");
        return buf;
    }
    double up = s->max - s->median, down = s->median - s->min;
    snprintf(buf, n, "+-%.0f%%", 100.0 * (up > down ? up : down) / s->median);
    return buf;
}

bool spread_overlap(const Spread *a, const Spread *b)
{
    return a->min <= b->max && b->min <= a->max;
}

static Sizes sizes_for(const Options *o, const Gpu *g)
{
    Sizes full = {20000, 2000, 20000, 2000, 20000000, 256u << 20, 1024u << 20, 32u << 20, 8,
                  1024, 2000, 512, 5, 2000, 512};
    Sizes quick = {2000, 500, 5000, 500, 5000000, 16u << 20, 128u << 20, 8u << 20, 8,
                   1024, 500, 512, 3, 500, 512};
    Sizes sim = {200, 20, 100, 20, 1000000, 1u << 20, 4u << 20, 256u << 10, 4,
                 64, 100, 64, 3, 500, 512}; /* the CPU half at --quick's size */
    Sizes s = g->simulated ? sim : o->quick ? quick : full;
    if (o->epochs) s.epochs = o->epochs;
    return s;
}

/* ---- output: CSV files and charts ------------------------------------------------ */

FILE *demo_csv_open(const LessonContext *ctx, const char *name, char *path, size_t size,
                    const char *header)
{
    snprintf(path, size, "%s/03_%s.csv", ctx->out_dir, name);
    FILE *f = fileio_save_stream(path, "CSV file"); /* saved when closed */
    if (f) fprintf(f, "%s\n", header);
    return f;
}

int demo_csv_close(FILE *f, const char *path)
{
    if (fclose(f) != 0) return err_code(); /* the save's message */
    printf("  Data: %s\n", path);
    return ERR_OK;
}

void demo_draw(const LessonContext *ctx, const char *script, const char *name,
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
    if (ctx->tty && !ctx->quiet && plot_draw(gp, data, NULL, title) != ERR_OK)
        printf("  Plot in the terminal: skipped (%s)\n", err_message());
}

/* ---- one Iris training run: Lesson 01's network, data, loss and SGD on a device --- */

void demo_run_close(Run *r)
{
    optim_free(r->opt);
    loss_free(r->loss);
    module_free(r->model);
    tensor_free(r->x);
    tensor_free(r->y);
    memset(r, 0, sizeof *r);
}

int demo_run_open(Run *r, const IrisData *iris, Device dev)
{
    memset(r, 0, sizeof *r);
    r->dev = dev;
    r->model = iris_mlp_new(SEED); /* every run starts from the same weights */
    int rc = r->model ? module_to(r->model, dev) : (int)err_code();
    if (!rc) rc = tensor_to(iris->x_train, dev, &r->x);
    if (!rc) rc = tensor_to(iris->train.y, dev, &r->y);
    if (!rc && !(r->loss = loss_cross_entropy_new())) rc = err_code();
    if (!rc && !(r->opt = optim_sgd_new(r->model, LR))) rc = err_code();
    if (rc) demo_run_close(r);
    return rc;
}

int demo_run_loss(Run *r, float *value)
{
    return train_evaluate(r->model, r->loss, r->x, r->y, value, NULL);
}

/* ==== the part ========================================================================= */

int lesson03_run(const LessonContext *ctx, int argc, char **argv)
{
    Options o = {"all", "cuda", false, 0};
    int rc;
    if (!parse_options(argc, argv, &o, &rc)) return rc;
    lesson_heading(PART, "Why the GPU looks slower, and what could make it win", README);
    Gpu g;
    find_gpu(o.device, &g);
    Sizes s = sizes_for(&o, &g);
    IrisData iris = {0};
    bool all = strcmp(o.demo, "all") == 0;
    bool needs_iris = all || !strcmp(o.demo, "sync") || !strcmp(o.demo, "launch") ||
                      !strcmp(o.demo, "fused") || !strcmp(o.demo, "timeline");
    if (needs_iris && (rc = iris_data_load(iris_csv_path(), &iris))) {
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
        case 4: rc = demo_fused(ctx, &s, &g, &iris); break;
        default: rc = demo_timeline(ctx, &s, &g, &iris); break;
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
