/*
 * check_profile.c: the simulator's profiler and time model (make test, the
 * simulator build only).
 *
 * What one warp's access costs (lib/cudasim/profile/warp_access.h), against values
 * worked out by hand for each pattern a course teaches; the profiler's counts
 * of a real launch, which it must see even with the checks off; the time
 * model's clock against the formula of docs/simulator.md with the figures of
 * the GPU's file; a GPU file with a figure missing, refused in one line; and
 * the trace of accesses the grader reads, value by value.
 * (tests/conformance/profile_patterns.cu checks the same counts through
 * CUDASIM_PROFILE's CSV.)
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "lib/cudasim/cudasim.h"
#include "lib/cudasim/profile/warp_access.h"
#include "tests/sim/sim_kernels.h"
#include "tests/sim/sim_suites.h"

/* A warp of 32 lanes, lane t at base + t * step (all lanes when every is 1). */
static unsigned warp(WarpLane *l, uint64_t base, int64_t step, unsigned every)
{
    unsigned n = 0;
    for (unsigned t = 0; t < 32; t += every) {
        l[n].addr = base + (uint64_t)((int64_t)t * step);
        l[n].lane = t;
        n++;
    }
    return n;
}

static void global_is(const char *what, uint64_t base, int64_t step, unsigned size,
                      unsigned every, unsigned sectors, unsigned ideal)
{
    WarpLane l[32];
    unsigned n = warp(l, base, step, every);
    WarpCost c = warp_global_cost(l, n, size, NULL, NULL);
    ck_assert_msg(c.actual == sectors && c.ideal == ideal,
                  "%s: %u sectors, ideal %u; expected %u, ideal %u", what, c.actual, c.ideal,
                  sectors, ideal);
}

static void shared_is(const char *what, const WarpLane *l, unsigned n, unsigned size,
                      unsigned wavefronts, unsigned ideal)
{
    WarpCost c = warp_shared_cost(l, n, size);
    ck_assert_msg(c.actual == wavefronts && c.ideal == ideal,
                  "%s: %u wavefronts, ideal %u; expected %u, ideal %u", what, c.actual, c.ideal,
                  wavefronts, ideal);
}

START_TEST(test_sectors_by_hand)
{
    /* 32 floats: 128 bytes. Aligned and consecutive: 4 sectors of 32 bytes. */
    global_is("coalesced float", 4096, 4, 4, 1, 4, 4);
    global_is("offset by one float", 4100, 4, 4, 1, 5, 4);  /* bytes 4..131: a fifth sector */
    global_is("stride 2", 4096, 8, 4, 1, 8, 4);             /* 256 bytes spanned */
    global_is("stride 32", 4096, 128, 4, 1, 32, 4);         /* a sector each */
    global_is("broadcast", 4096, 0, 4, 1, 1, 1);            /* one float for all */
    global_is("float2", 4096, 8, 8, 1, 8, 8);               /* 256 bytes */
    global_is("float4", 4096, 16, 16, 1, 16, 16);           /* 512 bytes */
    global_is("even lanes only", 4096, 4, 4, 2, 4, 2);      /* 16 floats over 128 bytes */
    global_is("descending", 4096 + 124, -4, 4, 1, 4, 4);    /* order does not matter */
}
END_TEST

START_TEST(test_wavefronts_by_hand)
{
    WarpLane l[32];
    unsigned n = warp(l, 0, 128, 1); /* word 32 t: all in bank 0 */
    shared_is("a column of a [32][32] tile", l, n, 4, 32, 1);
    n = warp(l, 0, 132, 1); /* word 33 t: bank t */
    shared_is("a column of a [32][33] tile", l, n, 4, 1, 1);
    n = warp(l, 0, 4, 1);
    shared_is("a row", l, n, 4, 1, 1);
    n = warp(l, 256, 0, 1);
    shared_is("broadcast", l, n, 4, 1, 1);
    n = warp(l, 0, 8, 1); /* word 2 t: banks 0, 2, ..., 30 twice over */
    shared_is("stride 2 words", l, n, 4, 2, 1);
    for (unsigned t = 0; t < 32; t++) l[t].addr = (t % 4) * 4; /* four words, many lanes each */
    shared_is("multicast", l, 32, 4, 1, 1);
    for (unsigned t = 0; t < 32; t++) l[t].addr = t < 16 ? 0 : 128; /* words 0 and 32: bank 0 */
    shared_is("two words of one bank", l, 32, 4, 2, 1);
    n = warp(l, 0, 8, 1); /* float2 consecutive: each half-warp 128 bytes, one wavefront */
    shared_is("float2", l, n, 8, 2, 2);
    n = warp(l, 0, 16, 1); /* float2 16 bytes apart: in a half-warp lanes t and t + 8 share banks */
    shared_is("float2 at stride 2", l, n, 8, 4, 2);
    n = warp(l, 0, 16, 1); /* float4 consecutive: each quarter-warp 128 bytes */
    shared_is("float4", l, n, 16, 4, 4);
    n = warp(l, 0, 4, 2); /* even lanes, consecutive words: one phase, half the banks */
    shared_is("even lanes", l, n, 4, 1, 1);
}
END_TEST

/* The one-pass costs of lanes whose addresses rise (warp_global_cost_rising,
 * warp_shared_cost's single wavefront) give what sorting gives, over many
 * random warps of the shapes kernels make: a base, a stride (zero, small,
 * large, not a multiple of the size), lanes dropped, neighbours repeated. */
START_TEST(test_one_pass_costs_agree_with_sorting)
{
    static const unsigned sizes[] = {1, 2, 4, 8, 16};
    static const int64_t steps[] = {0, 1, 2, 3, 4, 5, 8, 12, 16, 32, 33, 64, 128, 132, 4096};
    unsigned seed = 12345, checked = 0, ones = 0;
    for (int round = 0; round < 20000; round++) {
        seed = seed * 1103515245u + 12345u;
        unsigned size = sizes[(seed >> 8) % 5];
        int64_t step = steps[(seed >> 12) % 15];
        uint64_t base = (uint64_t)((seed >> 4) % 512);
        WarpLane l[32];
        unsigned n = 0;
        uint64_t a = base;
        for (unsigned t = 0; t < 32; t++) {
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 8 == 0 && round % 2) continue;                /* a lane dropped */
            if (!((seed >> 20) % 8 == 0 && round % 3 == 0)) a += (uint64_t)step; /* else repeated */
            l[n].addr = a;
            l[n].lane = t;
            n++;
        }
        if (!n) continue;
        uint64_t s1[64], s2[64];
        unsigned n1 = 0, n2 = 0;
        WarpCost g1 = warp_global_cost(l, n, size, s1, &n1);
        WarpCost g2 = warp_global_cost_sorting(l, n, size, s2, &n2);
        ck_assert_msg(g1.actual == g2.actual && g1.ideal == g2.ideal && n1 == n2 &&
                          !memcmp(s1, s2, n1 * sizeof s1[0]),
                      "global, size %u step %lld base %llu: %u/%u by one pass, %u/%u by sorting",
                      size, (long long)step, (unsigned long long)base, g1.actual, g1.ideal,
                      g2.actual, g2.ideal);
        WarpCost w1 = warp_shared_cost(l, n, size), w2 = warp_shared_cost_sorting(l, n, size);
        ck_assert_msg(w1.actual == w2.actual && w1.ideal == w2.ideal,
                      "shared, size %u step %lld base %llu: %u/%u by one pass, %u/%u by sorting",
                      size, (long long)step, (unsigned long long)base, w1.actual, w1.ideal,
                      w2.actual, w2.ideal);
        checked++;
        ones += w2.actual == 1 && size <= 4;
    }
    ck_assert_uint_gt(checked, 19000);
    ck_assert_uint_gt(ones, 1000); /* the single-wavefront case was met, often */
}
END_TEST

/* The profiler sees every access with CUDASIM_CHECK=0 (the checks off). */
START_TEST(test_profile_with_the_checks_off)
{
    setenv("CUDASIM_CHECK", "0", 1); /* read at the first launch of this test's process */
    setenv("CUDASIM_GPU", "h100", 1);
    cudasim_set_report_stream(NULL);
    ck_assert_int_eq(cudasim_model_start(), 0);
    int n = 1024, stride = 2;
    float *in = NULL, *out = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&in, (size_t)n * stride * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&out, (size_t)n * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMemset(in, 0, (size_t)n * stride * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(sim_strided_copy(in, out, n, stride), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    CudasimCounters c;
    ck_assert_int_eq(cudasim_profile_last(&c), 0);
    /* 1024 threads, 32 warps: 32 requests each way; stride 2 spans 8 sectors a request */
    ck_assert_msg(c.counted && c.ld_requests == 32 && c.ld_sectors == 256 && c.ld_ideal == 128 &&
                      c.st_requests == 32 && c.st_sectors == 128 && c.st_ideal == 128,
                  "loads %llu requests %llu sectors (ideal %llu), stores %llu %llu (%llu)",
                  c.ld_requests, c.ld_sectors, c.ld_ideal, c.st_requests, c.st_sectors,
                  c.st_ideal);
    /* distinct sectors: 8 KiB read (all of in: every other float, each sector touched), 4 KiB written */
    ck_assert_uint_eq(c.dram_sectors, 256 + 128);
    cudaFree(in);
    cudaFree(out);
}
END_TEST

/* A figure of the GPU's file, in the model's units (seconds, bytes/s). */
static double figure(const char *gpu, const char *field, double scale)
{
    char path[512];
    snprintf(path, sizeof path, "%s/lib/cudasim/profile/gpus/%s.json", WB_ROOT, gpu);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    ck_assert_msg(root, "%s: %s", path, err.text);
    json_t *v = json_object_get(json_object_get(root, field), "value");
    ck_assert_msg(json_is_number(v), "%s: no %s", path, field);
    double x = json_number_value(v) * scale;
    json_decref(root);
    return x;
}

/* The model's clock against docs/simulator.md's formula, with the T4's figures. */
START_TEST(test_model_clock_by_hand)
{
    setenv("CUDASIM_GPU", "t4", 1);
    cudasim_set_report_stream(NULL);
    ck_assert_int_eq(cudasim_model_start(), 0);
    ck_assert_str_eq(cudasim_model_gpu(), "NVIDIA T4");
    double launch = figure("t4", "launch_cpu_us", 1e-6), kmin = figure("t4", "kernel_min_us", 1e-6),
           sync = figure("t4", "sync_us", 1e-6), lat = figure("t4", "copy_latency_us", 1e-6),
           pageable = figure("t4", "pageable_copy_GBps", 1e9);
    ck_assert_msg(launch > kmin, "the test assumes a launch costs the host more than an empty "
                                 "kernel takes the device");
    float *y = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&y, 64 * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMemset(y, 0, 64 * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    double t0 = cudasim_model_seconds();
    /* Ten tiny kernels: the host issues one every launch_cpu, the device keeps up (each
     * takes about kernel_min); the sync waits for the last and costs sync. */
    for (int k = 0; k < 10; k++) ck_assert_int_eq(sim_axpb(y, 1.0f, 1.0f, 64, 0), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    double t = cudasim_model_seconds() - t0, want = 10 * launch + kmin + sync;
    ck_assert_msg(fabs(t - want) < 0.01 * want, "ten launches and a sync: %.3f us, expected %.3f us",
                  t * 1e6, want * 1e6);
    /* A 1 MiB copy from pageable memory: its latency, then its bytes at the bus's pageable rate. */
    size_t bytes = (size_t)1 << 20;
    float *host = calloc(1, bytes), *dev = NULL;
    ck_assert_int_eq(cudaMalloc((void **)&dev, bytes), cudaSuccess);
    t0 = cudasim_model_seconds();
    ck_assert_int_eq(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    t = cudasim_model_seconds() - t0;
    want = lat + (double)bytes / pageable;
    ck_assert_msg(fabs(t - want) < 1e-3 * want, "a 1 MiB pageable copy: %.3f us, expected %.3f us",
                  t * 1e6, want * 1e6);
    free(host);
    cudaFree(dev);
    cudaFree(y);
}
END_TEST

/* A GPU file without a figure's source is refused in one line naming the field. */
START_TEST(test_bad_gpu_file_is_refused)
{
    char path[] = "/tmp/cudasim-gpu-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    char src[512];
    snprintf(src, sizeof src, "%s/lib/cudasim/profile/gpus/t4.json", WB_ROOT);
    json_error_t err;
    json_t *root = json_load_file(src, 0, &err);
    ck_assert(root);
    json_object_del(json_object_get(root, "sms"), "source");
    ck_assert_int_eq(json_dumpfd(root, fd, 0), 0);
    close(fd);
    json_decref(root);
    setenv("CUDASIM_GPU", path, 1);
    cudasim_set_report_stream(NULL);
    ck_assert_int_eq(cudasim_model_start(), -1);
    const char *r = cudasim_last_report();
    ck_assert_msg(strstr(r, path) && strstr(r, "field \"sms\"") && strstr(r, "\"source\""),
                  "the report \"%s\" should name the file, the field and what is missing", r);
    ck_assert_ptr_null(cudasim_model_gpu());
    unlink(path);
}
END_TEST

/* The trace: each access of a launch, in order, with its thread and its value. */
START_TEST(test_trace_has_each_access_and_value)
{
    cudasim_set_report_stream(NULL);
    float h[64], *y = NULL;
    for (int i = 0; i < 64; i++) h[i] = (float)i;
    ck_assert_int_eq(cudaMalloc((void **)&y, sizeof h), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(y, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
    cudasim_trace_start();
    ck_assert_int_eq(sim_axpb(y, 2.0f, 1.0f, 64, 0), cudaSuccess); /* y = 2 y + 1 */
    cudasim_trace_stop();
    size_t nw = 0;
    const uint32_t *w = cudasim_trace_words(&nw);
    ck_assert_uint_eq(nw, 2 * 64 * CUDASIM_TRACE_WORDS); /* a load and a store per thread */
    int loads = 0, stores = 0;
    for (size_t i = 0; i < nw; i += CUDASIM_TRACE_WORDS) {
        unsigned kind = w[i + 4] & 0xf, size = (w[i + 4] >> 8) & 0xff, tid = w[i + 2];
        uint64_t addr = (uint64_t)w[i + 5] | (uint64_t)w[i + 6] << 32;
        float v;
        memcpy(&v, &w[i + 8], sizeof v);
        ck_assert_uint_eq(size, 4);
        ck_assert_uint_eq((w[i + 4] >> 4) & 1, 0); /* global memory */
        ck_assert_uint_eq(addr, (uint64_t)(uintptr_t)(y + tid));
        if (kind == 0) {
            loads++;
            ck_assert_float_eq(v, (float)tid);
        } else {
            stores++;
            ck_assert_uint_eq(kind, 1);
            ck_assert_float_eq(v, 2.0f * (float)tid + 1.0f);
        }
    }
    ck_assert_int_eq(loads, 64);
    ck_assert_int_eq(stores, 64);
    cudaFree(y);
}
END_TEST

Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("profile");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sectors_by_hand);
    tcase_add_test(tc, test_wavefronts_by_hand);
    tcase_add_test(tc, test_one_pass_costs_agree_with_sorting);
    tcase_add_test(tc, test_profile_with_the_checks_off);
    tcase_add_test(tc, test_model_clock_by_hand);
    tcase_add_test(tc, test_bad_gpu_file_is_refused);
    tcase_add_test(tc, test_trace_has_each_access_and_value);
    suite_add_tcase(s, tc);
    return s;
}
