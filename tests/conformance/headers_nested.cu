// Kernels reached through a header that holds no CUDA, at any depth (as
// SGEMM_CUDA's src/kernels.cuh includes its kernels): a header that includes
// one of its own folder, #pragma once and include guards with headers included
// twice, __shared__ in a template __device__ function, __shared__ variables at
// namespace scope, a kernel declared through a macro, and launches in macros.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"
#include "include/nested/all_kernels.cuh"
#include "include/nested/kernels/block_sum.cuh" /* again: its guard */
#include "include/nested/kernels/scale.cuh"     /* again: #pragma once */

int main(void)
{
    const int n = 256;
    float *x, *sum, hs[2];
    int *v, *out, hv[n], hc[4];
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&sum, 2 * sizeof(float)));
    CHECK(cudaMalloc(&v, n * sizeof(int)));
    CHECK(cudaMalloc(&out, n * sizeof(int)));

    LAUNCH_TYPED(fill, float, n, x, n); /* fill_float */
    LAUNCH_TYPED(fill, int, n, v, n);   /* fill_int */
    LAUNCH_1D(scale, n, x, n);
    sums<128><<<2, 128>>>(x, sum);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hs, sum, sizeof hs, cudaMemcpyDeviceToHost));
    /* 3 * 0.25 * (0 + ... + 127) and (128 + ... + 255) */
    printf("block sums: %g %g\n", hs[0], hs[1]);

    mix<<<1, 64, 64 * (4 + 4 + 4)>>>(v, out); /* (the shorts take 2n: the floats stay aligned) */
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hv, out, 64 * sizeof(int), cudaMemcpyDeviceToHost));
    printf("mix: out[0] = %d, out[1] = %d, out[63] = %d\n", hv[0], hv[1], hv[63]);

    count_positive<<<2, 128>>>(v, out);
    count_negative<<<2, 128>>>(v, out + 2);
    CHECK(cudaMemcpy(hc, out, sizeof hc, cudaMemcpyDeviceToHost));
    printf("positive per block: %d %d, negative: %d %d\n", hc[0], hc[1], hc[2], hc[3]);

    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, sums<128>));
    printf("sums<128>: maxThreadsPerBlock %d, sharedSizeBytes %zu\n", a.maxThreadsPerBlock,
           a.sharedSizeBytes);
    CHECK(cudaFuncGetAttributes(&a, count_positive));
    printf("count_positive: sharedSizeBytes %zu\n", a.sharedSizeBytes);
    CHECK(cudaFree(x));
    CHECK(cudaFree(sum));
    CHECK(cudaFree(v));
    CHECK(cudaFree(out));
    return 0;
}
