/*
 * Lesson 03, demo launch (make demo-launch): what an empty kernel launch, a
 * sync and a 4-byte copy cost, against an empty C call and a 4-byte memcpy.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "lessons/03_why_gpu_slower/demos.h"
#include "lib/device/backend.h"
#include "lib/core/counters.h"
#include "lib/core/err.h"

/* "773 M", "12.3 k": a rate per second. */
static const char *fmt_rate(double r, char *buf, size_t n)
{
    static const char *units[] = {"", " k", " M", " G"};
    int u = 0;
    while (u < 3 && r >= 1000.0) r /= 1000.0, u++;
    snprintf(buf, n, "%.*f%s", r >= 100.0 ? 0 : r >= 10.0 ? 1 : 2, r, units[u]);
    return buf;
}

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

static int launch_queued(void *p)
{
    LaunchWork *w = p;
    return backend_of(w->dev)->empty_kernel(w->dev);
}

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

static int launch_row(FILE *csv, const LaunchRow *row, LaunchWork *w, const Gpu *g,
                      const char *label, double *per, double *modelled)
{
    TRY(row->fn(w)); /* warm up: the first launch also loads the kernel */
    TRY(device_synchronize(w->dev));
    counters_reset();
    double secs = 0, m0 = row->gpu ? demo_model_now(g) : NAN;
    TRY(time_on_device(w->dev, row->fn, w, row->repeats, &secs));
    /* the model's time of one, time_on_device's syncs included as in the measurement */
    double model = (demo_model_now(g) - m0) / (double)row->repeats;
    Counters c = counters_get();
    /* time_on_device's own two syncs are not the operation's */
    double syncs = ((double)c.syncs - (row->gpu ? 2.0 : 0.0)) / (double)row->repeats;
    char t[32], r[32], m[32];
    printf("  %-40s %-13s %9ld %10s %10s %8.2f %6.2f %10s\n", row->what, label, row->repeats,
           fmt_time(secs, t, sizeof t), fmt_rate(1.0 / secs, r, sizeof r),
           (double)c.launches / (double)row->repeats, syncs, fmt_model(model, m, sizeof m));
    fprintf(csv, "\"%s\",%s,%.9g,%ld,%.9g,%.9g,%.9g\n", row->what, label, secs, row->repeats,
            (double)c.launches / (double)row->repeats, syncs, model);
    *per = secs;
    *modelled = model;
    return ERR_OK;
}

/* Launches one Iris training epoch makes on @p dev (counted, not timed). */
static int iris_epoch_launches(const IrisData *iris, Device dev, double *launches)
{
    Run r;
    TRY(demo_run_open(&r, iris, dev));
    int rc = train_step(r.model, r.loss, r.opt, r.x, r.y, NULL); /* first: allocations */
    counters_reset();
    if (!rc) rc = train_step(r.model, r.loss, r.opt, r.x, r.y, NULL);
    *launches = (double)counters_get().launches;
    demo_run_close(&r);
    return rc;
}

int demo_launch(const LessonContext *ctx, const Sizes *s, const Gpu *g,
                       const IrisData *iris)
{
    printf("\n== demo-launch: what one launch, one sync and one tiny copy cost ==\n");
    printf("  A kernel launch is a request the CPU sends to the GPU; a sync is the CPU waiting "
           "for\n  the answer. Here there is no work at all, so all that is left is the cost "
           "itself.\n\n");
    char path[1024];
    FILE *csv = demo_csv_open(ctx, "launch", path, sizeof path,
                         "what,device,seconds,repeats,launches_per_op,syncs_per_op,"
                         "modelled_seconds");
    if (!csv) return err_code();
    printf("  %-40s %-13s %9s %10s %10s %8s %6s %10s\n", "operation", "device", "repeats", "each",
           "per second", "launches", "syncs", g->modelled ? "modelled" : "");
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
    double cpu_call = 0, per[4] = {0}, model[4] = {NAN, NAN, NAN, NAN}, unused, none;
    int rc = launch_row(csv, &cpu_rows[0], &w, g, "cpu", &cpu_call, &none);
    if (!rc) rc = launch_row(csv, &cpu_rows[1], &w, g, "cpu", &unused, &none);
    if (!rc && g->ok) {
        w.dev = g->dev;
        rc = device_alloc(g->dev, sizeof(float), &w.dev4);
        for (int i = 0; i < 4 && !rc; i++)
            rc = launch_row(csv, &gpu_rows[i], &w, g, g->label, &per[i], &model[i]);
        device_free(g->dev, w.dev4, sizeof(float));
    }
    int rc2 = demo_csv_close(csv, path);
    if (rc) return rc;
    if (rc2) return rc2;
    if (!g->ok) {
        demo_skipped(g);
    } else {
        double per_epoch = 0;
        TRY(iris_epoch_launches(iris, g->dev, &per_epoch));
        char a[32], b[32], c[32], d[32];
        demo_sim_note(g);
        if (g->simulated && g->modelled) {
            demo_model_note(g);
            printf("  One Iris epoch is %.0f launches: that count is a GPU's. Modelled for %s,\n"
                   "  not measured: a queued launch costs %s of CPU time and waiting for one "
                   "%s,\n  so the source's %d epochs would spend about %s just launching, and "
                   "%s more\n  reading the loss back every epoch. make demo-launch on a GPU "
                   "measures them.\n",
                   per_epoch, g->model, fmt_model(model[0], a, sizeof a),
                   fmt_model(model[1], b, sizeof b), SOURCE_EPOCHS,
                   fmt_model(per_epoch * model[0] * SOURCE_EPOCHS, c, sizeof c),
                   fmt_model(model[2] * SOURCE_EPOCHS, d, sizeof d));
        } else if (g->simulated) {
            printf("  One Iris epoch is %.0f launches: that count is a GPU's. A launch's cost "
                   "on a GPU\n  (microseconds of CPU time, whatever the kernel) shows only on "
                   "one: make demo-launch there.\n",
                   per_epoch);
        } else {
            printf("  A queued launch costs %s of CPU time, %.0fx an empty C call; waiting for "
                   "one costs %s.\n",
                   fmt_time(per[0], a, sizeof a), per[0] / cpu_call,
                   fmt_time(per[1], b, sizeof b));
            printf("  One Iris epoch is %.0f launches, so %ld epochs spend about %s just "
                   "launching,\n  and %s more if the loss is read back every epoch.\n",
                   per_epoch, s->epochs,
                   fmt_time(per_epoch * per[0] * (double)s->epochs, c, sizeof c),
                   fmt_time(per[2] * (double)s->epochs, d, sizeof d));
        }
    }
    demo_draw(ctx, "bars.gp", "launch", path, "The cost of one operation (seconds, log scale)");
    return ERR_OK;
}
