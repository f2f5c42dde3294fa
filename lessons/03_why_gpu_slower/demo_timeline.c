/*
 * Lesson 03, demo timeline (make demo-timeline): a few epochs of Iris on the GPU
 * as a picture of who waits for whom. Two lanes, the CPU's and the GPU's: the
 * CPU's calls (launches, copies, waits) timed on the host's clock around each
 * call, and the GPU's kernels and copies timed by CUDA events recorded around
 * them (lib/core/timeline.h). Recorded twice, for the two logging habits of
 * demo-sync: the loss read back every epoch, and never.
 *
 * On the simulator the kernels run inside their launches, on the CPU: its
 * timeline shows the order of the work and the syncs, not a GPU's timing, and
 * says so in its title.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/03_why_gpu_slower/demos.h"
#include "lib/core/err.h"
#include "lib/core/timeline.h"

#define WARM_EPOCHS 3    /* untimed: the first launches also load the kernels */
#define SHOWN_EPOCHS 3   /* the epochs recorded */
#define MAX_EVENTS 4096

/* What one recording found. */
typedef struct Found {
    double span;      /* first event to last */
    double cpu_wait;  /* the CPU's waits: syncs and reads of the loss */
    double gpu_busy;  /* kernels and copies on the GPU */
    size_t events;
} Found;

/* The shown epochs, recorded; their modelled span into *modelled (NAN without a model). */
static int record(const IrisData *iris, const Gpu *g, bool every, TimelineEvent *buf, size_t *n,
                  double *modelled)
{
    Device dev = g->dev;
    Run r;
    TRY(demo_run_open(&r, iris, dev));
    long logged_n = 0;
    float logged[1];
    int rc = train_logged(r.model, r.loss, r.opt, r.x, r.y, WARM_EPOCHS, 0, NULL, &logged_n);
    if (!rc) rc = device_synchronize(dev);
    if (!rc) rc = timeline_begin(buf, MAX_EVENTS);
    double m0 = demo_model_now(g);
    for (int k = 0; !rc && k < SHOWN_EPOCHS; k++) {
        char name[32];
        snprintf(name, sizeof name, "epoch %d", k + 1);
        double t = timeline_clock();
        timeline_add(TIMELINE_MARK, false, name, t, t);
        /* One epoch; with `every`, its loss read back (loss.item() in a log line). */
        rc = train_logged(r.model, r.loss, r.opt, r.x, r.y, 1, every ? 1 : 0, logged, &logged_n);
    }
    /* The end of training: the CPU waits for whatever the GPU still has queued. */
    if (!rc) rc = device_synchronize(dev);
    *modelled = demo_model_now(g) - m0;
    if (timeline_on()) {
        int rc2 = timeline_end(n);
        if (!rc) rc = rc2;
    }
    demo_run_close(&r);
    return rc;
}

static Found summarise(const TimelineEvent *ev, size_t n)
{
    Found f = {0, 0, 0, n};
    double lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || ev[i].start < lo) lo = ev[i].start;
        if (i == 0 || ev[i].end > hi) hi = ev[i].end;
        double d = ev[i].end - ev[i].start;
        if (ev[i].gpu) f.gpu_busy += d;
        else if (ev[i].kind == TIMELINE_SYNC || ev[i].kind == TIMELINE_COPY_D2H) f.cpu_wait += d;
    }
    f.span = hi - lo;
    return f;
}

int demo_timeline(const LessonContext *ctx, const Sizes *s, const Gpu *g, const IrisData *iris)
{
    (void)s;
    printf("\n== demo-timeline: who waits for whom, %d epochs of Iris on the GPU ==\n",
           SHOWN_EPOCHS);
    printf("  The CPU queues each epoch's launches and goes on; the GPU runs them in order. "
           "Reading the\n  loss back (loss.item()) makes the CPU wait until the GPU has "
           "caught up: a sync. Recorded:\n  the CPU's calls on the host's clock, the GPU's "
           "kernels and copies with CUDA events.\n");
    if (!g->ok) {
        demo_skipped(g);
        return ERR_OK;
    }
    TimelineEvent *buf = malloc(sizeof *buf * MAX_EVENTS);
    if (!buf) return err_set(ERR_NOMEM, "out of memory for the timeline");
    char path[1024];
    FILE *csv = demo_csv_open(ctx, "timeline", path, sizeof path,
                              "habit,lane,kind,name,start_us,end_us");
    if (!csv) {
        free(buf);
        return err_code();
    }
    static const char *const habit[] = {"loss read every epoch", "loss never read"};
    printf("  %-22s %8s %12s %12s %12s %15s\n", "habit", "events", "span", "CPU waits",
           "GPU busy", g->modelled ? "modelled span" : "");
    int rc = ERR_OK;
    for (int h = 0; h < 2 && !rc; h++) {
        size_t n = 0;
        double modelled = NAN;
        rc = record(iris, g, h == 0, buf, &n, &modelled);
        if (rc) break;
        /* Both recordings start at their first event. */
        double t0 = n ? buf[0].start : 0;
        for (size_t i = 0; i < n; i++)
            if (buf[i].start < t0) t0 = buf[i].start;
        for (size_t i = 0; i < n; i++)
            fprintf(csv, "%s,%s,%s,%s,%.3f,%.3f\n", habit[h], buf[i].gpu ? "GPU" : "CPU",
                    timeline_kind_name(buf[i].kind), buf[i].name, 1e6 * (buf[i].start - t0),
                    1e6 * (buf[i].end - t0));
        Found f = summarise(buf, n);
        char a[32], b[32], c[32], m[32];
        printf("  %-22s %8zu %12s %12s %12s %15s%s\n", habit[h], n, fmt_time(f.span, a, sizeof a),
               fmt_time(f.cpu_wait, b, sizeof b), fmt_time(f.gpu_busy, c, sizeof c),
               fmt_model(modelled, m, sizeof m),
               timeline_dropped() ? " (some events did not fit)" : "");
    }
    free(buf);
    int rc2 = demo_csv_close(csv, path);
    if (rc) return rc;
    if (rc2) return rc2;
    if (g->simulated) {
        printf("  (%s: a simulated timeline. The simulator runs each kernel inside its launch, "
               "on the CPU,\n  so the lanes show the order of the work and where the syncs "
               "fall, not a GPU's timing.)\n",
               g->label);
        demo_model_note(g);
    } else
        printf("  Between two reads the CPU can run ahead of the GPU; a read makes it stop "
               "and wait,\n  and the GPU then idles while the CPU queues the next launches.\n");
    char title[160];
    snprintf(title, sizeof title, "Iris, %d epochs on %s: CPU and GPU lanes%s", SHOWN_EPOCHS,
             g->label, g->simulated ? " (simulated timeline, not a GPU's timing)" : "");
    demo_draw(ctx, "timeline.gp", "timeline", path, title);
    return ERR_OK;
}
