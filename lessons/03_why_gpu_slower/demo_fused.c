/*
 * Lesson 03, demo fused (make demo-fused): Iris per operation, as a CUDA Graph
 * and as one fused kernel, against our CPU. Whether the GPU then wins on Iris is
 * a prediction until a GPU measures it: on one, the demo prints the measured
 * ratios with the GPU's name.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>

#include "lessons/03_why_gpu_slower/demos.h"
#include "lib/device/backend.h"
#include "lib/core/counters.h"
#include "lib/core/err.h"

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
    return backend_of(r->dev)->mlp_train_fused(
        r->dev, tensor_f32(r->x), tensor_i32(r->y), r->x->shape[0], r->x->shape[1],
        p[0].param->value->shape[0], p[2].param->value->shape[0], tensor_f32(p[0].param->value),
        tensor_f32(p[1].param->value), tensor_f32(p[2].param->value), tensor_f32(p[3].param->value),
        w->epochs, LR, NULL);
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

int demo_fused(const LessonContext *ctx, const Sizes *s, const Gpu *g,
                      const IrisData *iris)
{
    printf("\n== demo-fused: can the GPU win on Iris? ==\n");
    printf("  The same %ld epochs, from the same weights, five ways. The prediction: the GPU "
           "loses while\n  every epoch is over a dozen tiny launches and a sync, and may win once "
           "they are gone (a\n  CUDA Graph records one epoch and replays it with one launch; a "
           "fused kernel runs all the\n  epochs in one). Only a GPU's measurement settles it.\n\n",
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
    FILE *csv = demo_csv_open(ctx, "fused", path, sizeof path,
                         "what,device,seconds,launches,syncs,final_loss");
    if (!csv) return err_code();
    printf("  %-42s %-13s %9s %7s %10s %10s %8s %10s %9s\n", "way", "device", "launches", "syncs",
           "time", "per epoch", "time/CPU", "final loss", "- CPU's");
    double t[5] = {0};
    float loss[5] = {NAN, NAN, NAN, NAN, NAN};
    int rc = ERR_OK;
    for (int i = 0; i < 5 && !rc; i++) {
        if (ways[i].gpu && !g->ok) continue;
        Device dev = ways[i].gpu ? g->dev : device_cpu();
        Run r;
        if ((rc = demo_run_open(&r, iris, dev))) break;
        FusedWork w = {&r, s->epochs, ways[i].way, ways[i].every, 0, {0}};
        rc = time_on_device(dev, fused_work, &w, 1, &t[i]);
        if (!rc) rc = demo_run_loss(&r, &loss[i]);
        demo_run_close(&r);
        if (rc) {
            err_context("%s", ways[i].what);
            break;
        }
        char a[32], b[32], d[16], v[16];
        snprintf(d, sizeof d, "%+.1e", (double)(loss[i] - loss[0]));
        /* A simulator time against the CPU's is no GPU speed-up: no ratio for it. */
        if (ways[i].gpu && g->simulated)
            snprintf(v, sizeof v, "(sim)");
        else
            snprintf(v, sizeof v, "%.2fx", t[i] / t[0]);
        printf("  %-42s %-13s %9llu %7llu %10s %10s %8s %10.4f %9s\n", ways[i].what,
               ways[i].gpu ? g->label : "cpu", (unsigned long long)w.used.launches,
               (unsigned long long)w.used.syncs, fmt_time(t[i], a, sizeof a),
               fmt_time(t[i] / (double)s->epochs, b, sizeof b), v, (double)loss[i],
               i ? d : "-");
        if (ways[i].way == 1 && w.nodes)
            printf("  %-42s (the graph holds %zu operations)\n", "", w.nodes);
        fprintf(csv, "\"%s\",%s,%.9g,%llu,%llu,%.7g\n", ways[i].what,
                ways[i].gpu ? g->label : "cpu", t[i], (unsigned long long)w.used.launches,
                (unsigned long long)w.used.syncs, (double)loss[i]);
    }
    int rc2 = demo_csv_close(csv, path);
    if (rc) return rc;
    if (rc2) return rc2;
    if (!g->ok) {
        demo_skipped(g);
        printf("  Whether the GPU wins on Iris stays a prediction here: no GPU measured it.\n");
    } else {
        double worst = 0;
        for (int i = 1; i < 5; i++) worst = fmax(worst, fabs((double)(loss[i] - loss[0])));
        demo_sim_note(g);
        if (g->simulated)
            printf("  On the simulator the GPU rows' times are its own CPU time: they say "
                   "nothing about who\n  wins on a GPU (make demo-fused on one shows it). What "
                   "carries over are the counts:\n  the launches and syncs each way asks of a "
                   "GPU.\n");
        else
            printf("  Measured on %s (%s): the fused kernel against our CPU, %.1fx %s;\n  the "
                   "graph against per-op with a read every epoch, %.1fx %s. The prediction %s "
                   "here.\n",
                   g->name, g->label, t[0] > t[4] ? t[0] / t[4] : t[4] / t[0],
                   t[0] > t[4] ? "faster" : "slower", t[1] > t[3] ? t[1] / t[3] : t[3] / t[1],
                   t[1] > t[3] ? "faster" : "slower",
                   t[0] > t[4] ? "held" : "did not hold (the fused GPU run was not faster)");
        printf("  All five end at the same loss within %.1e (%s: the sums run in different "
               "orders).\n",
               worst, worst < 1e-3 ? "as they should" : "MORE THAN EXPECTED, look into it");
    }
    demo_draw(ctx, "bars.gp", "fused", path, "Iris training, five ways (seconds, log scale)");
    return ERR_OK;
}
