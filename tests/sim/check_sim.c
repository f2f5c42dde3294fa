/*
 * check_sim.c: the CUDA simulator against what CUDA specifies, and the bugs
 * it must report (make test, simulator build only).
 *
 * Each planted bug must be caught by the test that plants it: a missing
 * barrier (fed non-uniform data, so the result changes), a write one element
 * past the end, a barrier some threads never reach; each report must name the
 * kernel, the block and the thread (or threads). CUDA Graphs: a captured
 * epoch replayed must give what running it directly gives, and each call that
 * breaks a rule of stream capture must fail and invalidate the capture.
 * Host code that touches device memory must die, as on a GPU, with a message
 * that says so, while every device operation still reaches it.
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
#include "tests/sim/sim_suites.h"

static void quiet(void)
{
    cudaDeviceReset();
    cudasim_set_report_stream(NULL);
    cudasim_clear_report();
}

static void *dev(size_t bytes)
{
    void *p = NULL;
    ck_assert_int_eq(cudaMalloc(&p, bytes), cudaSuccess);
    return p;
}

static void report_has(const char *what)
{
    ck_assert_msg(strstr(cudasim_last_report(), what) != NULL,
                  "the simulator's report \"%s\" does not mention \"%s\"", cudasim_last_report(),
                  what);
}

/* Non-uniform data: a missing barrier or a wrong index changes the sums. */
static float *ramp(int n)
{
    float *h = malloc((size_t)n * sizeof *h);
    for (int i = 0; i < n; i++) h[i] = (float)((i * 7919) % 1000) * 0.001f + (float)(i % 3);
    return h;
}

START_TEST(test_device_properties)
{
    quiet();
    int n = 0;
    ck_assert_int_eq(cudaGetDeviceCount(&n), cudaSuccess);
    ck_assert_int_ge(n, 1);
    cudaDeviceProp p;
    ck_assert_int_eq(cudaGetDeviceProperties(&p, 0), cudaSuccess);
    ck_assert_str_eq(p.name, "CUDA simulator (CPU)");
    ck_assert_int_eq(p.warpSize, 32);
    ck_assert_int_eq(p.maxThreadsPerBlock, 1024);
    ck_assert_int_eq(cudaSetDevice(n), cudaErrorInvalidDevice);
    ck_assert_str_eq(cudaGetErrorString(cudaErrorInvalidDevice), "invalid device ordinal");
    ck_assert_int_eq(cudaGetLastError(), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    size_t free_b, total_b;
    ck_assert_int_eq(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    void *p1 = dev(1 << 20);
    size_t free_after;
    ck_assert_int_eq(cudaMemGetInfo(&free_after, &total_b), cudaSuccess);
    ck_assert_uint_eq(free_b - free_after, 1 << 20);
    cudaFree(p1);
}
END_TEST

/* Run a block-sum kernel on non-uniform data; returns how many of the blocks'
 * sums are wrong. */
static int wrong_block_sums(cudaError_t (*kernel)(const float *, float *, int), int blocks)
{
    const int n = blocks * 256;
    float *h = ramp(n), *d = dev(n * sizeof(float)), *o = dev(blocks * sizeof(float));
    float *got = malloc(blocks * sizeof(float));
    cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
    ck_assert_int_eq(kernel(d, o, blocks), cudaSuccess);
    cudaMemcpy(got, o, blocks * sizeof(float), cudaMemcpyDeviceToHost);
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

START_TEST(test_block_sums_with_barriers_and_shuffles)
{
    quiet();
    ck_assert_int_eq(wrong_block_sums(sim_block_sums, 5), 0);
}
END_TEST

START_TEST(test_missing_barrier_changes_the_result)
{
    quiet();
    /* Shared memory starts as garbage (NaN) in every block, and in the blocks
     * that run their threads first to last, the thread that reads s[t + 128]
     * runs before the one that writes it: those blocks are wrong. (Blocks that
     * run last to first catch the opposite bug, reading s[t - 1].) */
    ck_assert_int_ge(wrong_block_sums(sim_block_sums_missing_barrier, 4), 2);
}
END_TEST

START_TEST(test_off_by_one_write_is_reported)
{
    quiet();
    const int n = 300; /* 3 blocks of 128; thread 44 of block 2 is index 300 */
    float *h = ramp(n), *x = dev(n * sizeof(float)), *y = dev(n * sizeof(float));
    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
    sim_double_off_by_one(x, y, n, 0);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    report_has("kernel double_off_by_one, block (2,0,0), thread (44,0,0)");
    report_has("0 bytes past the end of a 1200-byte cudaMalloc buffer");
    /* Like CUDA, the error is sticky until the device is reset. */
    void *p;
    ck_assert_int_eq(cudaMalloc(&p, 16), cudaErrorIllegalAddress);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
    ck_assert_int_eq(cudaMalloc(&p, 16), cudaSuccess);
    free(h);
}
END_TEST

START_TEST(test_off_by_one_inside_a_fiber_is_reported)
{
    quiet();
    const int blocks = 4;
    float *h = ramp(blocks * 64), *x = dev(blocks * 64 * sizeof(float));
    float *o = dev(blocks * sizeof(float));
    cudaMemcpy(x, h, blocks * 64 * sizeof(float), cudaMemcpyHostToDevice);
    ck_assert_int_eq(sim_fiber_overflow(x, o, blocks), cudaErrorIllegalAddress);
    report_has("kernel fiber_overflow, block (3,0,0), thread (0,0,0)");
    free(h);
}
END_TEST

/* Every thread past n faults; blocks run their threads last to first or first to last
 * (by turns), and either way the report names the first thread, then counts the
 * others: as plain calls, and as fibers after a barrier. */
START_TEST(test_the_first_faulting_thread_is_named)
{
    for (int fibers = 0; fibers < 2; fibers++)
        for (int turn = 0; turn < 2; turn++) {
            quiet();
            const int n = 100;
            float *y = dev(n * sizeof(float));
            (void)sim_no_bounds_test(y, n, 128, fibers); /* (the launch's own error) */
            ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
            report_has(fibers ? "kernel no_bounds_test_fibers, block (0,0,0), thread (100,0,0) at "
                                "tests/sim/sim_kernels.cu:"
                              : "kernel no_bounds_test, block (0,0,0), thread (100,0,0) at "
                                "tests/sim/sim_kernels.cu:");
            report_has(" (and 27 more threads of this block): address ");
            report_has("is out of bounds: 0 bytes past the end of a 400-byte cudaMalloc buffer");
        }
}
END_TEST

/* A report follows what the program printed before it, also where standard output and
 * standard error go to one file (`prog > log 2>&1`: standard output is then buffered). */
START_TEST(test_a_report_follows_what_was_printed)
{
    quiet();
    char path[] = "/tmp/wb-sim-order-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    unlink(path);
    fflush(stdout);
    fflush(stderr);
    int out = dup(1), err = dup(2);
    ck_assert(out >= 0 && err >= 0 && dup2(fd, 1) >= 0 && dup2(fd, 2) >= 0);
    static char buf[1 << 12];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    cudasim_set_report_stream(stderr);
    float *y = dev(4 * sizeof(float));
    printf("before the report\n");
    cudaError_t launched = sim_no_bounds_test(y, 4, 32, 0), synced = cudaDeviceSynchronize();
    printf("after the report\n");
    fflush(stdout);
    cudasim_set_report_stream(NULL);
    dup2(out, 1);
    dup2(err, 2);
    close(out);
    close(err);
    setvbuf(stdout, NULL, _IOLBF, 0);
    char text[1024] = "";
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    close(fd);
    ck_assert_int_gt(got, 0);
    text[got] = '\0';
    ck_assert_int_eq(launched, cudaErrorIllegalAddress); /* (a launch runs at once here) */
    ck_assert_int_eq(synced, cudaErrorIllegalAddress);
    cudaDeviceReset();
    const char *before = strstr(text, "before the report"), *report = strstr(text, "cudasim: ");
    const char *after = strstr(text, "after the report");
    ck_assert_msg(before && report && after && before < report && report < after,
                  "the report is out of place in what was written: \"%s\"", text);
}
END_TEST

START_TEST(test_race_with_the_lower_neighbour_shows)
{
    quiet();
    const int blocks = 4, n = blocks * 64;
    float *h = ramp(n), *x = dev(n * sizeof(float)), *y = dev(n * sizeof(float));
    float *got = malloc(n * sizeof(float));
    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
    ck_assert_int_eq(sim_race_lower(x, y, blocks), cudaSuccess);
    cudaMemcpy(got, y, n * sizeof(float), cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += got[i] != h[i % 64 ? i - 1 : i];
    /* Blocks that run their threads last to first read the fill, not x. */
    ck_assert_int_ge(wrong, 2 * 63);
    free(h);
    free(got);
}
END_TEST

START_TEST(test_write_before_the_start_is_reported)
{
    quiet();
    float *y = dev(32 * sizeof(float));
    sim_write_before(y);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    report_has("Invalid __global__ write of size 4 bytes in kernel write_before, block (0,0,0), "
               "thread (0,0,0) at tests/sim/sim_kernels.cu:");
    report_has("is out of bounds: 4 bytes before the start of a 128-byte cudaMalloc buffer");
}
END_TEST

START_TEST(test_divergent_barrier_is_reported)
{
    quiet();
    float *x = dev(64 * sizeof(float));
    cudaMemset(x, 0, 64 * sizeof(float));
    ck_assert_int_eq(sim_divergent_barrier(x, 64), cudaErrorLaunchFailure);
    report_has("kernel divergent_barrier, block (0,0,0)");
    report_has("reached by threads 0-31 of 64, but threads 32-63 returned");
    report_has("tests/sim/sim_kernels.cu:");
}
END_TEST

START_TEST(test_dynamic_shared_memory)
{
    quiet();
    const int blocks = 3, n = blocks * 128;
    float *h = ramp(n), *x = dev(n * sizeof(float)), *y = dev(n * sizeof(float));
    float *got = malloc(n * sizeof(float));
    cudaMemcpy(x, h, n * sizeof(float), cudaMemcpyHostToDevice);
    ck_assert_int_eq(sim_reverse_blocks(x, y, blocks, 0), cudaSuccess);
    cudaMemcpy(got, y, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++)
        for (int t = 0; t < 128; t++)
            ck_assert_float_eq(got[b * 128 + t], h[b * 128 + 127 - t]);
    free(h);
    free(got);
}
END_TEST

START_TEST(test_3d_coordinates)
{
    quiet();
    dim3 grid = {3, 2, 2}, block = {4, 3, 2};
    int threads = 3 * 2 * 2 * 4 * 3 * 2;
    unsigned *d = dev(threads * 12 * sizeof(unsigned));
    unsigned *h = malloc(threads * 12 * sizeof(unsigned));
    ck_assert_int_eq(sim_coordinates(d, grid, block), cudaSuccess);
    cudaMemcpy(h, d, threads * 12 * sizeof(unsigned), cudaMemcpyDeviceToHost);
    int k = 0;
    for (unsigned bz = 0; bz < 2; bz++)
        for (unsigned by = 0; by < 2; by++)
            for (unsigned bx = 0; bx < 3; bx++)
                for (unsigned tz = 0; tz < 2; tz++)
                    for (unsigned ty = 0; ty < 3; ty++)
                        for (unsigned tx = 0; tx < 4; tx++, k++) {
                            const unsigned want[12] = {tx, ty, tz, bx, by, bz, 4, 3, 2, 3, 2, 2};
                            for (int c = 0; c < 12; c++)
                                ck_assert_msg(h[12 * k + c] == want[c],
                                              "thread %d field %d: %u, expected %u", k, c,
                                              h[12 * k + c], want[c]);
                        }
    free(h);
}
END_TEST

START_TEST(test_atomics)
{
    quiet();
    int *count = dev(sizeof(int)), n = 1000, c;
    float *sum = dev(sizeof(float)), s;
    cudaMemset(count, 0, sizeof(int));
    cudaMemset(sum, 0, sizeof(float));
    ck_assert_int_eq(sim_atomics(count, sum, n), cudaSuccess);
    cudaMemcpy(&c, count, sizeof c, cudaMemcpyDeviceToHost);
    cudaMemcpy(&s, sum, sizeof s, cudaMemcpyDeviceToHost);
    ck_assert_int_eq(c, n);
    ck_assert_float_eq_tol(s, 499500.0f, 1.0f);
}
END_TEST

START_TEST(test_warp_operations)
{
    quiet();
    int in[64], out[64 * 8];
    for (int t = 0; t < 64; t++) in[t] = (t * 5 + 2) % 23; /* one of them is 7 */
    int *din = dev(sizeof in), *dout = dev(sizeof out);
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    ck_assert_int_eq(sim_warp_ops(din, dout), cudaSuccess);
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 64; t++) {
        int lane = t % 32, base = t - lane;
        int up = lane >= 3 ? in[t - 3] : in[t];
        int seg = lane & ~15, down = lane + 3 < seg + 16 ? in[t + 3] : in[t];
        unsigned ballot = 0;
        int any = 0, all = 1;
        for (int l = 0; l < 32; l++) {
            ballot |= (unsigned)(in[base + l] % 3 == 0) << l;
            any |= in[base + l] == 7;
            all &= in[base + l] >= 0;
        }
        const int want[8] = {in[base + 5], up, down, in[base + (lane ^ 1)], (int)ballot, any,
                             all, 1};
        for (int k = 0; k < 8; k++)
            ck_assert_msg(out[8 * t + k] == want[k], "thread %d, operation %d: %d, expected %d", t,
                          k, out[8 * t + k], want[k]);
    }
}
END_TEST

START_TEST(test_half_warp_groups)
{
    quiet();
    int in[32], out[32];
    for (int l = 0; l < 32; l++) in[l] = l * 3 + 1;
    int *din = dev(sizeof in), *dout = dev(sizeof out);
    cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
    ck_assert_msg(sim_half_warps(din, dout) == cudaSuccess, "%s", cudasim_last_report());
    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
    int after_xor[32];
    for (int l = 0; l < 32; l++) after_xor[l] = in[l ^ 8];
    for (int l = 0; l < 32; l++)
        ck_assert_msg(out[l] == after_xor[l] + after_xor[20], "lane %d: %d, expected %d", l, out[l],
                      after_xor[l] + after_xor[20]);
}
END_TEST

START_TEST(test_shared_memory_opt_in)
{
    quiet();
    float *x = dev(64 * sizeof(float)), h[64];
    /* 4 KiB static + 100 KiB dynamic: refused without the opt-in, allowed with it. */
    ck_assert_int_eq(sim_static_and_dynamic(x, 100 * 1024, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(sim_static_and_dynamic(x, 100 * 1024, 1), cudaSuccess);
    cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 64; i++) ck_assert_float_eq(h[i], 3.0f);
}
END_TEST

START_TEST(test_launch_limits)
{
    quiet();
    float *x = dev(sizeof(float));
    dim3 one = {1, 1, 1}, big = {1025, 1, 1}, deep = {1, 1, 65}, ok = {32, 32, 1};
    ck_assert_int_eq(sim_launch_config(x, one, big, 0, 0), cudaErrorInvalidConfiguration);
    report_has("a block of 1025 threads");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorInvalidConfiguration),
                     "invalid configuration argument");
    /* The wrapper's cudaGetLastError took the error; like CUDA, it is not sticky. */
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
    ck_assert_int_eq(sim_launch_config(x, one, deep, 0, 0), cudaErrorInvalidConfiguration);
    ck_assert_int_eq(sim_launch_config(x, one, ok, 0, 0), cudaSuccess);
    ck_assert_int_eq(sim_launch_config(x, one, one, 64 * 1024, 0), cudaErrorInvalidValue);
    report_has("65536 bytes of dynamic shared memory");
    cudaGetLastError();
    ck_assert_int_eq(sim_allow_shared(64 * 1024), cudaSuccess);
    ck_assert_int_eq(sim_launch_config(x, one, one, 64 * 1024, 0), cudaSuccess);
    ck_assert_int_eq(sim_too_much_shared(x), cudaErrorLaunchOutOfResources);
    report_has("kernel too_much_shared");
    report_has("65536 bytes");
}
END_TEST

START_TEST(test_copy_kinds_are_checked)
{
    quiet();
    float host[16] = {0}, *d = dev(sizeof host);
    ck_assert_int_eq(cudaMemcpy(host, d, sizeof host, cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    report_has("the destination is host memory and the source is device memory");
    cudaGetLastError();
    ck_assert_int_eq(cudaMemcpy(d, host, sizeof host + 4, cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    report_has("68 bytes from the destination pointer, but the device buffer has only 64");
    cudaGetLastError();
    ck_assert_int_eq(cudaMemcpy(d, host, sizeof host, cudaMemcpyDefault), cudaSuccess);
    ck_assert_int_eq(cudaMemset(host, 0, 4), cudaErrorInvalidValue);
    cudaGetLastError();
    ck_assert_int_eq(cudaFree(host), cudaErrorInvalidValue);
    cudaGetLastError();
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaErrorInvalidValue);
    report_has("freed twice");
}
END_TEST

START_TEST(test_streams_and_events)
{
    quiet();
    cudaStream_t s;
    cudaEvent_t a, b;
    float ms = -1, *x = dev(64);
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&a), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&b), cudaSuccess);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    ck_assert_int_eq(cudaEventRecord(a, s), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(x, 0, 64, s), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(b, s), cudaSuccess);
    ck_assert_int_eq(cudaEventSynchronize(b), cudaSuccess);
    ck_assert_int_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    ck_assert(ms >= 0.0f);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    cudaEventDestroy(a);
    cudaEventDestroy(b);
}
END_TEST

START_TEST(test_cublas_sgemm)
{
    quiet();
    /* C (5, 4) = A^T B with A (3, 5), B (3, 4), column-major, lda = 4 (padded). */
    const int m = 5, n = 4, k = 3, lda = 4;
    float A[4 * 5], B[3 * 4], C[5 * 4], want[5 * 4];
    for (int i = 0; i < 20; i++) A[i] = (float)(i % 7) - 2.5f;
    for (int i = 0; i < 12; i++) B[i] = (float)(i * i % 5) * 0.5f;
    for (int i = 0; i < 20; i++) C[i] = 1.0f;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int p = 0; p < k; p++) s += A[p + i * lda] * B[p + j * k];
            want[i + j * m] = (float)(2.0 * s + 0.5);
        }
    float *dA = dev(sizeof A), *dB = dev(sizeof B), *dC = dev(sizeof C);
    cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice);
    cudaMemcpy(dC, C, sizeof C, cudaMemcpyHostToDevice);
    cublasHandle_t h;
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    const float alpha = 2.0f, beta = 0.5f;
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, dA, lda, dB, k,
                                 &beta, dC, m),
                     CUBLAS_STATUS_SUCCESS);
    cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 20; i++) ck_assert_float_eq_tol(C[i], want[i], 1e-4f);
    /* Host pointers are refused, as cuBLAS cannot read them. */
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, A, lda, dB, k,
                                 &beta, dC, m),
                     CUBLAS_STATUS_INVALID_VALUE);
    report_has("A is not a device buffer");
    cublasDestroy(h);
}
END_TEST

START_TEST(test_no_device)
{
    quiet();
    setenv("CUDASIM_DEVICES", "0", 1);
    int n = -1;
    ck_assert_int_eq(cudaGetDeviceCount(&n), cudaErrorNoDevice);
    ck_assert_int_eq(n, 0);
    ck_assert_str_eq(cudaGetErrorString(cudaErrorNoDevice), "no CUDA-capable device is detected");
    unsetenv("CUDASIM_DEVICES");
}
END_TEST

/* ---- CUDA Graphs: stream capture and replay ------------------------------- */

enum { kN = 384, kRows = 16, kInner = 24, kCols = 4, kState = 2 * kN + 2 * kRows * kCols };

/* The buffers of a small training-like epoch, and where their contents go. */
struct Epoch {
    float *x, *y, *w, *c; /* device: kN, kN, kInner x kCols, kRows x kCols */
    float *out;           /* host: c copied back, kRows x kCols */
    cublasHandle_t blas;
    cudaStream_t stream;
};

static void epoch_setup(struct Epoch *e)
{
    e->x = dev(kN * sizeof(float));
    e->y = dev(kN * sizeof(float));
    e->w = dev(kInner * kCols * sizeof(float));
    e->c = dev(kRows * kCols * sizeof(float));
    e->out = calloc(kRows * kCols, sizeof(float));
    ck_assert_int_eq(cudaStreamCreate(&e->stream), cudaSuccess);
    ck_assert_int_eq(cublasCreate(&e->blas), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSetStream(e->blas, e->stream), CUBLAS_STATUS_SUCCESS);
}

static void epoch_teardown(struct Epoch *e)
{
    free(e->out);
    cublasDestroy(e->blas);
    ck_assert_int_eq(cudaStreamDestroy(e->stream), cudaSuccess);
}

/* The same non-uniform starting values every time. */
static void epoch_inputs(struct Epoch *e)
{
    float *h = ramp(kN);
    ck_assert_int_eq(cudaMemcpy(e->x, h, kN * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(e->y, h, kN * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(e->w, h + 7, kInner * kCols * sizeof(float),
                                cudaMemcpyHostToDevice),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(e->c, h + 11, kRows * kCols * sizeof(float),
                                cudaMemcpyHostToDevice),
                     cudaSuccess);
    memset(e->out, 0, kRows * kCols * sizeof(float));
    free(h);
}

/* x, y, c and out, side by side. */
static void epoch_state(const struct Epoch *e, float *state)
{
    cudaMemcpy(state, e->x, kN * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(state + kN, e->y, kN * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(state + 2 * kN, e->c, kRows * kCols * sizeof(float), cudaMemcpyDeviceToHost);
    memcpy(state + 2 * kN + kRows * kCols, e->out, kRows * kCols * sizeof(float));
}

/* One epoch: the kinds of work lib's GPU backend captures, on one stream. A
 * memset, x = 2x + 1, y = x reversed per block of 128 (two blocks; barriers
 * and dynamic shared memory), c += 0.5 y w (y as a 16 x 24 matrix), c += 0.25,
 * and c copied to the host. Each step depends on the ones before, and x and c
 * on every earlier epoch. */
static void epoch_run(const struct Epoch *e)
{
    const float alpha = 0.5f, beta = 1.0f;
    ck_assert_int_eq(cudaMemsetAsync(e->y, 0, kN * sizeof(float), e->stream), cudaSuccess);
    ck_assert_int_eq(sim_axpb(e->x, 2.0f, 1.0f, kN, e->stream), cudaSuccess);
    ck_assert_int_eq(sim_reverse_blocks(e->x, e->y, 2, e->stream), cudaSuccess);
    ck_assert_int_eq(cublasSgemm(e->blas, CUBLAS_OP_N, CUBLAS_OP_N, kRows, kCols, kInner, &alpha,
                                 e->y, kRows, e->w, kInner, &beta, e->c, kRows),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(sim_axpb(e->c, 1.0f, 0.25f, kRows * kCols, e->stream), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(e->out, e->c, kRows * kCols * sizeof(float),
                                     cudaMemcpyDeviceToHost, e->stream),
                     cudaSuccess);
}

static enum cudaStreamCaptureStatus capture_status(cudaStream_t s)
{
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusInvalidated;
    ck_assert_int_eq(cudaStreamIsCapturing(s, &status), cudaSuccess);
    return status;
}

START_TEST(test_graph_replays_an_epoch)
{
    quiet();
    struct Epoch e;
    epoch_setup(&e);
    float want[kState], before[kState], got[kState];

    /* What three epochs give when run directly. */
    epoch_inputs(&e);
    for (int i = 0; i < 3; i++) epoch_run(&e);
    ck_assert_int_eq(cudaStreamSynchronize(e.stream), cudaSuccess);
    epoch_state(&e, want);

    epoch_inputs(&e);
    epoch_state(&e, before);
    unsigned long long launches = cudasim_launch_count();
    cudaGraph_t graph = NULL;
    ck_assert_int_eq(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(capture_status(e.stream), cudaStreamCaptureStatusActive);
    epoch_run(&e);
    ck_assert_int_eq(cudaStreamEndCapture(e.stream, &graph), cudaSuccess);
    ck_assert_ptr_nonnull(graph);
    ck_assert_int_eq(capture_status(e.stream), cudaStreamCaptureStatusNone);

    /* Nothing ran: the work was recorded. */
    ck_assert_uint_eq(cudasim_launch_count(), launches);
    epoch_state(&e, got);
    ck_assert_msg(memcmp(got, before, sizeof got) == 0, "the capture changed the data");

    /* Six nodes, as cudaGraphGetNodes documents: NULL after the last. */
    size_t count = 0;
    ck_assert_int_eq(cudaGraphGetNodes(graph, NULL, &count), cudaSuccess);
    ck_assert_uint_eq(count, 6);
    cudaGraphNode_t nodes[8];
    count = 8;
    ck_assert_int_eq(cudaGraphGetNodes(graph, nodes, &count), cudaSuccess);
    ck_assert_uint_eq(count, 6);
    for (int i = 0; i < 8; i++) {
        if (i >= 6) {
            ck_assert_ptr_null(nodes[i]);
            continue;
        }
        ck_assert_ptr_nonnull(nodes[i]);
        for (int j = 0; j < i; j++) ck_assert_ptr_ne(nodes[i], nodes[j]);
    }

    cudaGraphExec_t exec = NULL;
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    /* The instance is a copy: the graph may go first. */
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    for (int i = 0; i < 3; i++) ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(e.stream), cudaSuccess);
    ck_assert_uint_eq(cudasim_launch_count(), launches + 3 * 3);
    epoch_state(&e, got);
    for (int i = 0; i < kState; i++)
        ck_assert_msg(got[i] == want[i], "value %d after 3 replays: %g, run directly: %g", i,
                      (double)got[i], (double)want[i]);
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);
    epoch_teardown(&e);
}
END_TEST

START_TEST(test_graph_arguments_are_frozen)
{
    quiet();
    struct Epoch e;
    epoch_setup(&e);
    epoch_inputs(&e);
    float *h = ramp(kN), *z = dev(kN * sizeof(float));
    float a = 3.0f, alpha = 2.0f, beta = 0.0f;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    ck_assert_int_eq(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(sim_axpb(e.x, a, 0.0f, kN, e.stream), cudaSuccess);
    ck_assert_int_eq(cublasSgemm(e.blas, CUBLAS_OP_N, CUBLAS_OP_N, kRows, kCols, kInner, &alpha,
                                 e.x, kRows, e.w, kInner, &beta, e.c, kRows),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cudaStreamEndCapture(e.stream, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);

    /* New values in the variables, and a launch that reuses the stack where
     * the captured launch kept its arguments. */
    a = 100.0f, alpha = -7.0f, beta = 5.0f;
    ck_assert_int_eq(sim_axpb(z, a, 7.0f, kN, e.stream), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaSuccess);

    float x[kN], c[kRows * kCols], w[kInner * kCols];
    cudaMemcpy(x, e.x, sizeof x, cudaMemcpyDeviceToHost);
    cudaMemcpy(c, e.c, sizeof c, cudaMemcpyDeviceToHost);
    cudaMemcpy(w, e.w, sizeof w, cudaMemcpyDeviceToHost);
    for (int i = 0; i < kN; i++) ck_assert_float_eq(x[i], 3.0f * h[i]);
    for (int j = 0; j < kCols; j++)
        for (int i = 0; i < kRows; i++) {
            double want = 0;
            for (int p = 0; p < kInner; p++) want += 2.0 * x[i + p * kRows] * w[p + j * kInner];
            ck_assert_float_eq_tol(c[i + j * kRows], (float)want, 1e-3f * (float)fabs(want));
        }
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);
    free(h);
    epoch_teardown(&e);
}
END_TEST

/* What the calls that break a rule of stream capture (kViolations) use; the
 * capture is on stream. */
struct Violation {
    cudaStream_t stream;
    cudaEvent_t event;
    float *x;
    void *spare;
};

static cudaError_t v_device_synchronize(struct Violation *v)
{
    (void)v;
    return cudaDeviceSynchronize();
}
static cudaError_t v_stream_synchronize(struct Violation *v)
{
    return cudaStreamSynchronize(v->stream);
}
static cudaError_t v_stream_query(struct Violation *v) { return cudaStreamQuery(v->stream); }
static cudaError_t v_memcpy(struct Violation *v)
{
    float one = 1.0f;
    return cudaMemcpy(v->x, &one, sizeof one, cudaMemcpyHostToDevice);
}
static cudaError_t v_memset(struct Violation *v) { return cudaMemset(v->x, 0, 4); }
static cudaError_t v_malloc(struct Violation *v)
{
    (void)v;
    void *p = NULL;
    return cudaMalloc(&p, 64);
}
static cudaError_t v_free(struct Violation *v) { return cudaFree(v->spare); }
static cudaError_t v_legacy_launch(struct Violation *v) { return sim_axpb(v->x, 1.0f, 0.0f, 4, 0); }
static cudaError_t v_event_query(struct Violation *v)
{
    ck_assert_int_eq(cudaEventRecord(v->event, v->stream), cudaSuccess);
    return cudaEventQuery(v->event);
}
static cudaError_t v_wait_outside_event(struct Violation *v)
{
    return cudaStreamWaitEvent(v->stream, v->event, 0); /* recorded before the capture */
}
static cudaError_t v_bad_launch(struct Violation *v)
{
    dim3 one = {1, 1, 1}, big = {1025, 1, 1};
    return sim_launch_config(v->x, one, big, 0, v->stream);
}
static cudaError_t v_memset_host(struct Violation *v)
{
    static float host[4];
    return cudaMemsetAsync(host, 0, sizeof host, v->stream);
}

static const struct {
    const char *call; /* what the reports must name */
    cudaError_t (*run)(struct Violation *);
    cudaError_t want;
} kViolations[] = {
    {"cudaDeviceSynchronize", v_device_synchronize, cudaErrorStreamCaptureUnsupported},
    {"cudaStreamSynchronize", v_stream_synchronize, cudaErrorStreamCaptureUnsupported},
    {"cudaStreamQuery", v_stream_query, cudaErrorStreamCaptureUnsupported},
    {"cudaMemcpy", v_memcpy, cudaErrorStreamCaptureImplicit},
    {"cudaMemset", v_memset, cudaErrorStreamCaptureImplicit},
    {"cudaMalloc", v_malloc, cudaErrorStreamCaptureUnsupported},
    {"cudaFree", v_free, cudaErrorStreamCaptureUnsupported},
    {"kernel axpb", v_legacy_launch, cudaErrorStreamCaptureImplicit},
    {"cudaEventQuery", v_event_query, cudaErrorCapturedEvent},
    {"cudaStreamWaitEvent", v_wait_outside_event, cudaErrorStreamCaptureIsolation},
    {"kernel trivial", v_bad_launch, cudaErrorInvalidConfiguration},
    {"cudaMemsetAsync", v_memset_host, cudaErrorInvalidValue},
};

START_TEST(test_capture_violation_invalidates)
{
    quiet();
    struct Violation v;
    v.x = dev(64 * sizeof(float));
    v.spare = dev(64);
    ck_assert_int_eq(cudaStreamCreate(&v.stream), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&v.event), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(v.event, v.stream), cudaSuccess);

    ck_assert_int_eq(cudaStreamBeginCapture(v.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(sim_axpb(v.x, 2.0f, 0.0f, 64, v.stream), cudaSuccess);
    ck_assert_int_eq(kViolations[_i].run(&v), kViolations[_i].want);
    report_has(kViolations[_i].call);
    cudaGetLastError();
    ck_assert_int_eq(capture_status(v.stream), cudaStreamCaptureStatusInvalidated);
    /* More work on the stream is refused, until the capture ends. */
    ck_assert_int_eq(cudaMemsetAsync(v.x, 0, 4, v.stream), cudaErrorStreamCaptureInvalidated);
    cudaGraph_t graph = (cudaGraph_t)&v; /* not NULL: the call must set it */
    ck_assert_int_eq(cudaStreamEndCapture(v.stream, &graph), cudaErrorStreamCaptureInvalidated);
    ck_assert_ptr_null(graph);
    report_has("the capture was invalidated");
    report_has(kViolations[_i].call);
    cudaGetLastError();

    /* The stream works again, and can capture again. */
    ck_assert_int_eq(capture_status(v.stream), cudaStreamCaptureStatusNone);
    ck_assert_int_eq(cudaStreamSynchronize(v.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(v.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(sim_axpb(v.x, 2.0f, 0.0f, 64, v.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(v.stream, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    cudaEventDestroy(v.event);
    ck_assert_int_eq(cudaStreamDestroy(v.stream), cudaSuccess);
}
END_TEST

START_TEST(test_capture_rules)
{
    quiet();
    cudaStream_t s, nb;
    cudaGraph_t graph = NULL, empty;
    cudaGraphExec_t exec;
    enum cudaStreamCaptureStatus status;
    float *x = dev(64 * sizeof(float)), one = 1.0f;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);

    /* The legacy stream cannot capture. */
    ck_assert_int_eq(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
                     cudaErrorStreamCaptureUnsupported);
    report_has("the legacy (NULL) stream cannot be captured");
    ck_assert_str_eq(cudaGetErrorString(cudaErrorStreamCaptureUnsupported),
                     "operation not permitted when stream is capturing");
    ck_assert_str_eq(cudaGetErrorName(cudaErrorStreamCaptureUnsupported),
                     "cudaErrorStreamCaptureUnsupported");
    ck_assert_int_eq(cudaStreamEndCapture(s, &graph), cudaErrorIllegalState);
    report_has("the stream is not capturing");
    ck_assert_int_eq(cudaStreamBeginCapture(s, (enum cudaStreamCaptureMode)7),
                     cudaErrorInvalidValue);
    cudaGetLastError();

    /* While a blocking stream captures, the legacy stream cannot even be
     * asked (and asking invalidates nothing); a capturing stream cannot be
     * destroyed, nor capture twice, nor launch a graph. */
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
    ck_assert_int_eq(cudaStreamIsCapturing(0, &status), cudaErrorStreamCaptureImplicit);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaErrorStreamCaptureUnsupported);
    report_has("end the capture first");
    ck_assert_int_eq(capture_status(s), cudaStreamCaptureStatusActive);
    ck_assert_int_eq(cudaStreamEndCapture(s, &empty), cudaSuccess);
    size_t count = 1;
    ck_assert_int_eq(cudaGraphGetNodes(empty, NULL, &count), cudaSuccess);
    ck_assert_uint_eq(count, 0);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, empty, 1), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, empty, 0), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, s), cudaErrorNotSupported);
    ck_assert_int_eq(cudaStreamEndCapture(s, &graph), cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();

    /* In relaxed mode, allocations are allowed. */
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
    void *p = NULL;
    ck_assert_int_eq(cudaMalloc(&p, 64), cudaSuccess);
    ck_assert_int_eq(cudaFree(p), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(s, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);

    /* The legacy stream does not wait for a non-blocking stream, so it can be
     * used while one captures: a launch on it runs at once. */
    ck_assert_int_eq(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(x, &one, sizeof one, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(sim_axpb(x, 3.0f, 0.0f, 1, 0), cudaSuccess);
    ck_assert_int_eq(cudaStreamIsCapturing(0, &status), cudaSuccess);
    ck_assert_int_eq(status, cudaStreamCaptureStatusNone);
    ck_assert_int_eq(cudaStreamEndCapture(nb, &graph), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(&one, x, sizeof one, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert_float_eq(one, 3.0f);

    /* Destroying in any order; twice is an error. */
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaGraphLaunch(exec, s), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaGraphDestroy(empty), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaErrorInvalidResourceHandle);
    report_has("destroyed twice");
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    ck_assert_int_eq(cudaStreamDestroy(nb), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

START_TEST(test_graph_replay_errors_are_reported)
{
    quiet();
    struct Epoch e;
    epoch_setup(&e);
    epoch_inputs(&e);
    const float alpha = 1.0f, beta = 0.0f;
    float *freed = dev(64), *y = dev(300 * sizeof(float));
    cudaGraph_t graph;
    cudaGraphExec_t exec;

    /* A buffer freed after the capture: the node finds it gone. */
    ck_assert_int_eq(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(freed, 0, 64, e.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(e.stream, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    ck_assert_int_eq(cudaFree(freed), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaErrorInvalidValue);
    report_has("cudaGraphLaunch, node 1 of 1 (cudaMemsetAsync): cudaMemsetAsync:");
    report_has("that the cudaFree at tests/sim/check_sim.c:");
    report_has("a use after free");
    cudaGetLastError();
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);

    ck_assert_int_eq(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cublasSgemm(e.blas, CUBLAS_OP_N, CUBLAS_OP_N, kRows, kCols, kInner, &alpha,
                                 e.x, kRows, e.w, kInner, &beta, e.c, kRows),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cudaStreamEndCapture(e.stream, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
    ck_assert_int_eq(cudaFree(e.c), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaErrorInvalidValue);
    report_has("cudaGraphLaunch, node 1 of 1 (cublasSgemm): cublasSgemm: C is not a device buffer");
    cudaGetLastError();
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaSuccess);

    /* A kernel that writes out of bounds: reported as for a plain launch. */
    ck_assert_int_eq(cudaStreamBeginCapture(e.stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(sim_axpb(e.x, 1.0f, 1.0f, kN, e.stream), cudaSuccess);
    ck_assert_int_eq(sim_double_off_by_one(e.x, y, 300, e.stream), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(e.stream, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaErrorIllegalAddress);
    report_has("cudaGraphLaunch, node 2 of 2 (kernel double_off_by_one): Invalid __global__ write "
               "of size 4 bytes in kernel double_off_by_one, block (2,0,0), thread (44,0,0)");
    report_has("0 bytes past the end of a 1200-byte cudaMalloc buffer");
    /* Sticky, as after a plain launch. */
    ck_assert_int_eq(cudaStreamSynchronize(e.stream), cudaErrorIllegalAddress);
    ck_assert_int_eq(cudaGraphLaunch(exec, e.stream), cudaErrorIllegalAddress);
    /* The reset takes the graph and its instance with it. */
    free(e.out);
    cublasDestroy(e.blas);
    ck_assert_int_eq(cudaDeviceReset(), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecDestroy(exec), cudaErrorInvalidResourceHandle);
    ck_assert_int_eq(cudaGraphDestroy(graph), cudaErrorInvalidResourceHandle);
}
END_TEST

/* ---- host code and device memory ------------------------------------------ */

/* Loop tests run once with mprotect (0) and once with memory protection keys
 * (1; mprotect again where the machine has none). */
static void use_guard(int protection_keys)
{
    quiet();
    int got = cudasim_set_memory_guard(protection_keys);
    ck_assert_int_ge(got, 0);
    if (!protection_keys) ck_assert_int_eq(got, 0);
    ck_assert_str_eq(cudasim_memory_guard(), got ? "protection keys" : "mprotect");
}

/* Run what(arg) in a child process with its stderr captured in err; returns
 * the signal that ended it, or 0 when it exited. */
static int in_child(void (*what)(int), int arg, char *err, size_t n)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDERR_FILENO);
        what(arg);
        _exit(0);
    }
    close(fd[1]);
    size_t used = 0;
    ssize_t got;
    while (used + 1 < n && (got = read(fd[0], err + used, n - 1 - used)) > 0) used += (size_t)got;
    err[used] = '\0';
    close(fd[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status)) ck_assert_msg(0, "the child exited with %d: %s", WEXITSTATUS(status), err);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static volatile float g_sink;

/* In a child (no ck_assert here: a failure exits with 3): a 4096-byte buffer
 * that copies, a memset, a kernel, cuBLAS and a graph all use, then host code
 * reads element 5 of it (how bit 0 clear) or writes it (set). Bit 1 chooses
 * protection keys. The buffer's address was a freed buffer's just before. */
static void host_touches_device_memory(int how)
{
    cudaDeviceReset();
    cudasim_set_report_stream(NULL);
    if (cudasim_set_memory_guard(how >> 1 & 1) < 0) _exit(3);
    float *d = NULL, h[1024];
    if (cudaMalloc((void **)&d, 4096) != cudaSuccess || cudaFree(d) != cudaSuccess) _exit(3);
    if (cudaMalloc((void **)&d, 4096) != cudaSuccess) _exit(3);
    for (int i = 0; i < 1024; i++) h[i] = (float)i;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(d + 512, 0, 512 * sizeof(float));
    sim_axpb(d, 2.0f, 1.0f, 1024, 0);
    cublasHandle_t blas;
    const float one = 1.0f, zero = 0.0f;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) _exit(3);
    if (cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, d, 8, d + 64, 8, &zero,
                    d + 512, 8) != CUBLAS_STATUS_SUCCESS)
        _exit(3);
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamCreate(&s);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    sim_axpb(d + 256, 1.0f, 1.0f, 256, s);
    cudaStreamEndCapture(s, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    if (cudaGraphLaunch(exec, s) != cudaSuccess) _exit(3);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (h[5] != 11.0f || h[300] != 602.0f) _exit(3);
    if (how & 1)
        d[5] = 1.0f;
    else
        g_sink = d[5];
    _exit(0); /* not reached: the access must kill the process */
}

START_TEST(test_host_access_to_device_memory_dies)
{
    /* _i: 0 read, 1 write; 2 and 3 the same with protection keys. */
    char err[2048];
    int sig = in_child(host_touches_device_memory, _i, err, sizeof err);
    ck_assert_msg(sig == SIGSEGV, "host code that %s device memory died of signal %d, not SIGSEGV",
                  _i & 1 ? "wrote" : "read", sig);
#if defined(__x86_64__)
    const char *want = _i & 1 ? "cudasim: host code wrote device memory at 0x"
                              : "cudasim: host code read device memory at 0x";
#else
    const char *want = "cudasim: host code read or wrote device memory at 0x";
#endif
    ck_assert_msg(strstr(err, want) != NULL, "the message \"%s\" does not say \"%s\"", err, want);
    const char *rest = "(byte 20 of a 4096-byte cudaMalloc buffer): on a GPU the CPU cannot "
                       "dereference device pointers; copy the data with cudaMemcpy first";
    ck_assert_msg(strstr(err, rest) != NULL, "the message \"%s\" does not say \"%s\"", err, rest);
    /* and where: the line of host_touches_device_memory that made the access */
    const char *where = strstr(err, "; the access is at ");
    ck_assert_msg(where && strstr(where, "check_sim.c:") != NULL,
                  "the message \"%s\" does not say at which line of check_sim.c", err);
    const char *second = strstr(strstr(err, "cudasim:") + 1, "cudasim:");
    ck_assert_msg(second == NULL, "more than one message: \"%s\"", err);
}
END_TEST

/* Host code reading one past the end of a device buffer: the same message. */
static void host_reads_past_the_end(int protection_keys)
{
    cudaDeviceReset();
    if (cudasim_set_memory_guard(protection_keys) < 0) _exit(3);
    float *d = NULL;
    if (cudaMalloc((void **)&d, 256 * sizeof(float)) != cudaSuccess) _exit(3);
    g_sink = d[256];
    _exit(0);
}

START_TEST(test_host_access_past_the_end_dies)
{
    char err[2048];
    ck_assert_int_eq(in_child(host_reads_past_the_end, _i, err, sizeof err), SIGSEGV);
    ck_assert_msg(strstr(err, "device memory at 0x") &&
                      strstr(err, "(0 bytes past the end of a 1024-byte cudaMalloc buffer)"),
                  "the message: \"%s\"", err);
}
END_TEST

START_TEST(test_device_operations_reach_device_memory)
{
    use_guard(_i);
    enum { n = 1024 };
    float *h = ramp(n), got[n];
    float *d = dev(n * sizeof(float)), *e = dev(n * sizeof(float));

    /* Copies both ways and device to device, a memset, kernels. */
    ck_assert_int_eq(cudaMemcpy(d, h, sizeof got, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(sim_axpb(d, 2.0f, 1.0f, n, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(e, d, sizeof got, cudaMemcpyDeviceToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemset(e + n / 2, 0, n / 2 * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(sim_axpb(e, 1.0f, 1.0f, n, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(got, e, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < n; i++)
        ck_assert_float_eq_tol(got[i], (i < n / 2 ? 2.0f * h[i] + 2.0f : 1.0f), 1e-5f);

    /* cuBLAS on the same buffers: (16 x 16) = (16 x 16)(16 x 16), column-major. */
    cublasHandle_t blas;
    ck_assert_int_eq(cublasCreate(&blas), CUBLAS_STATUS_SUCCESS);
    const float one = 1.0f, zero = 0.0f;
    ck_assert_int_eq(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, d, 16, d + 256,
                                 16, &zero, e, 16),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cudaMemcpy(got, e, 256 * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 16; i++) {
            double want = 0;
            for (int p = 0; p < 16; p++)
                want += (2.0 * h[i + 16 * p] + 1.0) * (2.0 * h[256 + p + 16 * j] + 1.0);
            ck_assert_float_eq_tol(got[i + 16 * j], want, 1e-3 * fabs(want));
        }
    cublasDestroy(blas);

    /* Async work and a graph replayed, into pinned memory, which host code may touch. */
    float *pinned = NULL;
    ck_assert_int_eq(cudaMallocHost((void **)&pinned, sizeof got), cudaSuccess);
    for (int i = 0; i < n; i++) pinned[i] = (float)i;
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(d, pinned, sizeof got, cudaMemcpyHostToDevice, s), cudaSuccess);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(e, 0, sizeof got, s), cudaSuccess);
    ck_assert_int_eq(sim_axpb(d, 1.0f, 1.0f, n, s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(pinned, d, sizeof got, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(s, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, s), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    for (int i = 0; i < n; i++) ck_assert_float_eq_tol(pinned[i], (float)i + 2.0f, 1e-5f);
    pinned[0] = -1.0f;
    ck_assert_int_eq(cudaFreeHost(pinned), cudaSuccess);

    /* A freed buffer's address, mapped again by host code, is host memory. */
    ck_assert_int_eq(cudaFree(e), cudaSuccess);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *at = (char *)((uintptr_t)e & ~(uintptr_t)(page - 1));
    char *m = mmap(at, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    memset(m, 7, page);
    ck_assert_int_eq(m[page - 1], 7);
    munmap(m, page);
    /* And a new device buffer there works as any other. */
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    d = dev(n * sizeof(float));
    ck_assert_int_eq(cudaMemcpy(d, h, sizeof got, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(sim_axpb(d, 1.0f, 0.5f, n, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < n; i++) ck_assert_float_eq_tol(got[i], h[i] + 0.5f, 1e-5f);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    free(h);
}
END_TEST

/* Managed memory on a device with concurrentManagedAccess = 0
 * (CUDASIM_MANAGED=windows; with how bit 2, the default: 1): in a child
 * (failures exit with 3), a kernel on managed memory, then host code reads
 * it (how bit 0 clear) or writes it (set) before waiting for the kernel. Bit
 * 1 chooses protection keys. The host's waits before open it every time.
 * Where the access goes on (the default platform), the child ends with
 * SIGUSR1. */
static void host_touches_managed_memory_early(int how)
{
    if (how & 4)
        unsetenv("CUDASIM_MANAGED");
    else
        setenv("CUDASIM_MANAGED", "windows", 1);
    cudaDeviceReset();
    cudasim_set_report_stream(NULL);
    if (cudasim_set_memory_guard(how >> 1 & 1) < 0) _exit(3);
    float *m = NULL;
    cudaStream_t s;
    cudaEvent_t e;
    if (cudaMallocManaged((void **)&m, 1024 * sizeof(float), cudaMemAttachGlobal) != cudaSuccess ||
        cudaStreamCreate(&s) != cudaSuccess || cudaEventCreate(&e) != cudaSuccess)
        _exit(3);
    for (int i = 0; i < 1024; i++) m[i] = (float)i;
    sim_axpb(m, 2.0f, 0.0f, 1024, 0);
    cudaDeviceSynchronize();
    sim_axpb(m, 1.0f, 1.0f, 1024, s);
    cudaStreamSynchronize(s);
    sim_axpb(m, 1.0f, 1.0f, 1024, s);
    cudaEventRecord(e, s);
    cudaEventSynchronize(e);
    if (m[5] != 12.0f) _exit(3);
    sim_axpb(m, 1.0f, 1.0f, 1024, 0);
    if (how & 1)
        m[5] = 1.0f;
    else
        g_sink = m[5];
    if (how & 4) raise(SIGUSR1); /* a race, reported: the program went on */
    _exit(0); /* not reached: the access must kill the process */
}

START_TEST(test_host_access_to_managed_memory_before_a_wait_dies)
{
    /* _i: 0 read, 1 write; 2 and 3 the same with protection keys. */
    char err[2048];
    int sig = in_child(host_touches_managed_memory_early, _i, err, sizeof err);
    int linux_gpu = _i & 4;
    ck_assert_msg(sig == (linux_gpu ? SIGUSR1 : SIGSEGV),
                  "host code that %s managed memory early ended with signal %d",
                  _i & 1 ? "wrote" : "read", sig);
    const char *want[] = {
#if defined(__x86_64__)
        _i & 1 ? "host code wrote managed memory at 0x" : "host code read managed memory at 0x",
#else
        "host code read or wrote managed memory at 0x",
#endif
        "(byte 20 of a 4096-byte cudaMallocManaged buffer) while the GPU may still run kernel axpb, "
        "issued at tests/sim/sim_kernels.cu:",
        linux_gpu ? "this device has concurrentManagedAccess = 1"
                  : "this device has concurrentManagedAccess = 0",
        linux_gpu ? "cudasim: data race between host code and kernel axpb: " : "cudasim: host code ",
        "; the access is at tests/sim/check_sim.c:"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        ck_assert_msg(strstr(err, want[k]) != NULL, "the message \"%s\" does not say \"%s\"", err,
                      want[k]);
}
END_TEST

/* Prefetching and advice, with CUDA 13's signatures, as a device without
 * concurrent managed access takes them (CUDASIM_MANAGED=windows): the host as
 * the place, not a GPU; and as the default device, with it, takes a GPU too. */
START_TEST(test_managed_prefetch_and_advice)
{
    quiet();
    setenv("CUDASIM_MANAGED", "windows", 1);
    float *m = NULL, *d = dev(256);
    ck_assert_int_eq(cudaMallocManaged((void **)&m, 256, cudaMemAttachGlobal), cudaSuccess);
    struct cudaMemLocation host = {cudaMemLocationTypeHost, 0}, gpu = {cudaMemLocationTypeDevice, 0};
    struct cudaMemLocation numa = {cudaMemLocationTypeHostNumaCurrent, 0}, none = {cudaMemLocationTypeDevice, 5};
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, host, 0, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, numa, 0, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, gpu, 0, 0), cudaErrorInvalidDevice);
    report_has("concurrentManagedAccess = 0");
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, none, 0, 0), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, host, 1, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 512, host, 0, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemPrefetchAsync(d, 256, host, 0, 0), cudaErrorInvalidValue);
    report_has("not cudaMallocManaged memory");
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetReadMostly, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseUnsetReadMostly, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetPreferredLocation, host), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetPreferredLocation, gpu),
                     cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseUnsetPreferredLocation, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetAccessedBy, host), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetAccessedBy, gpu), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetAccessedBy, numa), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemAdvise(m, 256, (enum cudaMemoryAdvise)9, host), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemAdvise(d, 256, cudaMemAdviseSetReadMostly, host), cudaErrorInvalidValue);
    /* cudaMemAttachHost: the host's at all times; other flags refused */
    float *h = NULL;
    ck_assert_int_eq(cudaMallocManaged((void **)&h, 256, cudaMemAttachHost), cudaSuccess);
    cudaGetLastError(); /* (the refusals above) */
    ck_assert_int_eq(sim_axpb(m, 1.0f, 1.0f, 64, 0), cudaSuccess);
    h[3] = 1.0f;
    ck_assert_int_eq(cudaMallocManaged((void **)&h, 256, 4), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    int concurrent = -1;
    ck_assert_int_eq(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0),
                     cudaSuccess);
    ck_assert_int_eq(concurrent, 0);
    /* The default platform: a GPU as the place too */
    unsetenv("CUDASIM_MANAGED");
    ck_assert_int_eq(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0),
                     cudaSuccess);
    ck_assert_int_eq(concurrent, 1);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, gpu, 0, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetPreferredLocation, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetAccessedBy, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, none, 0, 0), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaFree(m), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* The guard is chosen only while no device buffer exists. */
START_TEST(test_memory_guard_is_chosen_with_no_buffers)
{
    use_guard(0);
    void *d = dev(64);
    ck_assert_int_eq(cudasim_set_memory_guard(1), -1);
    ck_assert_str_eq(cudasim_memory_guard(), "mprotect");
    cudaFree(d);
    ck_assert_int_ge(cudasim_set_memory_guard(1), 0);
}
END_TEST

/* Other tests, again with mprotect (as on machines without protection keys),
 * then back to the guard that was in use. */
static int g_had_pkeys;

static void with_mprotect(void)
{
    cudaDeviceReset();
    g_had_pkeys = strcmp(cudasim_memory_guard(), "protection keys") == 0;
    cudasim_set_memory_guard(0);
}

static void with_guard_as_before(void)
{
    cudaDeviceReset();
    cudasim_set_memory_guard(g_had_pkeys);
}

/* cudaHostRegister: a range registered twice, or overlapping, and one never
 * registered, fail with CUDA's codes; device memory is not host memory. */
START_TEST(test_host_register_rules)
{
    quiet();
    char *h = malloc(8192);
    ck_assert_int_eq(cudaHostRegister(h, 4096, cudaHostRegisterMapped), cudaSuccess);
    ck_assert_int_eq(cudaHostRegister(h, 4096, 0), cudaErrorHostMemoryAlreadyRegistered);
    ck_assert_int_eq(cudaHostRegister(h + 4000, 1000, 0), cudaErrorHostMemoryAlreadyRegistered);
    report_has("registered already");
    ck_assert_int_eq(cudaHostRegister(h + 4096, 4096, 0), cudaSuccess); /* adjacent: fine */
    void *d = NULL;
    ck_assert_int_eq(cudaHostGetDevicePointer(&d, h + 10, 0), cudaSuccess);
    ck_assert_ptr_eq(d, h + 10);
    unsigned int flags = 0;
    ck_assert_int_eq(cudaHostGetFlags(&flags, h + 100), cudaSuccess);
    ck_assert_uint_eq(flags, cudaHostRegisterMapped);
    ck_assert_int_eq(cudaHostUnregister(h + 1), cudaErrorHostMemoryNotRegistered);
    report_has("not the start of a range");
    ck_assert_int_eq(cudaHostUnregister(h), cudaSuccess);
    ck_assert_int_eq(cudaHostUnregister(h), cudaErrorHostMemoryNotRegistered);
    ck_assert_int_eq(cudaHostUnregister(h + 4096), cudaSuccess);
    void *dm = dev(256);
    ck_assert_int_eq(cudaHostRegister(dm, 256, 0), cudaErrorInvalidValue);
    report_has("device memory already");
    ck_assert_int_eq(cudaHostRegister(NULL, 256, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaHostRegister(h, 256, 0x100), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaFree(dm), cudaSuccess);
    free(h);
}
END_TEST

Suite *sim_suite(void)
{
    Suite *s = suite_create("cudasim");
    TCase *tc = tcase_create("runtime");
    tcase_add_test(tc, test_device_properties);
    tcase_add_test(tc, test_copy_kinds_are_checked);
    tcase_add_test(tc, test_streams_and_events);
    tcase_add_test(tc, test_cublas_sgemm);
    tcase_add_test(tc, test_no_device);
    tcase_add_test(tc, test_host_register_rules);
    suite_add_tcase(s, tc);
    TCase *k = tcase_create("kernels");
    tcase_add_test(k, test_block_sums_with_barriers_and_shuffles);
    tcase_add_test(k, test_dynamic_shared_memory);
    tcase_add_test(k, test_3d_coordinates);
    tcase_add_test(k, test_atomics);
    tcase_add_test(k, test_warp_operations);
    tcase_add_test(k, test_launch_limits);
    tcase_add_test(k, test_half_warp_groups);
    tcase_add_test(k, test_shared_memory_opt_in);
    suite_add_tcase(s, k);
    TCase *b = tcase_create("planted_bugs");
    tcase_add_test(b, test_missing_barrier_changes_the_result);
    tcase_add_test(b, test_off_by_one_write_is_reported);
    tcase_add_test(b, test_off_by_one_inside_a_fiber_is_reported);
    tcase_add_test(b, test_the_first_faulting_thread_is_named);
    tcase_add_test(b, test_a_report_follows_what_was_printed);
    tcase_add_test(b, test_divergent_barrier_is_reported);
    tcase_add_test(b, test_race_with_the_lower_neighbour_shows);
    tcase_add_test(b, test_write_before_the_start_is_reported);
    suite_add_tcase(s, b);
    TCase *g = tcase_create("graphs");
    tcase_add_test(g, test_graph_replays_an_epoch);
    tcase_add_test(g, test_graph_arguments_are_frozen);
    tcase_add_loop_test(g, test_capture_violation_invalidates, 0,
                        (int)(sizeof kViolations / sizeof kViolations[0]));
    tcase_add_test(g, test_capture_rules);
    tcase_add_test(g, test_graph_replay_errors_are_reported);
    suite_add_tcase(s, g);
    TCase *h = tcase_create("host_and_device_memory");
    tcase_add_loop_test(h, test_host_access_to_device_memory_dies, 0, 4);
    tcase_add_loop_test(h, test_host_access_past_the_end_dies, 0, 2);
    tcase_add_loop_test(h, test_device_operations_reach_device_memory, 0, 2);
    tcase_add_test(h, test_memory_guard_is_chosen_with_no_buffers);
    tcase_add_loop_test(h, test_host_access_to_managed_memory_before_a_wait_dies, 0, 8);
    tcase_add_test(h, test_managed_prefetch_and_advice);
    suite_add_tcase(s, h);
    /* Kernels, their planted bugs, graphs and cuBLAS with mprotect. */
    TCase *m = tcase_create("with_mprotect");
    tcase_add_checked_fixture(m, with_mprotect, with_guard_as_before);
    tcase_add_test(m, test_cublas_sgemm);
    tcase_add_test(m, test_block_sums_with_barriers_and_shuffles);
    tcase_add_test(m, test_dynamic_shared_memory);
    tcase_add_test(m, test_atomics);
    tcase_add_test(m, test_off_by_one_write_is_reported);
    tcase_add_test(m, test_off_by_one_inside_a_fiber_is_reported);
    tcase_add_test(m, test_race_with_the_lower_neighbour_shows);
    tcase_add_test(m, test_write_before_the_start_is_reported);
    tcase_add_test(m, test_graph_replays_an_epoch);
    tcase_add_test(m, test_graph_replay_errors_are_reported);
    suite_add_tcase(s, m);
    return s;
}
