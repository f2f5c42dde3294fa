/*
 * Lesson 03, demo sync (make demo-sync): Iris trained with the loss read back
 * every N epochs (loss.item() in a log line), as a table of N against time.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "lessons/03_why_gpu_slower/demos.h"
#include "lib/core/counters.h"
#include "lib/core/err.h"

/* "+1.20 ms" or "-80.0 us": a difference of two times, which noise can make negative. */
static const char *signed_time(double s, char *buf, size_t n)
{
    char t[32];
    snprintf(buf, n, "%c%s", s < 0 ? '-' : '+', timer_format(fabs(s), t, sizeof t));
    return buf;
}

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
    int rc = demo_run_open(&r0, iris, dev);
    if (!rc) {
        long n = 0;
        rc = train_logged(r0.model, r0.loss, r0.opt, r0.x, r0.y, epochs < 100 ? epochs : 100, 0,
                          NULL, &n);
        if (!rc) rc = device_synchronize(dev);
        demo_run_close(&r0);
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
            if ((rc = demo_run_open(&r, iris, dev))) break;
            w.run = &r;
            rc = time_on_device(dev, sync_work, &w, 1, &t);
            if (!rc) rc = demo_run_loss(&r, &final);
            demo_run_close(&r);
            secs = fmin(secs, t);
        }
        if (rc) break;
        /* The losses read must be the ones every-epoch reading saw (same work, same order). */
        double worst = 0;
        for (long k = 0; every[i] > 1 && k < w.n_logged; k++)
            worst = fmax(worst, fabs((double)some[k] - all[(k + 1) * every[i] - 1]));
        if (every[i] == 0) never = secs;
        if (every[i] == 1) *every_epoch_ratio = secs / never;
        char t[32], x[32], e[24];
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

int demo_sync(const LessonContext *ctx, const Sizes *s, const Gpu *g,
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
    FILE *csv = demo_csv_open(ctx, "sync", path, sizeof path,
                         "device,every,syncs,seconds,extra_seconds,ratio,final_loss");
    if (!csv) return err_code();
    printf("  %-14s %7s %8s %10s %12s %10s %11s\n", "device", "every N", "syncs", "time",
           "extra time", "vs never", "final loss");
    double cpu_ratio = NAN, gpu_ratio = NAN;
    int rc = sync_rows(csv, iris, device_cpu(), "cpu", s->epochs, 3, &cpu_ratio);
    if (!rc && g->ok)
        rc = sync_rows(csv, iris, g->dev, g->label, s->epochs, g->simulated ? 1 : 3, &gpu_ratio);
    int rc2 = demo_csv_close(csv, path);
    if (rc) return rc;
    if (rc2) return rc2;
    if (!g->ok) demo_skipped(g);
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
    demo_draw(ctx, "sync.gp", "sync", path, "Iris: time with the loss read back every N epochs");
    return ERR_OK;
}
