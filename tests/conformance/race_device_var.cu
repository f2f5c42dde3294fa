// A bug: every thread adds one to a __device__ counter with a plain
// read-modify-write. Threads of a block, and blocks, overwrite each other's
// updates on a GPU; atomicAdd(&d_count, 1) is the fix.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__device__ int d_count;

__global__ void count_threads(void)
{
    d_count = d_count + 1; /* not atomic */
}

int main(void)
{
    const int blocks = 8, threads = 128;
    int zero = 0, count = 0;
    CHECK(cudaMemcpyToSymbol(d_count, &zero, sizeof zero));
    count_threads<<<blocks, threads>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyFromSymbol(&count, d_count, sizeof count));
    printf("%d threads each added 1: d_count %s\n", blocks * threads,
           count == blocks * threads ? "is right" : "is short (updates were lost)");
    return 0;
}
