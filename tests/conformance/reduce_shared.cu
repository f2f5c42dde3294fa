// A tree reduction in shared memory (one partial sum per block, the blocks'
// sums added with atomicAdd), with the barrier each step needs.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

#define BLOCK 256

__global__ void block_sum(const int *in, int *total, int n)
{
    __shared__ int partial[BLOCK];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    partial[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) atomicAdd(total, partial[0]);
}

int main(void)
{
    const int n = 1 << 20;
    static int h[1 << 20];
    long long expect = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (int)((i * 7919LL) % 1000) - 500;
        expect += h[i];
    }
    int *d_in, *d_total, total = 0;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_total, sizeof(int)));
    CHECK(cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_total, 0, sizeof(int)));
    block_sum<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(d_in, d_total, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
    printf("sum of %d ints: %d (expected %lld): %s\n", n, total, expect,
           total == expect ? "ok" : "WRONG");
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_total));
    return total != expect;
}
