/*
 * check_sim_bugs.c: planted bugs, each caught by the test that plants it: a
 * missing barrier (fed non-uniform data, so the result changes), a write one
 * element past the end or before the start, a barrier some threads never
 * reach, a race; each report names the kernel, the block and the thread (or
 * threads), and follows what the program printed before it.
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
    float *h = ramp(n), *x = dev_copy(h, n), *y = dev(n * sizeof(float));
    ck_assert_int_eq(sim_race_lower(x, y, blocks), cudaSuccess);
    float *got = host_copy(y, n);
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

TCase *sim_bugs_tcase(void)
{
    TCase *tc = tcase_create("planted_bugs");
    tcase_add_test(tc, test_missing_barrier_changes_the_result);
    tcase_add_test(tc, test_off_by_one_write_is_reported);
    tcase_add_test(tc, test_off_by_one_inside_a_fiber_is_reported);
    tcase_add_test(tc, test_the_first_faulting_thread_is_named);
    tcase_add_test(tc, test_a_report_follows_what_was_printed);
    tcase_add_test(tc, test_divergent_barrier_is_reported);
    tcase_add_test(tc, test_race_with_the_lower_neighbour_shows);
    tcase_add_test(tc, test_write_before_the_start_is_reported);
    return tc;
}

void sim_bugs_again(TCase *tc)
{
    tcase_add_test(tc, test_off_by_one_write_is_reported);
    tcase_add_test(tc, test_off_by_one_inside_a_fiber_is_reported);
    tcase_add_test(tc, test_race_with_the_lower_neighbour_shows);
    tcase_add_test(tc, test_write_before_the_start_is_reported);
}
