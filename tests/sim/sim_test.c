/*
 * sim_test.c: what the simulator's tests share (make test, simulator build).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "lib/cudasim/cudasim.h"
#include "tests/sim/sim_kernels.h"
#include "tests/sim/sim_test.h"

void quiet(void)
{
    cudaDeviceReset();
    cudasim_set_report_stream(NULL);
    cudasim_clear_report();
}

void *dev(size_t bytes)
{
    void *p = NULL;
    ck_assert_int_eq(cudaMalloc(&p, bytes), cudaSuccess);
    return p;
}

void report_has(const char *what)
{
    ck_assert_msg(strstr(cudasim_last_report(), what) != NULL,
                  "the simulator's report \"%s\" does not mention \"%s\"", cudasim_last_report(),
                  what);
}

/* Non-uniform data: a missing barrier or a wrong index changes the sums. */
float *ramp(int n)
{
    float *h = malloc((size_t)n * sizeof *h);
    for (int i = 0; i < n; i++) h[i] = (float)((i * 7919) % 1000) * 0.001f + (float)(i % 3);
    return h;
}

/* Run a block-sum kernel on non-uniform data; returns how many of the blocks'
 * sums are wrong. */
float *dev_copy(const float *h, int n)
{
    float *d = dev((size_t)n * sizeof(float));
    ck_assert_int_eq(cudaMemcpy(d, h, (size_t)n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    return d;
}

float *host_copy(const float *d, int n)
{
    float *h = malloc((size_t)n * sizeof(float));
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(cudaMemcpy(h, d, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
}

int wrong_block_sums(cudaError_t (*kernel)(const float *, float *, int), int blocks)
{
    const int n = blocks * 256;
    float *h = ramp(n), *d = dev_copy(h, n), *o = dev(blocks * sizeof(float));
    ck_assert_int_eq(kernel(d, o, blocks), cudaSuccess);
    float *got = host_copy(o, blocks);
    int wrong = 0;
    for (int b = 0; b < blocks; b++) {
        double want = 0;
        for (int i = 0; i < 256; i++) want += h[b * 256 + i];
        wrong += !(fabs(got[b] - want) < 1e-3 * fabs(want));
    }
    free(h);
    free(got);
    return wrong;
}

