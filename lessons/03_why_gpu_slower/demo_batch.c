/*
 * Lesson 03, demo batch (make demo-batch): inputs through an encoder one at a
 * time, in chunks, and all at once (predict_chunked, exercise 03.2).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>

#include "lessons/03_why_gpu_slower/demos.h"
#include "lib/core/counters.h"
#include "lib/core/err.h"
#include "lib/nn/layers.h"
#include "lib/core/rng.h"

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

int demo_batch(const LessonContext *ctx, const Sizes *s, const Gpu *g)
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
    FILE *csv = rc ? NULL : demo_csv_open(ctx, "batch", path, sizeof path,
                                     "device,chunk,calls,launches,seconds,ratio,max_diff");
    if (!rc && !csv) rc = err_code();
    if (!rc)
        printf("  %-14s %10s %7s %9s %10s %11s %10s %9s\n", "device", "chunk", "calls",
               "launches", "time", "per input", "vs batch", "max diff");
    double cpu_ratio = NAN, gpu_ratio = NAN;
    if (!rc) rc = batch_rows(csv, s, device_cpu(), "cpu", x, &cpu_ratio);
    if (!rc && g->ok) rc = batch_rows(csv, s, g->dev, g->label, x, &gpu_ratio);
    if (csv) {
        int rc2 = demo_csv_close(csv, path);
        if (!rc) rc = rc2;
    }
    tensor_free(x);
    if (rc) return rc;
    if (!g->ok) demo_skipped(g);
    printf("  One at a time against one batch: %.1fx on the CPU", cpu_ratio);
    if (g->ok) printf(", %.1fx on %s", gpu_ratio, g->label);
    printf(".\n  (max diff: the largest difference from the one-batch outputs; the sums run in "
           "another\n  order when the shapes change, so a few units in the last place are "
           "normal.)\n");
    demo_draw(ctx, "batch.gp", "batch", path, "Encoder inference: total time against chunk size");
    return ERR_OK;
}
