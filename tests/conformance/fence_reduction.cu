// A sum in one launch, in the manner of NVIDIA's threadFenceReduction sample:
// each block writes its partial sum, makes it visible with __threadfence(),
// and takes a ticket from an atomic counter; the block that takes the last
// ticket knows every other block's partial sum is written, and adds them.
// Nothing here races, though blocks read what other blocks wrote.
// (fence_missing.cu builds it without the fence: a planted bug.)
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

#define BLOCK 128

__device__ unsigned int tickets;

__global__ void sum_single_pass(const float *in, float *partial, float *result, int n)
{
    __shared__ float s[BLOCK];
    __shared__ bool last;
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) v += in[i];
    s[t] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
#ifndef WITHOUT_FENCE
        __threadfence(); /* the partial sum is visible before the ticket is taken */
#endif
        unsigned int ticket = atomicInc(&tickets, gridDim.x);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (last) {
        float sum = 0.0f;
        for (unsigned b = t; b < gridDim.x; b += blockDim.x) sum += partial[b];
        s[t] = sum;
        __syncthreads();
        for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
            if (t < stride) s[t] += s[t + stride];
            __syncthreads();
        }
        if (t == 0) {
            *result = s[0];
            tickets = 0; /* ready for the next launch */
        }
    }
}

int main(void)
{
    const int n = 1 << 16, blocks = 48;
    static float h[1 << 16];
    double expect = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (float)(i % 17) * 0.5f; /* sums of these are exact in any order */
        expect += h[i];
    }
    float *d_in, *d_partial, *d_result, result = 0.0f;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_partial, blocks * sizeof(float)));
    CHECK(cudaMalloc(&d_result, sizeof(float)));
    CHECK(cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice));
    for (int launch = 1; launch <= 2; launch++) { /* the counter is reset for the next */
        sum_single_pass<<<blocks, BLOCK>>>(d_in, d_partial, d_result, n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&result, d_result, sizeof(float), cudaMemcpyDeviceToHost));
        printf("launch %d: sum %.1f (expected %.1f)\n", launch, result, expect);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_partial));
    CHECK(cudaFree(d_result));
    return 0;
}
