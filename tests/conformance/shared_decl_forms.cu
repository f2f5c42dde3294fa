// __shared__ written after the type, as NVIDIA's threadFenceReduction and
// reductionMultiBlockCG samples write it (`extern float __shared__ smem[];`,
// `unsigned int __shared__ count;`), next to the usual order: the same
// variables either way.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void block_sums(const float *x, float *sums, unsigned int *blocks_done)
{
    extern float __shared__ smem[];
    unsigned int __shared__ count;
    __shared__ bool last;
    unsigned int t = threadIdx.x;
    smem[t] = x[blockIdx.x * blockDim.x + t];
    if (t == 0) count = 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) smem[t] += smem[t + s];
        __syncthreads();
    }
    if (t == 0) {
        atomicAdd(&count, 1u);
        sums[blockIdx.x] = smem[0];
        last = atomicAdd(blocks_done, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (t == 0 && last) printf("the last block to finish saw count %u\n", count);
}

int main(void)
{
    const int blocks = 4, threads = 128, n = blocks * threads;
    float h[n], sums[blocks];
    for (int i = 0; i < n; i++) h[i] = (float)(i % 10);
    float *d_x, *d_sums;
    unsigned int *d_done;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_sums, blocks * sizeof(float)));
    CHECK(cudaMalloc(&d_done, sizeof(unsigned int)));
    CHECK(cudaMemcpy(d_x, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_done, 0, sizeof(unsigned int)));
    block_sums<<<blocks, threads, threads * sizeof(float)>>>(d_x, d_sums, d_done);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(sums, d_sums, sizeof sums, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) printf("block %d: %.0f\n", b, sums[b]);
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFree(d_done));
    return 0;
}
