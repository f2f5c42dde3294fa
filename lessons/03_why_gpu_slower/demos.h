/*
 * demos.h: what Lesson 03's demos share.
 *
 * lesson.c is the part: its options, the GPU it finds, how big each demo is,
 * the helpers below and the order the demos run in. Each demo is a file of
 * its own, demo_NAME.c, with one entry point, demo_NAME().
 */
#ifndef WB_LESSON03_DEMOS_H
#define WB_LESSON03_DEMOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lessons/lesson.h"
#include "lib/core/timer.h"
#include "lib/device/device.h"
#include "lib/train/iris.h"
#include "lib/train/train.h"

#define LR 0.01f /* Lesson 01's SGD learning rate */
#define SEED 42  /* every run starts from the same weights */

/* The GPU, if there is one. */
typedef struct Gpu {
    bool ok;          /* a CUDA device to run the GPU halves on */
    bool simulated;   /* ... which is the CUDA simulator */
    Device dev;
    char label[24];   /* "cuda:0", or "cuda:0 (sim)" */
    char name[96];    /* the device's name ("NVIDIA H100 80GB HBM3"), for measured figures */
    char why[600];    /* why the GPU halves are skipped */
} Gpu;

/* How big each demo is (full, --quick, or on the simulator). */
typedef struct Sizes {
    long epochs;                                /* Iris epochs: sync and fused */
    long launch_wait, launch_queue, tiny_copy;  /* launch: repeats */
    long cpu_calls;                             /* launch: CPU calls */
    size_t copy_max, copy_budget;               /* copy: the largest copy; bytes per size */
    size_t chunk_bytes;                         /* copy: overlap chunk */
    int chunks;                                 /* copy: overlap chunks */
    int64_t gemm_width;                         /* copy: overlap compute */
    int64_t batch_n, width;                     /* batch: inputs, encoder width (GPU) */
    int repeats;                                /* sync and batch: runs per row */
    int64_t cpu_batch_n, cpu_width;             /* batch: the same on the CPU */
} Sizes;

/* ---- output: CSV files and charts ------------------------------------------------ */

/* Open out/03_<name>.csv and write its header line; NULL with the error set. */
FILE *demo_csv_open(const LessonContext *ctx, const char *name, char *path, size_t size,
                    const char *header);
/* Close it and say where it is. */
int demo_csv_close(FILE *f, const char *path);
/* Draw out/03_<name>.png from `data` with the gnuplot script `script` of this folder
 * (and inline on a terminal), unless --no-plot. */
void demo_draw(const LessonContext *ctx, const char *script, const char *name,
               const char *data, const char *title);
/* The one line a demo prints for its GPU half without a GPU. */
void demo_skipped(const Gpu *g);
/* The line a demo prints under a table with simulator rows: their times are the CPU
 * time of the simulator, never a GPU's. */
void demo_sim_note(const Gpu *g);

/* ---- repeated measurements: the median and the spread, never one lucky run ---------- */

typedef struct Spread {
    double median, min, max; /* seconds */
    int runs;
} Spread;

/* The median, fastest and slowest of times[0 .. n-1] (sorts them). */
Spread demo_spread(double *times, int n);
/* "+-4%": the larger distance from the median to the fastest or the slowest run, or "-"
 * for a single run. */
const char *fmt_spread(const Spread *s, char *buf, size_t n);
/* Whether the runs of a and b overlap (min to max): then their difference is within the
 * noise of this machine, and no effect may be read from it. */
bool spread_overlap(const Spread *a, const Spread *b);

static inline const char *fmt_time(double s, char *buf, size_t n)
{
    return timer_format(s, buf, n);
}

/* ---- one Iris training run: Lesson 01's network, data, loss and SGD on a device --- */

typedef struct Run {
    Device dev;
    Module *model;
    Loss *loss;
    Optimizer *opt;
    Tensor *x, *y;
} Run;

/* Lesson 01's network from SEED, the scaled training part, the loss and SGD, on dev. */
int demo_run_open(Run *r, const IrisData *iris, Device dev);
void demo_run_close(Run *r);
/* The training loss after training (a sync on a GPU, outside any timing). */
int demo_run_loss(Run *r, float *value);

/* ---- the demos: each prints its table, writes out/03_<demo>.csv, draws its chart ---- */

int demo_sync(const LessonContext *ctx, const Sizes *s, const Gpu *g, const IrisData *iris);
int demo_launch(const LessonContext *ctx, const Sizes *s, const Gpu *g, const IrisData *iris);
int demo_copy(const LessonContext *ctx, const Sizes *s, const Gpu *g);
int demo_batch(const LessonContext *ctx, const Sizes *s, const Gpu *g);
int demo_fused(const LessonContext *ctx, const Sizes *s, const Gpu *g, const IrisData *iris);
int demo_timeline(const LessonContext *ctx, const Sizes *s, const Gpu *g,
                  const IrisData *iris);

#endif /* WB_LESSON03_DEMOS_H */
