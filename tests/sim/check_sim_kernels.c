/*
 * check_sim_kernels.c: kernels on the simulator as CUDA specifies them:
 * barriers and shuffles, dynamic and opt-in shared memory, 3-D coordinates,
 * atomics, warp operations and groups, a launch's limits, and launches that
 * run unchecked after clean ones.
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

START_TEST(test_block_sums_with_barriers_and_shuffles)
{
    quiet();
    ck_assert_int_eq(wrong_block_sums(sim_block_sums, 5), 0);
}
END_TEST

/* A kernel's launches of one shape run unchecked after four clean ones; a new
 * buffer, a new scalar or a report makes the next launch checked again. */
START_TEST(test_clean_launches_then_unchecked)
{
    quiet();
    const int n = 100;
    float *y = dev(n * sizeof(float)), *z = dev(n * sizeof(float));
    ck_assert_int_eq(cudaMemset(y, 0, n * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(cudaMemset(z, 0, n * sizeof(float)), cudaSuccess);
    unsigned long long c0, u0, c, u;
    cudasim_check_counts(&c0, &u0);
    for (int i = 0; i < 6; i++) ck_assert_int_eq(sim_axpb(y, 1.0f, 1.0f, n, 0), cudaSuccess);
    cudasim_check_counts(&c, &u);
    ck_assert_uint_eq(c - c0, 4);
    ck_assert_uint_eq(u - u0, 2);
    ck_assert_int_eq(sim_axpb(z, 1.0f, 1.0f, n, 0), cudaSuccess);     /* another buffer */
    ck_assert_int_eq(sim_axpb(y, 1.0f, 1.0f, n - 1, 0), cudaSuccess); /* another n */
    ck_assert_int_eq(sim_axpb(y, 1.0f, 1.0f, n, 0), cudaSuccess);     /* as before */
    cudasim_check_counts(&c, &u);
    ck_assert_uint_eq(c - c0, 6);
    ck_assert_uint_eq(u - u0, 3);
    float h[100];
    ck_assert_int_eq(cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert(h[0] == 8.0f && h[99] == 7.0f); /* unchecked launches compute as checked ones */
    cudaFree(y);
    cudaFree(z);
}
END_TEST

START_TEST(test_dynamic_shared_memory)
{
    quiet();
    const int blocks = 3, n = blocks * 128;
    float *h = ramp(n), *x = dev_copy(h, n), *y = dev(n * sizeof(float));
    ck_assert_int_eq(sim_reverse_blocks(x, y, blocks, 0), cudaSuccess);
    float *got = host_copy(y, n);
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

TCase *sim_kernels_tcase(void)
{
    TCase *tc = tcase_create("kernels");
    tcase_add_test(tc, test_block_sums_with_barriers_and_shuffles);
    tcase_add_test(tc, test_clean_launches_then_unchecked);
    tcase_add_test(tc, test_dynamic_shared_memory);
    tcase_add_test(tc, test_3d_coordinates);
    tcase_add_test(tc, test_atomics);
    tcase_add_test(tc, test_warp_operations);
    tcase_add_test(tc, test_launch_limits);
    tcase_add_test(tc, test_half_warp_groups);
    tcase_add_test(tc, test_shared_memory_opt_in);
    return tc;
}

void sim_kernels_again(TCase *tc)
{
    tcase_add_test(tc, test_block_sums_with_barriers_and_shuffles);
    tcase_add_test(tc, test_dynamic_shared_memory);
    tcase_add_test(tc, test_atomics);
}
