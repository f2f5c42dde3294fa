/*
 * Lesson 03, demo sync (make demo-sync): Iris trained with the loss read back
 * every N epochs (loss.item() in a log line), as a table of N against time.
 *
 * Every row is run several times, the rows taking turns (so that a machine
 * that speeds up or slows down during the demo affects every row alike), and
 * each row shows the median and the spread of its runs. A difference smaller
 * than the spread is noise, and the summary says so instead of reading an
 * effect into it.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/03_why_gpu_slower/demos.h"
#include "lib/core/counters.h"
#include "lib/core/err.h"

#define MAX_REPEATS 5

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

static const long g_every[] = {0, 1, 10, 100, 200, 1000, 2000};
#define N_EVERY ((int)(sizeof g_every / sizeof *g_every))

/* What one device's rows found, for the summary. */
typedef struct SyncSummary {
    Spread never, each; /* never reading, reading every epoch */
    int rows, noisy;    /* rows reading the loss; those whose runs do not overlap never's */
    double widest;      /* the widest spread of a row, as a fraction of its median */
    double model_never, model_each; /* modelled (the simulator's rows), or NAN */
} SyncSummary;

/* One run of row `every` from the same start; its time into *secs, and the time model's
 * of the same (NAN without one) into *modelled. */
static int sync_run(const IrisData *iris, Device dev, const Gpu *model, SyncWork *w,
                    double *secs, double *modelled, float *final)
{
    Run r;
    TRY(demo_run_open(&r, iris, dev));
    w->run = &r;
    double m0 = model ? demo_model_now(model) : NAN;
    int rc = time_on_device(dev, sync_work, w, 1, secs);
    *modelled = model ? demo_model_now(model) - m0 : NAN;
    if (!rc) rc = demo_run_loss(&r, final);
    demo_run_close(&r);
    return rc;
}

/* One device's rows of the table; with `model`, the time model's times beside them. */
static int sync_rows(FILE *csv, const IrisData *iris, Device dev, const Gpu *model,
                     const char *label, long epochs, int repeats, SyncSummary *sum)
{
    float *all = calloc((size_t)epochs, sizeof *all), *some = calloc((size_t)epochs, sizeof *some);
    if (!all || !some) {
        free(all), free(some);
        return err_set(ERR_NOMEM, "out of memory for %ld losses", epochs);
    }
    /* A run first, untimed: the first run also pays for warming caches, clocks and (on
     * a GPU) loading the kernels. */
    Run r0;
    int rc = demo_run_open(&r0, iris, dev);
    if (!rc) {
        long n = 0;
        rc = train_logged(r0.model, r0.loss, r0.opt, r0.x, r0.y, epochs < 2000 ? epochs : 2000,
                          0, NULL, &n);
        if (!rc) rc = device_synchronize(dev);
        demo_run_close(&r0);
    }
    int rows = 0;
    while (rows < N_EVERY && g_every[rows] <= epochs) rows++;
    double times[N_EVERY][MAX_REPEATS];
    unsigned long long syncs[N_EVERY] = {0};
    float final[N_EVERY];
    double worst[N_EVERY] = {0}, modelled[N_EVERY];
    /* The rows take turns: run k of every row, then run k + 1 of every row. */
    for (int k = 0; k < repeats && !rc; k++) {
        for (int i = 0; i < rows && !rc; i++) {
            SyncWork w = {NULL, epochs, g_every[i], g_every[i] == 1 ? all : some, 0, {0}};
            rc = sync_run(iris, dev, model, &w, &times[i][k], &modelled[i], &final[i]);
            syncs[i] = w.used.syncs;
            /* The losses read must be the ones every-epoch reading saw (same work, same
             * order); row 1 runs before the others in every turn. */
            for (long j = 0; !rc && g_every[i] > 1 && j < w.n_logged; j++)
                worst[i] = fmax(worst[i], fabs((double)some[j] - all[(j + 1) * g_every[i] - 1]));
        }
    }
    free(all);
    free(some);
    if (rc) return rc;
    memset(sum, 0, sizeof *sum);
    sum->model_never = sum->model_each = NAN;
    for (int i = 0; i < rows; i++) {
        Spread s = demo_spread(times[i], repeats);
        if (i == 0) sum->never = s, sum->model_never = modelled[i];
        if (g_every[i] == 1) sum->each = s, sum->model_each = modelled[i];
        if (i > 0) {
            sum->rows++;
            if (!spread_overlap(&s, &sum->never)) sum->noisy++;
        }
        double width = fmax(s.max - s.median, s.median - s.min) / s.median;
        sum->widest = fmax(sum->widest, width);
        char t[32], x[32], e[24], sp[16], m[32];
        snprintf(e, sizeof e, "%ld", g_every[i]);
        printf("  %-14s %7s %8llu %10s %7s %12s %9.2fx %11.4f %10s%s\n", label,
               g_every[i] ? e : "never", syncs[i], fmt_time(s.median, t, sizeof t),
               fmt_spread(&s, sp, sizeof sp),
               g_every[i] ? signed_time(s.median - sum->never.median, x, sizeof x) : "-",
               s.median / sum->never.median, (double)final[i],
               fmt_model(model ? modelled[i] : NAN, m, sizeof m),
               worst[i] > 1e-6 ? "  (logged losses differ from every-epoch reading!)" : "");
        fprintf(csv, "%s,%ld,%llu,%.9g,%.9g,%.9g,%.7g,%.9g,%.9g,%d,%.9g\n", label, g_every[i],
                syncs[i], s.median, s.median - sum->never.median, s.median / sum->never.median,
                (double)final[i], s.min, s.max, s.runs, model ? modelled[i] : NAN);
    }
    return ERR_OK;
}

/* The summary of one device's rows: the every-epoch ratio, and whether any row differs
 * from never reading by more than the runs' own spread. */
static void sync_verdict(const char *label, const SyncSummary *s, int repeats)
{
    double ratio = s->each.median / s->never.median;
    bool beyond = !spread_overlap(&s->each, &s->never);
    printf("  %s: reading every epoch takes %.2fx the time of never reading (medians of %d "
           "runs),\n  %s",
           label, ratio, repeats,
           beyond ? "more than the runs' spread" : "within the runs' spread");
    if (repeats < 2)
        printf(" (one run per row: no spread to judge by).\n");
    else
        printf(" (the widest row spreads +-%.0f%%). %d of the %d reading rows differ\n  from "
               "never reading by more than their spread.\n",
               100.0 * s->widest, s->noisy, s->rows);
}

int demo_sync(const LessonContext *ctx, const Sizes *s, const Gpu *g,
                     const IrisData *iris)
{
    int cpu_repeats = s->repeats, gpu_repeats = g->simulated ? 1 : 3;
    printf("\n== demo-sync: the loss read back every N epochs (loss.item() in a log line) ==\n");
    printf("  Iris, %ld full-batch epochs of Lesson 01's network. Each read of the loss copies "
           "one float\n  to the CPU, and the CPU first waits for all the GPU work queued before "
           "it: a sync.\n",
           s->epochs);
    printf("  The source lesson timed its GPU at 16.85 s reading every epoch and 13.08 s every "
           "2000\n  epochs. Its third figure, 5.21 s \"without recording\", is not a GPU run: "
           "that code never\n  calls .to(device), so model and data stay on the CPU, and it "
           "still reads loss.item()\n  every 100 epochs for its log line. It is a second CPU "
           "run, beside the CPU's 4.62 s.\n");
    printf("  Here every row runs %d times on the CPU and %d on the GPU%s, the rows taking "
           "turns;\n  the table shows the median and how far the runs spread around it.\n\n",
           cpu_repeats, gpu_repeats, g->simulated ? " (the simulator)" : "");
    char path[1024];
    FILE *csv = demo_csv_open(ctx, "sync", path, sizeof path,
                              "device,every,syncs,seconds,extra_seconds,ratio,final_loss,"
                              "min_seconds,max_seconds,runs,modelled_seconds");
    if (!csv) return err_code();
    printf("  %-14s %7s %8s %10s %7s %12s %10s %11s %10s\n", "device", "every N", "syncs",
           "median", "spread", "extra time", "vs never", "final loss",
           g->modelled ? "modelled" : "");
    SyncSummary cpu = {0}, gpu = {0};
    int rc = sync_rows(csv, iris, device_cpu(), NULL, "cpu", s->epochs, cpu_repeats, &cpu);
    if (!rc && g->ok)
        rc = sync_rows(csv, iris, g->dev, g->modelled ? g : NULL, g->label, s->epochs,
                       gpu_repeats, &gpu);
    int rc2 = demo_csv_close(csv, path);
    if (rc) return rc;
    if (rc2) return rc2;
    if (!g->ok) demo_skipped(g);
    demo_sim_note(g);
    sync_verdict("On the CPU", &cpu, cpu_repeats);
    printf("  A CPU has nothing to wait for: the loss is in memory already. A row outside the "
           "spread\n  there is the machine changing speed between runs, not the reading.\n");
    if (g->ok && g->simulated)
        printf("  On %s the times are the simulator's CPU time, and the simulator finishes "
               "each launch\n  before it returns, so a read has nothing to wait for there "
               "either; its syncs column is\n  what a GPU would do.\n",
               g->label);
    if (g->ok && g->modelled && !isnan(gpu.model_each) && !isnan(gpu.model_never)) {
        char a[32], b[32], c[32], d[32];
        double scale = (double)SOURCE_EPOCHS / (double)s->epochs;
        demo_model_note(g);
        printf("  Modelled for %s, not measured: %ld epochs take %s reading the\n  loss every "
               "epoch and %s never; at that rate the source's %d epochs\n  would take %s "
               "and %s.\n",
               g->model, s->epochs, fmt_model(gpu.model_each, a, sizeof a),
               fmt_model(gpu.model_never, b, sizeof b), SOURCE_EPOCHS,
               fmt_model(gpu.model_each * scale, c, sizeof c),
               fmt_model(gpu.model_never * scale, d, sizeof d));
        printf("  The source measured 16.85 s (every epoch) and 13.08 s (every 2000) on an RTX "
               "4070 Laptop\n  GPU, through PyTorch, under WSL 2. The model leaves out the host's "
               "own work between the\n  GPU calls: here lib's C code, there Python's and "
               "PyTorch's for each of the about twenty\n  kernels of an epoch. And it charges "
               "native Linux costs, while under WSL 2 every GPU call\n  also passes through the "
               "Windows host's driver. Those two are a large part of the 16.85 s,\n  not "
               "measured here. The syncs' share is what the model keeps: %s of the\n  modelled "
               "time reading every epoch%s.\n",
               fmt_model((gpu.model_each - gpu.model_never) * scale, a, sizeof a),
               strstr(g->model, "4070") ? "" : " (GPU=rtx4070-laptop models the source's GPU)");
    }
    else if (g->ok) {
        sync_verdict(g->label, &gpu, gpu_repeats);
        printf("  On a GPU each read stops the CPU until the GPU has caught up, so the CPU can "
               "no longer\n  queue the next epoch's launches while the GPU works.\n");
    }
    demo_draw(ctx, "sync.gp", "sync", path, "Iris: time with the loss read back every N epochs");
    return ERR_OK;
}
