// Prefetching managed memory as CUDA 12 and the blog posts before it wrote
// it: cudaMemPrefetchAsync(ptr, bytes, device, stream). CUDA 13 removed that
// form (the destination is a cudaMemLocation now, and flags come before the
// stream): nvcc 13 rejects the program, so the simulator must too.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void twice(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

int main(void)
{
    const int n = 1024;
    float *x;
    CHECK(cudaMallocManaged(&x, n * sizeof(float)));
    for (int i = 0; i < n; i++) x[i] = (float)i;
    int device = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaMemPrefetchAsync(x, n * sizeof(float), device, 0));
    twice<<<(n + 255) / 256, 256>>>(x, n);
    CHECK(cudaDeviceSynchronize());
    printf("x[%d] = %.1f\n", n - 1, x[n - 1]);
    CHECK(cudaFree(x));
    return 0;
}
