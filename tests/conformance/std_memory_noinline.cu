// <memory> included after cuda_runtime.h, and a __noinline__ device function:
// GCC 12's <memory> spells an attribute __noinline__, which CUDA's headers
// (and the simulator's) define as a macro; nvcc and the simulator take both.
#include <cuda_runtime.h>
#include <cstdio>
#include <memory>

#include "check.h"

__device__ __noinline__ int twice(int v) { return 2 * v; }

__global__ void fill_twice(int *x)
{
    x[threadIdx.x] = twice(threadIdx.x);
}

int main(void)
{
    auto host = std::make_unique<int[]>(4);
    std::shared_ptr<int> shared = std::make_shared<int>(7);
    int *d;
    CHECK(cudaMalloc(&d, 4 * sizeof(int)));
    fill_twice<<<1, 4>>>(d);
    CHECK(cudaMemcpy(host.get(), d, 4 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    printf("%d %d %d %d, shared %d\n", host[0], host[1], host[2], host[3], *shared);
    return 0;
}
