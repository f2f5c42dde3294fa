/*
 * check_sim.c: the CUDA simulator against what CUDA specifies, and the bugs
 * it must report (make test, simulator build only). The suite's rooms:
 *   check_sim.c          the runtime: device properties, copies, streams and
 *                        events, cuBLAS, no device, cudaHostRegister
 *   check_sim_kernels.c  kernels as CUDA specifies them
 *   check_sim_bugs.c     planted bugs and their reports
 *   check_sim_graphs.c   CUDA Graphs and stream capture
 *   check_sim_memory.c   host code and device memory
 *   sim_test.c           what they share
 * Kernels, planted bugs, graphs and cuBLAS run a second time with mprotect
 * as the memory guard (with_mprotect), as on a machine without protection keys.
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
#include "tests/sim/sim_suites.h"

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

/* cudaLaunchKernelExC: a configuration and attributes are checked before anything runs;
 * a cluster of more than one block, an unknown attribute, no configuration are refused,
 * each with its report, and the buffer is untouched. */
START_TEST(test_launch_kernel_ex_refusals)
{
    quiet();
    const int n = 64;
    float *y = dev(n * sizeof(float));
    ck_assert_int_eq(cudaMemset(y, 0, n * sizeof(float)), cudaSuccess);
    float a = 1.0f, b = 1.0f;
    int count = n;
    void *args[] = {&y, &a, &b, &count};
    cudaLaunchAttribute attr[2];
    memset(attr, 0, sizeof attr);
    attr[0].id = cudaLaunchAttributePriority;
    attr[1].id = cudaLaunchAttributeClusterDimension;
    attr[1].val.clusterDim.x = 2;
    attr[1].val.clusterDim.y = 1;
    attr[1].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = (dim3){1, 1, 1};
    cfg.blockDim = (dim3){n, 1, 1};
    cfg.attrs = attr;
    cfg.numAttrs = 2;
    ck_assert_int_eq(cudaLaunchKernelExC(&cfg, sim_axpb_kernel(), args), cudaErrorNotSupported);
    report_has("attrs[1] asks for clusters of 2x1x1 blocks");
    attr[1].id = (cudaLaunchAttributeID)77;
    ck_assert_int_eq(cudaLaunchKernelExC(&cfg, sim_axpb_kernel(), args), cudaErrorInvalidValue);
    report_has("attrs[1].id is 77");
    cfg.attrs = NULL;
    ck_assert_int_eq(cudaLaunchKernelExC(&cfg, sim_axpb_kernel(), args), cudaErrorInvalidValue);
    report_has("config->numAttrs is not 0 but config->attrs is NULL");
    ck_assert_int_eq(cudaLaunchKernelExC(NULL, sim_axpb_kernel(), args), cudaErrorInvalidValue);
    float h[64];
    ck_assert_int_eq(cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert(h[0] == 0.0f && h[63] == 0.0f); /* nothing ran */
    /* A cluster of one block is no cluster: it runs. */
    attr[1].id = cudaLaunchAttributeClusterDimension;
    attr[1].val.clusterDim.x = 1;
    cfg.attrs = attr;
    ck_assert_int_eq(cudaLaunchKernelExC(&cfg, sim_axpb_kernel(), args), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
    ck_assert(h[0] == 1.0f && h[63] == 1.0f);
    ck_assert_int_eq(cudaFree(y), cudaSuccess);
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
    tcase_add_test(tc, test_launch_kernel_ex_refusals);
    suite_add_tcase(s, tc);
    suite_add_tcase(s, sim_kernels_tcase());
    suite_add_tcase(s, sim_bugs_tcase());
    suite_add_tcase(s, sim_graphs_tcase());
    suite_add_tcase(s, sim_memory_tcase());
    /* Kernels, their planted bugs, graphs and cuBLAS with mprotect. */
    TCase *m = sim_with_mprotect_tcase();
    tcase_add_test(m, test_cublas_sgemm);
    sim_kernels_again(m);
    sim_bugs_again(m);
    sim_graphs_again(m);
    suite_add_tcase(s, m);
    return s;
}
