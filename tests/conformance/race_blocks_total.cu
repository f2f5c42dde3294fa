// A bug: a correct block reduction, then each block adds its sum to the total
// with a plain `+=` instead of atomicAdd. Blocks run at the same time on a
// GPU: two of them read the same old total, and one update is lost.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

#define BLOCK 128

__global__ void block_sum(const int *in, int *total)
{
    __shared__ int partial[BLOCK];
    int t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) *total += partial[0]; /* not atomic */
}

int main(void)
{
    const int blocks = 64, n = blocks * BLOCK;
    static int h[blocks * BLOCK];
    int expect = 0;
    for (int i = 0; i < n; i++) {
        h[i] = i % 7 + 1;
        expect += h[i];
    }
    int *d_in, *d_total, total = 0;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_total, sizeof(int)));
    CHECK(cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_total, 0, sizeof(int)));
    block_sum<<<blocks, BLOCK>>>(d_in, d_total);
    CHECK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
    printf("total of %d blocks: %s\n", blocks,
           total == expect ? "right" : "wrong (updates were lost)");
    return 0;
}
