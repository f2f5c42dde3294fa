// atomicAdd on __half, __half2, __nv_bfloat16 and __nv_bfloat162
// (half_atomics.flags: built for sm_80, which the bfloat16 ones need). Each
// addition rounds to nearest even on its own, as a GPU's does, so a running
// sum stalls where the next value is half a step or less: 2048 + 1 is 2048 in
// half (its step there is 2), 256 + 1 is 256 in bfloat16. Each half of a pair
// is added on its own. The sums come out the same in any order.
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "check.h"

__global__ void add(__half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2, int *stalled)
{
    __half old = atomicAdd(h, __float2half(1.0f));
    __half2 old2 = atomicAdd(h2, __floats2half2_rn(1.0f, 0.5f));
    atomicAdd(b, __float2bfloat16(1.0f));
    atomicAdd(b2, __floats2bfloat162_rn(1.0f, 0.25f));
    if (__half2float(old) >= 2048.0f) atomicAdd(&stalled[0], 1);
    if (__half2float(__low2half(old2)) == 2048.0f) atomicAdd(&stalled[1], 1);
}

int main(void)
{
    __half *h;
    __half2 *h2;
    __nv_bfloat16 *b;
    __nv_bfloat162 *b2;
    int *stalled, hs[2] = {0, 0};
    CHECK(cudaMalloc(&h, sizeof(__half)));
    CHECK(cudaMalloc(&h2, sizeof(__half2)));
    CHECK(cudaMalloc(&b, sizeof(__nv_bfloat16)));
    CHECK(cudaMalloc(&b2, sizeof(__nv_bfloat162)));
    CHECK(cudaMalloc(&stalled, sizeof hs));
    __half zero = __float2half(0.0f);
    __half2 start2 = __floats2half2_rn(2048.0f, 0.0f);
    __nv_bfloat16 bzero = __float2bfloat16(0.0f);
    __nv_bfloat162 bstart2 = __floats2bfloat162_rn(256.0f, 0.0f);
    CHECK(cudaMemcpy(h, &zero, sizeof zero, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(h2, &start2, sizeof start2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, &bzero, sizeof bzero, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b2, &bstart2, sizeof bstart2, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(stalled, hs, sizeof hs, cudaMemcpyHostToDevice));
    add<<<12, 256>>>(h, h2, b, b2, stalled); /* 3072 additions each */
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&zero, h, sizeof zero, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&start2, h2, sizeof start2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&bzero, b, sizeof bzero, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&bstart2, b2, sizeof bstart2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hs, stalled, sizeof hs, cudaMemcpyDeviceToHost));
    printf("__half: 3072 x 1 from 0 = %g (%d additions found 2048 or more)\n", __half2float(zero), hs[0]);
    printf("__half2: 3072 x (1, 0.5) from (2048, 0) = (%g, %g) (%d found 2048)\n",
           __low2float(start2), __high2float(start2), hs[1]);
    printf("__nv_bfloat16: 3072 x 1 from 0 = %g\n", __bfloat162float(bzero));
    printf("__nv_bfloat162: 3072 x (1, 0.25) from (256, 0) = (%g, %g)\n", __low2float(bstart2),
           __high2float(bstart2));
    CHECK(cudaFree(h));
    CHECK(cudaFree(h2));
    CHECK(cudaFree(b));
    CHECK(cudaFree(b2));
    CHECK(cudaFree(stalled));
    return 0;
}
