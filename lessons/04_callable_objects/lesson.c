/*
 * Part 4: callable objects, and why frameworks route every call through one.
 *
 * Python's __call__ re-created in C (Counter, Adder, a greeter, partial,
 * callables as callbacks), then the module call protocol: a forward hook
 * that captures a layer's output works through module_call and silently
 * captures nothing when code calls forward directly. Last, the source's
 * TextVectorizer: a callable that keeps model, device and batch size, timed
 * against bare functions called per sample and per chunk.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/lesson.h"
#include "lib/nn/batcher.h"
#include "lib/core/callable.h"
#include "lib/core/counters.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/train/iris.h"
#include "lib/nn/layers.h"
#include "lib/core/timer.h"
#include "lib/io/plot.h"
#include "lib/nn/module.h"

#define PART 4
#define README "lessons/04_callable_objects/README.md"

typedef struct Options {
    long n, width, batch;
} Options;

/* The part's options; lesson37 --part 4 --help prints them from this table. */
static bool parse_options(int argc, char **argv, Options *o, int *status)
{
    const LessonOption table[] = {
        OPT_LONG("n", &o->n, "N", 1, 1000000,
                 "inputs for the batched-inference comparison (default 2000)"),
        OPT_LONG("width", &o->width, "W", 1, 8192,
                 "the encoder's width, W-W-W (default 512, as in the source)"),
        OPT_LONG("batch", &o->batch, "B", 1, 100000, "the batch size (default 64)"),
        OPT_END,
    };
    return lesson_options(PART, table, argc, argv, status);
}

/* Print a call's result like Python's repr. */
static void show(const char *code, int rc, Value v)
{
    if (rc != ERR_OK) {
        printf("  %-28s -> error: %s\n", code, err_message());
        return;
    }
    switch (v.kind) {
    case VALUE_INT: printf("  %-28s -> %lld\n", code, v.as.i); break;
    case VALUE_FLOAT: printf("  %-28s -> %g\n", code, v.as.f); break;
    case VALUE_STR: printf("  %-28s -> '%s'\n", code, v.as.s); break;
    default: printf("  %-28s -> %s\n", code, value_kind_name(v.kind)); break;
    }
}

/* A running total: a callable with state, mapped over an array. */
static int running_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    long long *total = state;
    *total += args[0].as.i;
    *out = value_int(*total);
    return ERR_OK;
}
static const CallableClass running_class = {"RunningTotal", 1, running_call, free};

/* A comparator with state: distance to a pivot, counting its calls. */
typedef struct ByDistance {
    int pivot;
    long calls;
} ByDistance;
static int distance_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    ByDistance *b = state;
    b->calls++;
    int x = *(const int *)args[0].as.p, y = *(const int *)args[1].as.p;
    *out = value_int(abs(x - b->pivot) - abs(y - b->pivot));
    return ERR_OK;
}
static const CallableClass distance_class = {"ByDistance", 2, distance_call, free};

static int section_callables(void)
{
    printf("1. An object you call like a function (Python's __call__)\n");
    Callable counter, adder, greet, add10, running, cmp;
    Value r = value_none();
    int rc = counter_new(&counter);
    if (rc) return rc;
    rc = callable_call(counter, NULL, 0, &r);
    show("counter()", rc, r);
    if (rc == ERR_TODO) return rc;
    rc = callable_call(counter, NULL, 0, &r);
    show("counter()", rc, r);
    printf("  %-28s -> %lld   (the state lives in the object)\n", "counter.count",
           ((CounterState *)callable_state(counter))->count);
    TRY(adder_new(&adder));
    Value a[2] = {value_int(3), value_int(5)};
    show("adder(3, 5)", callable_call(adder, a, 2, &r), r);
    Value b[2] = {value_float(2.5), value_int(1)};
    show("adder(2.5, 1)", callable_call(adder, b, 2, &r), r);
    show("adder(1)", callable_call(adder, a, 1, &r), r);
    TRY(greeter_new("Good morning", &greet));
    Value name = value_str("Ada");
    show("greet('Ada')", callable_call(greet, &name, 1, &r), r);
    Value ten = value_int(10), five = value_int(5);
    rc = callable_partial(adder, &ten, 1, &add10);
    if (rc == ERR_OK) show("add10 = partial(adder, 10); add10(5)", callable_call(add10, &five, 1, &r), r);
    long long *total = calloc(1, sizeof *total);
    /* A callable owns its state from here on (and frees it, also if this fails). */
    TRY(total ? callable_new(&running_class, total, &running)
              : err_set(ERR_NOMEM, "out of memory"));
    Value xs[5] = {value_int(3), value_int(1), value_int(4), value_int(1), value_int(5)}, ys[5];
    if (callable_map(running, xs, 5, ys) == ERR_OK)
        printf("  %-28s -> [%lld, %lld, %lld, %lld, %lld]\n", "map(running_total, [3,1,4,1,5])",
               ys[0].as.i, ys[1].as.i, ys[2].as.i, ys[3].as.i, ys[4].as.i);
    ByDistance *by = calloc(1, sizeof *by);
    if (by) by->pivot = 50;
    TRY(by ? callable_new(&distance_class, by, &cmp) : err_set(ERR_NOMEM, "out of memory"));
    int nums[8] = {10, 95, 48, 53, 70, 1, 50, 33};
    void *items[8];
    for (int i = 0; i < 8; i++) items[i] = &nums[i];
    if (callable_sort(items, 8, cmp) == ERR_OK) {
        printf("  %-28s -> [", "sorted by distance to 50");
        for (int i = 0; i < 8; i++) printf("%s%d", i ? ", " : "", *(int *)items[i]);
        printf("] in %ld comparisons\n", by->calls);
    }
    callable_release(counter);
    show("counter() after release", callable_call(counter, NULL, 0, &r), r);
    printf("\n");
    callable_release(add10);
    callable_release(adder);
    callable_release(greet);
    callable_release(running);
    callable_release(cmp);
    return ERR_OK;
}

/* ---- hooks ---------------------------------------------------------------- */

/* A forward hook that remembers the shape of the last output it saw. */
typedef struct Capture {
    int64_t rows, cols;
    int seen;
} Capture;
static int capture_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    Capture *c = state;
    const Tensor *output = args[2].as.p;
    c->rows = output->shape[0];
    c->cols = output->shape[1];
    c->seen++;
    *out = value_none();
    return ERR_OK;
}
static const CallableClass capture_class = {"Capture", 3, capture_call, free};

/* The order a call took, as it ran: each hook and forward notes itself here, and
 * out/04_call_order.csv (drawn as out/04_call_order.png) is made from it. */
#define MAX_STEPS 16
static struct {
    const char *call; /* which call the step belongs to */
    const char *who;  /* what ran */
    const char *kind; /* pre-hook, forward or hook */
} g_steps[MAX_STEPS];
static int g_n_steps;
static const char *g_call = "";

static void step(const char *who, const char *kind)
{
    if (g_n_steps < MAX_STEPS) {
        g_steps[g_n_steps].call = g_call;
        g_steps[g_n_steps].who = who;
        g_steps[g_n_steps].kind = kind;
        g_n_steps++;
    }
}

/* A hook that prints its name, to show the order (and notes it for the chart). */
static int say_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)args;
    printf("    %s\n", (const char *)state);
    step((const char *)state, nargs == 2 ? "pre-hook" : "hook");
    *out = value_none();
    return ERR_OK;
}

/* fc1's own forward, noting when it runs: Linear's forward, called through a copy of
 * its class whose forward notes the step first. */
static const ModuleOps *g_linear_ops;
static int noted_forward(Module *self, const Tensor *x, const Tensor **y)
{
    step("Linear.forward (fc1)", "forward");
    return g_linear_ops->forward(self, x, y);
}

static void draw_order(const LessonContext *ctx)
{
    char path[1024], png[1024];
    snprintf(path, sizeof path, "%s/04_call_order.csv", ctx->out_dir);
    FILE *f = fileio_save_stream(path, "CSV file"); /* saved when closed */
    if (!f) return;
    fprintf(f, "call,step,who,kind\n");
    int k = 0;
    for (int i = 0; i < g_n_steps; i++) {
        k = i > 0 && strcmp(g_steps[i].call, g_steps[i - 1].call) == 0 ? k + 1 : 1;
        fprintf(f, "%s,%d,%s,%s\n", g_steps[i].call, k, g_steps[i].who, g_steps[i].kind);
    }
    if (fclose(f) != 0) {
        printf("  The order each call took: not saved (%s)\n", err_message());
        return;
    }
    printf("  The order each call took: %s\n", path);
    if (!ctx->plots) return;
    snprintf(png, sizeof png, "%s/04_call_order.png", ctx->out_dir);
    if (plot_draw(WB_ROOT "/lessons/04_callable_objects/call_order.gp", path, png,
                  "fc1 with two pre-hooks and a forward hook: the order each call ran") != ERR_OK)
        printf("  Plot: skipped (%s)\n", err_message());
    else
        printf("  Plot: %s\n", png);
}
static const CallableClass pre_say_class = {"pre-hook", 2, say_call, NULL};
static const CallableClass say_class = {"hook", 3, say_call, NULL};

static int section_hooks(const LessonContext *ctx)
{
    printf("2. model(x) and model.forward(x): the module call protocol\n");
    Dataset train = {0}, test = {0};
    int rc = dataset_load_csv(iris_csv_path(), iris_spec(), &train, &test);
    if (rc) return rc;
    Module *model = iris_mlp_new(42); /* Lesson 01's network */
    Module *fc1 = model ? model->children[0] : NULL;
    Capture *cap = model ? calloc(1, sizeof *cap) : NULL;
    Callable hook = {UINT32_MAX, 0}, p1 = hook, p2 = hook, h1 = hook;
    HookHandle handle, hp1, hp2, hh1;
    const Tensor *y;
    int before = 0;
    /* The hook owns cap from here on (and frees it, also if this fails). */
    rc = cap ? callable_new(&capture_class, cap, &hook) : err_set(ERR_NOMEM, "out of memory");
    if (!rc) rc = module_register_forward_hook(fc1, hook, &handle);
    if (!rc) {
        printf("  A forward hook on fc1 captures its output (feature extraction).\n");
        rc = module_call(model, train.x, &y); /* model(x) */
    }
    if (!rc) {
        printf("  module_call(model, x), i.e. model(x):   the hook saw fc1's output (%lld, %lld)\n",
               (long long)cap->rows, (long long)cap->cols);
        before = cap->seen;
        /* What a hand-written forward does when it calls self.fc1.forward(x): */
        rc = module_forward(fc1, train.x, &y);
    }
    if (!rc) {
        printf("  module_forward(fc1, x), i.e. fc1.forward(x): the hook %s (no error, no "
               "warning)\n",
               cap->seen == before ? "saw NOTHING" : "ran");
        printf("  The hook lives in the call protocol; calling forward yourself skips it.\n");
    }
    if (!rc) {
        printf("  Hooks run in registration order around forward:\n");
        rc = callable_new(&pre_say_class, (void *)"pre-hook A (may replace the input)", &p1);
        if (!rc) rc = callable_new(&pre_say_class, (void *)"pre-hook B", &p2);
        if (!rc)
            rc = callable_new(&say_class, (void *)"forward hook C (may replace the output)", &h1);
        if (!rc) rc = module_register_forward_pre_hook(fc1, p1, &hp1);
        if (!rc) rc = module_register_forward_pre_hook(fc1, p2, &hp2);
        if (!rc) rc = module_register_forward_hook(fc1, h1, &hh1);
    }
    if (!rc) {
        module_remove_hook(handle); /* handle.remove(): the capture hook is gone */
        ModuleOps noted = *fc1->ops;
        g_linear_ops = fc1->ops;
        noted.forward = noted_forward;
        fc1->ops = &noted;
        g_call = "module_call"; /* model(x): the protocol */
        rc = module_call(fc1, train.x, &y);
        if (!rc) printf("    (then fc1's output, (%lld, %lld))\n", (long long)y->shape[0],
                        (long long)y->shape[1]);
        /* And fc1.forward(x) called directly, with the same hooks registered. */
        g_call = "module_forward"; /* fc1.forward(x) */
        if (!rc) rc = module_forward(fc1, train.x, &y);
        fc1->ops = g_linear_ops;
        if (!rc) draw_order(ctx);
        if (module_remove_hook(handle) != ERR_OK)
            printf("  Removing the capture hook a second time: %s\n", err_message());
        module_remove_hook(hp1);
        module_remove_hook(hp2);
        module_remove_hook(hh1);
    }
    Callable made[3] = {p1, p2, h1};
    for (int i = 0; i < 3; i++)
        if (callable_alive(made[i])) callable_release(made[i]);
    printf("\n");
    if (callable_alive(hook)) callable_release(hook);
    module_free(model);
    dataset_free(&train);
    dataset_free(&test);
    return rc;
}

/* ---- batched inference ------------------------------------------------------ */

/* The bare function of the source: model and device passed on every call. */
static int predict(Module *model, Device device, const Tensor *x, int64_t start, int64_t len,
                   Tensor *out)
{
    Tensor *chunk = tensor_new_2d(len, x->shape[1]), *on = NULL, *back = NULL;
    const Tensor *y;
    int rc = chunk ? tensor_copy_rows(x, start, len, chunk) : (int)err_code();
    if (!rc) rc = tensor_to(chunk, device, &on);
    module_set_grad_enabled(false);
    if (!rc) rc = module_call(model, on, &y);
    module_set_grad_enabled(true);
    if (!rc) rc = tensor_to(y, device_cpu(), &back);
    if (!rc) rc = tensor_put_rows(out, start, back);
    tensor_free(chunk);
    tensor_free(on);
    tensor_free(back);
    return rc;
}

static double max_diff(const Tensor *a, const Tensor *b)
{
    double d = 0;
    for (int64_t i = 0; i < a->numel; i++) {
        double e = fabs((double)tensor_f32(a)[i] - tensor_f32(b)[i]);
        if (e > d) d = e;
    }
    return d;
}

static int compare_on(const Options *o, Device device, bool simulated)
{
    char name[16];
    Rng rng;
    rng_seed(&rng, 7, 0);
    Module *layers[] = {linear_new("fc1", o->width, o->width, &rng), relu_new("relu"),
                        linear_new("fc2", o->width, o->width, &rng)};
    Module *model = sequential_new("encoder", 3, layers);
    Tensor *x = tensor_new_2d(o->n, o->width);
    Tensor *outs[3] = {tensor_new_2d(o->n, o->width), tensor_new_2d(o->n, o->width), NULL};
    if (!model || !x || !outs[0] || !outs[1]) return err_code();
    int rc = tensor_uniform(x, &rng, -1.0f, 1.0f);
    if (!rc) rc = module_to(model, device);
    module_train(model, false);
    const char *what[3] = {"bare function, one call per sample", "bare function, one call per chunk",
                           "Batcher callable, one call"};
    double secs[3] = {0};
    Counters cnt[3];
    long calls[3] = {o->n, (o->n + o->batch - 1) / o->batch, 1};
    Callable batcher = {UINT32_MAX, 0};
    for (int v = 0; v < 3 && !rc; v++) {
        counters_reset();
        double t0 = timer_now();
        if (v == 0)
            for (int64_t i = 0; i < o->n && !rc; i++) rc = predict(model, device, x, i, 1, outs[0]);
        else if (v == 1)
            for (int64_t s = 0; s < o->n && !rc; s += o->batch)
                rc = predict(model, device, x, s, o->n - s < o->batch ? o->n - s : o->batch,
                             outs[1]);
        else {
            Value arg = value_ptr(x), r;
            rc = batcher_new(model, device, o->batch, o->width, o->width, &batcher);
            if (!rc) rc = callable_call(batcher, &arg, 1, &r);
            if (!rc) outs[2] = r.as.p;
        }
        secs[v] = timer_now() - t0;
        cnt[v] = counters_get();
    }
    if (!rc) {
        printf("  on %s%s: %ld inputs of %ld through a %ld-%ld-%ld encoder, batch %ld\n",
               device_str(device, name, sizeof name),
               simulated ? " (the CUDA simulator: CPU times, labelled)" : "", o->n, o->width,
               o->width, o->width, o->width, o->batch);
        printf("    %-36s %7s %10s %11s %s\n", "", "calls", "time", "vs Batcher", "copies to device");
        for (int v = 0; v < 3; v++) {
            char t[32];
            printf("    %-36s %7ld %10s %10.1fx %llu\n", what[v], calls[v],
                   timer_format(secs[v], t, sizeof t), secs[v] / secs[2],
                   (unsigned long long)cnt[v].copies_h2d);
        }
        if (device_is_host(device))
            printf("    (no copies: on the CPU the data is already where the model is)\n");
        printf("    the three give the same outputs: largest difference %.1e\n",
               fmax(max_diff(outs[0], outs[2]), max_diff(outs[1], outs[2])));
    }
    if (callable_alive(batcher)) callable_release(batcher);
    module_free(model);
    tensor_free(x);
    for (int v = 0; v < 3; v++) tensor_free(outs[v]);
    return rc;
}

static int section_batching(const Options *o)
{
    printf("3. A callable that keeps model, device and batch size (the source's TextVectorizer)\n");
    int rc = compare_on(o, device_cpu(), false);
    if (rc) return rc;
    Device gpu;
    int n = 0;
    if (device_count(&n) != ERR_OK || device_from_string("cuda", &gpu) != ERR_OK) {
        printf("  on a GPU: skipped (%s)\n", err_message());
        return ERR_OK;
    }
    DeviceInfo info;
    bool sim = device_info(gpu, &info) == ERR_OK && info.simulated;
    Options small = *o;
    if (sim && small.n > 256) small.n = 256; /* every simulated thread is the CPU's */
    return compare_on(&small, gpu, sim);
}

int lesson04_run(const LessonContext *ctx, int argc, char **argv)
{
    Options o = {2000, 512, 64};
    int rc;
    if (!parse_options(argc, argv, &o, &rc)) return rc;
    lesson_heading(PART, "Callable objects and the module call", README);
    rc = section_callables();
    if (!rc) rc = section_hooks(ctx);
    if (!rc) rc = section_batching(&o);
    if (rc) {
        lesson_error(PART, err_message());
        return LESSON_FAILED;
    }
    return LESSON_OK;
}
