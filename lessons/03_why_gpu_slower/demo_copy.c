/*
 * Lesson 03, demo copy (make demo-copy): host-to-device bandwidth from
 * pageable and from pinned memory, and a copy overlapped with compute on two
 * streams.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/03_why_gpu_slower/demos.h"
#include "lib/device/backend.h"
#include "lib/core/err.h"

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

/* Time `repeats` copies; with `model`, the time model's bandwidth for them too (else NAN). */
static int time_copy(Device dev, void *dst, const void *src, size_t bytes, bool to_gpu,
                     long repeats, const Gpu *model, double *gbps, double *secs,
                     double *model_gbps)
{
    CopyWork w = {dev, dst, src, bytes, to_gpu};
    TRY(copy_once(&w)); /* warm up */
    double m0 = model ? demo_model_now(model) : NAN;
    TRY(time_on_device(dev, copy_once, &w, repeats, secs));
    *model_gbps = model ? (double)bytes * (double)repeats / (demo_model_now(model) - m0) * 1e-9
                        : NAN;
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
    return backend_of(o->dev)->gemm(o->dev, false, false, o->rows, o->width, o->width, 1.0f,
                                    o->dchunk[i], o->rows, o->weight, o->width, 0.0f, o->out,
                                    o->rows);
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
    for (int i = 0; !rc && i < o.chunks; i++)
        rc = device_alloc(g->dev, chunk, (void **)&o.dchunk[i]);
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
    double modelled[4] = {NAN, NAN, NAN, NAN};
    for (int m = 0; m < 4 && !rc; m++) {
        o.mode = m;
        rc = overlap_work(&o); /* warm up */
        double m0 = demo_model_now(g);
        if (!rc) rc = time_on_device(g->dev, overlap_work, &o, 1, &t[m]);
        modelled[m] = demo_model_now(g) - m0;
    }
    if (!rc) {
        char a[32], b[24], c[32];
        size_str(chunk, b, sizeof b);
        printf("\n  Overlap: %d chunks of %s from pinned memory, each multiplied by a %lld x "
               "%lld matrix\n",
               o.chunks, b, (long long)o.width, (long long)o.width);
        /* The time model has one queue: it would put the overlapped row's copies and
         * kernels end to end and add its extra calls, so it has no figure for that row. */
        for (int m = 0; m < 4; m++)
            printf("    %-30s %10s%s%s\n", what[m], fmt_time(t[m], a, sizeof a),
                   g->modelled ? "   modelled " : "",
                   !g->modelled ? ""
                   : m == 3     ? "(none: see below)"
                                : fmt_model(modelled[m], c, sizeof c));
        if (g->simulated)
            printf("    (the simulator runs every stream in order, so nothing overlaps here;%s)\n",
                   g->modelled ? " nor in\n    the time model, which has one queue for copies "
                                 "and kernels: it would put the\n    last row's copies and "
                                 "kernels end to end and add its extra calls (a wait\n    per "
                                 "chunk), showing the overlap slower than the serial row,\n    "
                                 "which says nothing of a GPU" : "");
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

int demo_copy(const LessonContext *ctx, const Sizes *s, const Gpu *g)
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
    FILE *csv = rc ? NULL : demo_csv_open(ctx, "copy", path, sizeof path,
                                     "bytes,cpu_memcpy_gbps,pageable_gbps,pinned_gbps,"
                                     "pageable_seconds,pinned_seconds,modelled_pageable_gbps,"
                                     "modelled_pinned_gbps");
    if (!rc && !csv) rc = err_code();
    if (!rc)
        printf("  %-9s %8s %13s %23s %23s %s\n", "size", "repeats", "CPU memcpy", "to GPU, pageable",
               "to GPU, pinned", g->modelled ? "  modelled: pageable, pinned" : "");
    /* 4 bytes, 16 times more each row, and the whole buffer last (256 MiB; --quick: 16) */
    for (size_t b = 4; b <= max && !rc; b = b < max && b * 16 > max ? max : b * 16) {
        long reps = copy_repeats(b, s->copy_budget);
        double mem = 0, page = NAN, pin = NAN, tm, tp = NAN, tq = NAN, mpage = NAN, mpin = NAN, x;
        const Gpu *model = g->modelled ? g : NULL;
        rc = time_copy(device_cpu(), dst, src, b, false, reps, NULL, &mem, &tm, &x);
        if (!rc && gpu) rc = time_copy(g->dev, dev, src, b, true, reps, model, &page, &tp, &mpage);
        if (!rc && gpu) rc = time_copy(g->dev, dev, pinned, b, true, reps, model, &pin, &tq, &mpin);
        if (rc) break;
        char sz[24], a[32], c[32];
        size_str(b, sz, sizeof sz);
        printf("  %-9s %8ld %8.2f GB/s", sz, reps, mem);
        if (gpu)
            printf(" %8.2f GB/s %10s %8.2f GB/s %10s", page, fmt_time(tp, a, sizeof a), pin,
                   fmt_time(tq, c, sizeof c));
        if (model) printf("   %6.2f, %6.2f GB/s", mpage, mpin);
        printf("\n");
        fprintf(csv, "%zu,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", b, mem, page, pin, tp, tq, mpage,
                mpin);
    }
    if (csv) {
        int rc2 = demo_csv_close(csv, path);
        if (!rc) rc = rc2;
    }
    free(src);
    free(dst);
    if (gpu) backend_of(g->dev)->host_free(g->dev, pinned);
    if (dev) device_free(g->dev, dev, max);
    if (rc) return rc;
    if (!gpu) {
        demo_skipped(g);
    } else {
        demo_sim_note(g);
        demo_model_note(g);
        TRY(demo_overlap(s, g));
    }
    demo_draw(ctx, "copy.gp", "copy", path, "Copy bandwidth against size");
    return ERR_OK;
}
