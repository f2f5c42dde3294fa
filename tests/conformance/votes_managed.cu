// Block-wide votes (__syncthreads_count, _and, _or), a warp ballot, managed
// memory that host and device both touch, printf in a kernel, and a launch
// through cudaLaunchKernel.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void votes(const int *x, int *out)
{
    int v = x[blockIdx.x * blockDim.x + threadIdx.x];
    int positive = __syncthreads_count(v > 0);
    int all_small = __syncthreads_and(v < 100);
    int any_seven = __syncthreads_or(v == 7);
    unsigned ballot = __ballot_sync(0xffffffff, v % 2 == 0);
    if (threadIdx.x == 0) {
        out[4 * blockIdx.x + 0] = positive;
        out[4 * blockIdx.x + 1] = all_small;
        out[4 * blockIdx.x + 2] = any_seven;
        out[4 * blockIdx.x + 3] = (int)ballot;
        if (blockIdx.x == 1) printf("block 1: %d positive, first warp's even lanes 0x%08x\n", positive, ballot);
    }
}

__global__ void add_one(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

int main(void)
{
    const int blocks = 2, threads = 64, n = blocks * threads;
    int *x, *out;
    CHECK(cudaMallocManaged(&x, n * sizeof(int)));
    CHECK(cudaMallocManaged(&out, 4 * blocks * sizeof(int)));
    for (int i = 0; i < n; i++) x[i] = (i * 37) % 41 - 10; /* the host writes managed memory */
    votes<<<blocks, threads>>>(x, out);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int b = 0; b < blocks; b++)
        printf("block %d: count %d, and %d, or %d, ballot 0x%08x\n", b, out[4 * b], out[4 * b + 1],
               out[4 * b + 2], (unsigned)out[4 * b + 3]);
    int count = n;
    void *args[] = {&x, &count};
    CHECK(cudaLaunchKernel(add_one, dim3(blocks), dim3(threads), args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    printf("after add_one: x[0] = %d, x[%d] = %d\n", x[0], n - 1, x[n - 1]);
    CHECK(cudaFree(x));
    CHECK(cudaFree(out));
    return 0;
}
