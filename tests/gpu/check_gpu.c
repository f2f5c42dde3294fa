/*
 * check_gpu.c: lib on a CUDA device (make test). Built twice: against the
 * CUDA simulator (always) and against real CUDA (run when there is a GPU).
 *
 * The oracle is lib's CPU path, itself checked against PyTorch: the same
 * network from the same initial weights must give the same numbers on the
 * device, and the counters must show the transfers, launches and syncs the
 * code asks for.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/device/backend.h"
#include "lib/core/counters.h"
#include "lib/train/data.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/train/experiment.h"
#include "lib/nn/layers.h"
#include "lib/train/loader.h"
#include "lib/nn/optim.h"
#include "lib/core/timeline.h"
#include "lib/core/timer.h"
#include "lib/train/train.h"
#include "tests/common/iris.h"
#include "tests/common/tmpdir.h"
#include "tests/gpu/gpu_suites.h"

static Device gpu(void)
{
    int n = 0;
    ck_assert_msg(device_count(&n) == ERR_OK && n > 0,
                  "no CUDA device (real or simulated): %s", err_message());
    return device_cuda(0);
}

static bool simulated(void)
{
    DeviceInfo info;
    ck_assert_int_eq(device_info(gpu(), &info), ERR_OK);
    return info.simulated;
}

START_TEST(test_device_facts)
{
    DeviceInfo info;
    ck_assert_msg(device_info(gpu(), &info) == ERR_OK, "%s", err_message());
    ck_assert(info.name[0] != '\0');
    ck_assert_uint_gt(info.total_memory, 0);
    ck_assert_uint_le(info.free_memory, info.total_memory);
    ck_assert_int_ge(info.sm_count, 1);
    ck_assert_int_ge(info.cc_major, 7);
    ck_assert_int_gt(info.runtime_version, 0);
    ck_assert_int_gt(info.cublas_version, 0);
    /* cuda:0 is the machine's GPU 0, or the first of CUDA_VISIBLE_DEVICES when it is set
     * (-1 when that entry is a UUID rather than a number). */
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    int want = 0;
    if (env) {
        char *end;
        long first = strtol(env, &end, 10);
        want = end != env && (*end == ',' || *end == '\0') && first >= 0 ? (int)first : -1;
    }
    ck_assert_msg(info.physical == want, "cuda:0 is physical GPU %d; with CUDA_VISIBLE_DEVICES=%s "
                  "it should be %d", info.physical, env ? env : "(unset)", want);
    if (info.simulated) ck_assert_str_eq(info.name, "CUDA simulator (CPU)");
    ck_assert(device_cuda_built());
}
END_TEST

START_TEST(test_device_strings)
{
    int n = 0;
    gpu();
    ck_assert_int_eq(device_count(&n), ERR_OK);
    Device d;
    ck_assert_int_eq(device_from_string("cuda", &d), ERR_OK);
    ck_assert(device_equal(d, device_cuda(0)));
    ck_assert_int_eq(device_from_string("cpu", &d), ERR_OK);
    ck_assert_int_eq(d.kind, DEVICE_CPU);
    char text[32];
    snprintf(text, sizeof text, "cuda:%d", n);
    ck_assert_int_eq(device_from_string(text, &d), ERR_DEVICE);
    ck_assert_msg(strstr(err_message(), "requested but") != NULL, "%s", err_message());
    ck_assert_int_eq(device_from_string("gpu", &d), ERR_ARG);
}
END_TEST

/* The simulator applies CUDA_VISIBLE_DEVICES as CUDA does (a GPU need not). */
START_TEST(test_visible_devices_on_the_simulator)
{
    if (!simulated()) return;
    setenv("CUDASIM_DEVICES", "4", 1);
    setenv("CUDA_VISIBLE_DEVICES", "2", 1);
    int n = -1;
    ck_assert_int_eq(device_count(&n), ERR_OK);
    ck_assert_int_eq(n, 1);
    DeviceInfo info;
    ck_assert_int_eq(device_info(device_cuda(0), &info), ERR_OK);
    ck_assert_int_eq(info.physical, 2); /* cuda:0 is the machine's GPU 2 */
    Device d;
    ck_assert_int_eq(device_from_string("cuda:1", &d), ERR_DEVICE);
    ck_assert_str_eq(err_message(), "cuda:1 requested but CUDA_VISIBLE_DEVICES=2 shows only 1 "
                                    "device");
    setenv("CUDA_VISIBLE_DEVICES", "", 1);
    ck_assert_int_eq(device_count(&n), ERR_DEVICE);
    ck_assert_ptr_nonnull(strstr(err_message(), "leaves none visible"));
    unsetenv("CUDA_VISIBLE_DEVICES");
    unsetenv("CUDASIM_DEVICES");
}
END_TEST

/* Between two GPUs (two simulated ones; on a machine with two GPUs the same
 * code runs on both). */
START_TEST(test_between_two_devices)
{
    if (!simulated()) return;
    setenv("CUDASIM_DEVICES", "2", 1);
    Tensor *a = tensor_new_1d(50), *g0 = NULL, *g1 = NULL, *back = NULL;
    for (int i = 0; i < 50; i++) tensor_f32(a)[i] = (float)i * 0.5f - 3.0f;
    ck_assert_int_eq(tensor_to(a, device_cuda(0), &g0), ERR_OK);
    ck_assert_msg(tensor_to(g0, device_cuda(1), &g1) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(g1->device.index, 1);
    ck_assert_int_eq(tensor_to(g1, device_cpu(), &back), ERR_OK);
    ck_assert_mem_eq(back->data, a->data, 50 * sizeof(float));
    Rng rng;
    rng_seed(&rng, 5, 0);
    Module *fc = linear_new("fc2", 50, 2, &rng);
    ck_assert_int_eq(module_to(fc, device_cuda(1)), ERR_OK);
    const Tensor *y;
    int64_t shape[2] = {1, 50};
    Tensor *x0 = tensor_new(DTYPE_F32, device_cuda(0), 2, shape);
    ck_assert_int_eq(module_forward(fc, x0, &y), ERR_DEVICE);
    ck_assert_str_eq(err_message(), "Linear fc2: expected all tensors to be on the same device, "
                                    "but found cuda:0 and cuda:1");
    module_free(fc);
    Tensor *all[] = {a, g0, g1, back, x0};
    for (int i = 0; i < 5; i++) tensor_free(all[i]);
    unsetenv("CUDASIM_DEVICES");
}
END_TEST

START_TEST(test_tensor_round_trip_and_counters)
{
    Device g = gpu();
    Tensor *a = tensor_new_2d(37, 5), *on = NULL, *back = NULL;
    for (int i = 0; i < 185; i++) tensor_f32(a)[i] = (float)(i * 13 % 29) - 7.5f;
    counters_reset();
    size_t before = counters_get().mem_in_use;
    ck_assert_int_eq(tensor_to(a, g, &on), ERR_OK);
    ck_assert(device_equal(on->device, g));
    ck_assert_int_eq(on->shape[0], 37);
    ck_assert_int_eq(tensor_to(on, device_cpu(), &back), ERR_OK);
    ck_assert_mem_eq(back->data, a->data, 185 * sizeof(float));
    Counters c = counters_get();
    ck_assert_uint_eq(c.bytes_h2d, 185 * sizeof(float));
    ck_assert_uint_eq(c.bytes_d2h, 185 * sizeof(float));
    ck_assert_uint_eq(c.syncs, 1); /* the copy back waited for the GPU */
    ck_assert_uint_ge(c.mem_in_use, before + 185 * sizeof(float));
    tensor_free(on);
    ck_assert_uint_eq(counters_get().mem_in_use, before);
    ck_assert_uint_ge(counters_get().mem_peak, before + 185 * sizeof(float));
    tensor_free(a);
    tensor_free(back);
}
END_TEST

START_TEST(test_same_device_rule)
{
    Device g = gpu();
    Rng rng;
    rng_seed(&rng, 3, 0);
    Module *fc = linear_new("fc1", 4, 3, &rng);
    ck_assert_int_eq(module_to(fc, g), ERR_OK);
    Tensor *x = tensor_new_2d(2, 4);
    const Tensor *y;
    ck_assert_int_eq(module_forward(fc, x, &y), ERR_DEVICE);
    ck_assert_msg(strstr(err_message(), "Linear fc1: expected all tensors to be on the same "
                                        "device, but found cpu and cuda:0") != NULL,
                  "%s", err_message());
    tensor_free(x);
    module_free(fc);
}
END_TEST

START_TEST(test_out_of_memory_message)
{
    Device g = gpu();
    if (!simulated()) return; /* a real GPU's size varies; the message is the same code */
    int64_t huge[2] = {1 << 20, 1 << 13}; /* 32 GiB of floats: more than the simulator's 16 */
    /* The simulator reports the failed cudaMalloc on stderr, as it reports every misuse:
     * expected here, so it is captured (and checked) rather than printed in a passing run. */
    FILE *cap = tmpfile();
    ck_assert_ptr_nonnull(cap);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(dup2(fileno(cap), STDERR_FILENO), 0);
    Tensor *t = tensor_new(DTYPE_F32, g, 2, huge);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char said[512] = "";
    rewind(cap);
    size_t got = fread(said, 1, sizeof said - 1, cap);
    said[got] = '\0';
    fclose(cap);
    ck_assert_msg(strstr(said, "out of memory") != NULL, "the simulator's report: \"%s\"", said);
    ck_assert_ptr_null(t);
    ck_assert_int_eq(err_code(), ERR_NOMEM);
    ck_assert_msg(strstr(err_message(), "out of memory on cuda:0: asked for 32.00 GiB") != NULL,
                  "%s", err_message());
    ck_assert_ptr_nonnull(strstr(err_message(), "try a smaller batch, gradient accumulation or mixed precision"));
}
END_TEST

typedef struct Run {
    Module *model;
    Loss *loss;
    Optimizer *opt;
    Tensor *x, *y;
} Run;

/* Lesson 01's Iris setup on device d, from seed 42's initial weights. */
static void iris_on(Run *r, Device d, const Dataset *train, const Tensor *x)
{
    Rng rng;
    rng_seed(&rng, 42, 0);
    Module *layers[] = {linear_new("fc1", 4, 10, &rng), relu_new("relu"),
                        linear_new("fc2", 10, 3, &rng)};
    r->model = sequential_new("mlp", 3, layers);
    ck_assert_int_eq(module_to(r->model, d), ERR_OK);
    r->loss = loss_cross_entropy_new();
    r->opt = optim_sgd_new(r->model, 0.01f);
    ck_assert_int_eq(tensor_to(x, d, &r->x), ERR_OK);
    ck_assert_int_eq(tensor_to(train->y, d, &r->y), ERR_OK);
}

static void run_free(Run *r)
{
    optim_free(r->opt);
    loss_free(r->loss);
    module_free(r->model);
    tensor_free(r->x);
    tensor_free(r->y);
}

/* Iris trains on the device to the CPU's losses: within 1e-4 relative at
 * every checkpoint, and the same test accuracy. (All 20000 epochs on a GPU;
 * 2000 on the simulator, which is slow.) */
START_TEST(test_iris_on_the_device_matches_the_cpu)
{
    Device g = gpu();
    long epochs = simulated() ? 2000 : 20000;
    Dataset train, test;
    Tensor *xtr, *xte;
    iris_scaled(&train, &test, &xtr, &xte);
    Run cpu, dev;
    iris_on(&cpu, device_cpu(), &train, xtr);
    iris_on(&dev, g, &train, xtr);
    counters_reset();
    for (long e = 1; e <= epochs; e++) {
        float lc, lg;
        ck_assert_int_eq(train_step(cpu.model, cpu.loss, cpu.opt, cpu.x, cpu.y, &lc), ERR_OK);
        ck_assert_msg(train_step(dev.model, dev.loss, dev.opt, dev.x, dev.y, &lg) == ERR_OK, "%s",
                      err_message());
        if (e % 500 == 0)
            ck_assert_msg(fabsf(lg - lc) <= 1e-4f * fabsf(lc),
                          "epoch %ld: loss %.7f on the device, %.7f on the CPU", e, (double)lg,
                          (double)lc);
    }
    /* Every step read its loss back: one sync each, and nothing else waited. */
    Counters c = counters_get();
    ck_assert_uint_eq(c.syncs, (uint64_t)epochs);
    ck_assert_uint_eq(c.copies_d2h, (uint64_t)epochs);
    ck_assert_uint_eq(c.copies_h2d, 0);
    ck_assert_uint_gt(c.launches, (uint64_t)epochs * 10);
    Tensor *xte_dev, *yte_dev;
    ck_assert_int_eq(tensor_to(xte, g, &xte_dev), ERR_OK);
    ck_assert_int_eq(tensor_to(test.y, g, &yte_dev), ERR_OK);
    float acc_c, acc_g;
    ck_assert_int_eq(train_evaluate(cpu.model, cpu.loss, xte, test.y, NULL, &acc_c), ERR_OK);
    ck_assert_int_eq(train_evaluate(dev.model, dev.loss, xte_dev, yte_dev, NULL, &acc_g), ERR_OK);
    ck_assert_float_eq(acc_g, acc_c);
    tensor_free(xte_dev);
    tensor_free(yte_dev);
    run_free(&cpu);
    run_free(&dev);
    iris_free(&train, &test, xtr, xte);
}
END_TEST

/* Rows gathered and scattered on the device, one launch each, as on the CPU. */
START_TEST(test_copy_rows_on_the_device)
{
    Device g = gpu();
    Tensor *a = tensor_new_2d(9, 4), *part = tensor_new_2d(3, 4), *back = tensor_new_2d(9, 4);
    for (int i = 0; i < 36; i++) tensor_f32(a)[i] = (float)i;
    ck_assert_int_eq(tensor_copy_rows(a, 5, 3, part), ERR_OK);
    Tensor *ga = NULL, *gpart = NULL, *gback = NULL, *got = NULL;
    ck_assert_int_eq(tensor_to(a, g, &ga), ERR_OK);
    gpart = tensor_new(DTYPE_F32, g, 2, (int64_t[]){3, 4});
    gback = tensor_new(DTYPE_F32, g, 2, (int64_t[]){9, 4});
    counters_reset();
    ck_assert_int_eq(tensor_copy_rows(ga, 5, 3, gpart), ERR_OK);
    ck_assert_int_eq(tensor_put_rows(gback, 1, gpart), ERR_OK);
    Counters c = counters_get();
    ck_assert_uint_eq(c.launches, 2);
    ck_assert_uint_eq(c.syncs, 0);
    ck_assert_int_eq(tensor_to(gpart, device_cpu(), &got), ERR_OK);
    ck_assert_mem_eq(got->data, part->data, 12 * sizeof(float));
    tensor_free(got);
    ck_assert_int_eq(tensor_put_rows(back, 1, part), ERR_OK);
    ck_assert_int_eq(tensor_to(gback, device_cpu(), &got), ERR_OK);
    ck_assert_mem_eq(got->data, back->data, 36 * sizeof(float));
    /* Rows past the end, and tensors on two devices, are errors. */
    ck_assert_int_eq(tensor_copy_rows(ga, 7, 3, gpart), ERR_ARG);
    ck_assert_int_eq(tensor_copy_rows(a, 0, 3, gpart), ERR_DEVICE);
    Tensor *all[] = {a, part, back, ga, gpart, gback, got};
    for (int i = 0; i < 7; i++) tensor_free(all[i]);
}
END_TEST

/* What Lesson 03 counts: a launch, a sync, a read of the loss, a free. */
START_TEST(test_what_lesson_03_counts)
{
    Device g = gpu();
    char trace[32];
    counters_reset();
    counters_trace(trace, sizeof trace);
    ck_assert_int_eq(backend_of(g)->empty_kernel(g), ERR_OK);
    timer_now();
    ck_assert_int_eq(device_synchronize(g), ERR_OK);
    ck_assert_int_eq(device_synchronize(device_cpu()), ERR_OK); /* nothing to wait for */
    Tensor *t = tensor_new(DTYPE_F32, g, 1, (int64_t[]){8});
    tensor_free(t); /* cudaFree waits for the GPU */
    counters_trace(NULL, 0);
    ck_assert_str_eq(trace, "LCSS");
    Counters c = counters_get();
    ck_assert_uint_eq(c.launches, 1);
    ck_assert_uint_eq(c.syncs, 2);
    /* loss.item(): a sync on the GPU, only there. */
    Dataset train, test;
    Tensor *xtr, *xte;
    iris_scaled(&train, &test, &xtr, &xte);
    Run dev;
    iris_on(&dev, g, &train, xtr);
    float v = NAN, w = NAN;
    ck_assert_int_eq(loss_item(dev.loss, &v), ERR_ARG); /* no forward yet */
    ck_assert_int_eq(train_step(dev.model, dev.loss, dev.opt, dev.x, dev.y, &w), ERR_OK);
    ck_assert_int_eq(train_step(dev.model, dev.loss, dev.opt, dev.x, dev.y, NULL), ERR_OK);
    counters_reset();
    ck_assert_int_eq(loss_item(dev.loss, &v), ERR_OK);
    ck_assert_uint_eq(counters_get().syncs, 1);
    ck_assert(v < w); /* the second epoch's loss, after one step */
    run_free(&dev);
    iris_free(&train, &test, xtr, xte);
}
END_TEST

/* Lesson 03's timeline: one GPU box per launch, each kernel after the call that queued
 * it, the loss read back as a copy the CPU waits for, everything on one clock. */
START_TEST(test_timeline_of_two_epochs)
{
    Device g = gpu();
    Dataset train, test;
    Tensor *xtr, *xte;
    iris_scaled(&train, &test, &xtr, &xte);
    Run dev;
    iris_on(&dev, g, &train, xtr);
    ck_assert_int_eq(train_step(dev.model, dev.loss, dev.opt, dev.x, dev.y, NULL), ERR_OK);
    enum { CAP = 512 };
    TimelineEvent *ev = calloc(CAP, sizeof *ev);
    ck_assert_ptr_nonnull(ev);
    counters_reset();
    ck_assert_int_eq(timeline_begin(ev, CAP), ERR_OK);
    ck_assert_int_eq(timeline_begin(ev, CAP), ERR_ARG); /* one recording at a time */
    float v = NAN;
    ck_assert_int_eq(train_step(dev.model, dev.loss, dev.opt, dev.x, dev.y, NULL), ERR_OK);
    ck_assert_int_eq(train_step(dev.model, dev.loss, dev.opt, dev.x, dev.y, &v), ERR_OK);
    double before_end = timeline_clock();
    size_t n = 0;
    ck_assert_int_eq(timeline_end(&n), ERR_OK);
    Counters c = counters_get();
    ck_assert_uint_eq(timeline_dropped(), 0);
    size_t launches = 0, memsets = 0, kernels = 0, reads = 0, gpu_copies = 0;
    for (size_t i = 0; i < n; i++) {
        /* (a GPU time may be off by the placement's stated uncertainty) */
        double slack = ev[i].gpu ? timeline_gpu_uncertainty() : 0;
        ck_assert(ev[i].start >= 0 && ev[i].end >= ev[i].start && ev[i].end <= before_end + slack);
        if (!ev[i].gpu && ev[i].kind == TIMELINE_LAUNCH) launches++;
        if (!ev[i].gpu && !strcmp(ev[i].name, "cudaMemsetAsync")) memsets++;
        if (ev[i].gpu && ev[i].kind == TIMELINE_KERNEL) kernels++;
        if (!ev[i].gpu && ev[i].kind == TIMELINE_COPY_D2H) reads++;
        if (ev[i].gpu && ev[i].kind == TIMELINE_COPY_D2H) gpu_copies++;
    }
    ck_assert_uint_gt(launches, 0);
    ck_assert_uint_eq(launches, kernels);  /* every launch has its kernel */
    ck_assert_uint_eq(launches - memsets, c.launches); /* each launch counted is drawn */
    ck_assert_uint_eq(reads, 1);           /* the loss, read once */
    ck_assert_uint_eq(gpu_copies, 1);
    /* The GPU's lane is put on the host's clock through one event, so its times are
     * known to within the time it took to record and wait for that event: a slack of
     * 0.1 ms (a sanitized build on a busy machine takes tens of microseconds). */
    const double slack = 1e-4;
    /* The n-th kernel ran after the n-th launch began (they pair in order). */
    size_t li = 0, ki = 0;
    while (li < n && ki < n) {
        while (li < n && (ev[li].gpu || ev[li].kind != TIMELINE_LAUNCH)) li++;
        while (ki < n && (!ev[ki].gpu || ev[ki].kind != TIMELINE_KERNEL)) ki++;
        if (li == n || ki == n) break;
        ck_assert_str_eq(ev[li].name, ev[ki].name);
        ck_assert_msg(ev[ki].start >= ev[li].start - slack, "kernel %s at %g before its launch at %g",
                      ev[ki].name, ev[ki].start, ev[li].start);
        li++, ki++;
    }
    /* The read waits for the GPU: the CPU's copy ends after every kernel queued before it. */
    const TimelineEvent *cpu_read = NULL, *gpu_read = NULL;
    for (size_t i = 0; i < n; i++)
        if (ev[i].kind == TIMELINE_COPY_D2H) *(ev[i].gpu ? &gpu_read : &cpu_read) = &ev[i];
    ck_assert(cpu_read && gpu_read);
    ck_assert_msg(gpu_read->end <= cpu_read->end + slack, "the GPU's copy ends at %g, after "
                  "the CPU's read at %g", gpu_read->end, cpu_read->end);
    for (size_t i = 0; i < n; i++)
        if (ev[i].gpu && ev[i].kind == TIMELINE_KERNEL && ev[i].start < gpu_read->start)
            ck_assert_msg(ev[i].end <= cpu_read->end + slack, "kernel %s ended after the read",
                          ev[i].name);
    ck_assert_int_eq(timeline_end(&n), ERR_ARG);
    free(ev);
    run_free(&dev);
    iris_free(&train, &test, xtr, xte);
}
END_TEST

/* Pinned memory copied on the copy stream, then used by the compute stream. */
START_TEST(test_copy_beside_compute)
{
    Device g = gpu();
    float *pinned = NULL, *d = NULL, back[64];
    ck_assert_int_eq(backend_of(g)->host_alloc(g, 64 * sizeof(float), (void **)&pinned), ERR_OK);
    for (int i = 0; i < 64; i++) pinned[i] = (float)i - 3.0f;
    ck_assert_int_eq(device_alloc(g, 64 * sizeof(float), (void **)&d), ERR_OK);
    ck_assert_int_eq(backend_of(g)->copy_async(g, d, pinned, 64 * sizeof(float)), ERR_OK);
    ck_assert_int_eq(backend_of(g)->copy_wait(g), ERR_OK);
    ck_assert_int_eq(backend_of(g)->relu_backward(g, d, d, d, 64), ERR_OK); /* keeps the positives */
    ck_assert_int_eq(device_copy(back, device_cpu(), d, g, sizeof back), ERR_OK);
    for (int i = 0; i < 64; i++) ck_assert_float_eq(back[i], i > 3 ? (float)i - 3.0f : 0.0f);
    device_free(g, d, 64 * sizeof(float));
    backend_of(g)->host_free(g, pinned);
}
END_TEST

/* A CUDA Graph keeps what a step worked out on the CPU, so the optimizers whose steps
 * change such numbers (Adam's bias corrections, momentum's first step) refuse to be
 * recorded, and say why; plain SGD records. */
START_TEST(test_graph_refuses_stateful_optimizers)
{
    Device g = gpu();
    Dataset train, test;
    Tensor *xtr, *xte;
    iris_scaled(&train, &test, &xtr, &xte);
    Run r;
    iris_on(&r, g, &train, xtr);
    ck_assert_int_eq(train_step(r.model, r.loss, r.opt, r.x, r.y, NULL), ERR_OK); /* grads */
    Optimizer *stateful[] = {optim_adam_new(r.model, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f),
                             optim_sgd_momentum_new(r.model, 0.01f, 0.9f, 0.0f, false)};
    BackendGraph *graph = NULL;
    ck_assert_int_eq(backend_of(g)->capture_begin(g), ERR_OK);
    ck_assert(backend_of(g)->capturing(g));
    for (int i = 0; i < 2; i++) {
        int64_t step = stateful[i]->step;
        ck_assert_int_eq(optim_step(stateful[i]), ERR_ARG);
        ck_assert_msg(strstr(err_message(), "cannot be recorded in a CUDA Graph") != NULL,
                      "optim_step while recording said: %s", err_message());
        ck_assert_int_eq(stateful[i]->step, step); /* refused before it changed anything */
    }
    ck_assert_int_eq(optim_step(r.opt), ERR_OK); /* plain SGD */
    ck_assert_int_eq(backend_of(g)->capture_end(g, &graph), ERR_OK);
    ck_assert(!backend_of(g)->capturing(g));
    ck_assert_uint_ge(backend_of(g)->graph_nodes(graph), 1);
    ck_assert_int_eq(optim_step(stateful[0]), ERR_OK); /* outside a recording it runs */
    backend_of(g)->graph_free(graph);
    for (int i = 0; i < 2; i++) optim_free(stateful[i]);
    run_free(&r);
    iris_free(&train, &test, xtr, xte);
}
END_TEST

/* One epoch of the trainer on the device: float32 with clipping waits for the GPU once
 * (the epoch's loss, summed there); float16 with a GradScaler once more per step (the
 * overflow flag, as PyTorch's scaler.step). The epoch loss is the CPU's. */
START_TEST(test_trainer_waits_for_the_gpu_once_per_epoch)
{
    Device g = gpu();
    char root[64];
    tmpdir_make(root, sizeof root, "wb-gpu-trainer");
    const char *precision[] = {"float32", "float16"};
    for (int k = 0; k < 2; k++) {
        float loss[2] = {0};
        for (int on_gpu = 0; on_gpu < 2; on_gpu++) {
            ExperimentConfig c;
            experiment_config_default(&c);
            snprintf(c.name, sizeof c.name, "%s-%d", precision[k], on_gpu);
            snprintf(c.device, sizeof c.device, "%s", on_gpu ? "cuda" : "cpu");
            snprintf(c.precision, sizeof c.precision, "%s", precision[k]);
            c.grad_scaler = k == 1;
            c.hidden[0] = 24;
            c.epochs = 2;
            c.batch_size = 64;
            c.clip_norm = 1.0f;
            Experiment *e = NULL;
            ck_assert_msg(experiment_open(&c, root, &e) == ERR_OK, "%s", err_message());
            e->trainer->opts.progress = false;
            EpochStats st;
            ck_assert_msg(trainer_train_epoch(e->trainer, 1, &st) == ERR_OK, "%s", err_message());
            loss[on_gpu] = st.train_loss;
            if (on_gpu) {
                ck_assert(device_equal(e->device, g));
                counters_reset();
                ck_assert_msg(trainer_train_epoch(e->trainer, 2, &st) == ERR_OK, "%s",
                              err_message());
                int64_t steps = loader_batches(e->trainer->train);
                uint64_t want = k == 0 ? 1 : (uint64_t)steps + 1;
                ck_assert_msg(counters_get().syncs == want,
                              "%s: an epoch of %lld steps waited for the GPU %llu times, "
                              "expected %llu", precision[k], (long long)steps,
                              (unsigned long long)counters_get().syncs,
                              (unsigned long long)want);
            }
            experiment_free(e);
        }
        ck_assert_msg(fabsf(loss[1] - loss[0]) <= 1e-4f * fabsf(loss[0]),
                      "%s: epoch 1's loss is %.7g on the GPU and %.7g on the CPU", precision[k],
                      (double)loss[1], (double)loss[0]);
    }
    ck_assert_int_eq(tmpdir_remove(root), 0);
}
END_TEST

START_TEST(test_module_round_trip)
{
    Device g = gpu();
    Rng rng;
    rng_seed(&rng, 9, 0);
    Module *fc = linear_new("fc", 6, 5, &rng);
    float w[30];
    memcpy(w, fc->params[0].value->data, sizeof w);
    ck_assert_int_eq(module_to(fc, g), ERR_OK);
    ck_assert(device_equal(module_device(fc), g));
    ck_assert_int_eq(module_to(fc, device_cpu()), ERR_OK);
    ck_assert_mem_eq(fc->params[0].value->data, w, sizeof w);
    module_free(fc);
}
END_TEST

Suite *gpu_suite(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("lib_on_device");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_device_facts);
    tcase_add_test(tc, test_device_strings);
    tcase_add_test(tc, test_visible_devices_on_the_simulator);
    tcase_add_test(tc, test_tensor_round_trip_and_counters);
    tcase_add_test(tc, test_between_two_devices);
    tcase_add_test(tc, test_same_device_rule);
    tcase_add_test(tc, test_out_of_memory_message);
    tcase_add_test(tc, test_module_round_trip);
    tcase_add_test(tc, test_iris_on_the_device_matches_the_cpu);
    tcase_add_test(tc, test_copy_rows_on_the_device);
    tcase_add_test(tc, test_what_lesson_03_counts);
    tcase_add_test(tc, test_timeline_of_two_epochs);
    tcase_add_test(tc, test_copy_beside_compute);
    tcase_add_test(tc, test_graph_refuses_stateful_optimizers);
    tcase_add_test(tc, test_trainer_waits_for_the_gpu_once_per_epoch);
    suite_add_tcase(s, tc);
    return s;
}
