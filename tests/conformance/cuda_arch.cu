// __CUDA_ARCH__ as NVIDIA's samples test it (cuda_arch.flags: built for sm_80):
// a __device__ function that only the device pass compiles (#if at namespace
// scope, as warpAggregatedAtomicsCG and reduction have), a kernel whose body
// is compiled only for compute capability 7.0 and newer (simpleAWBarrier,
// globalToShmemAsyncCopy), and a __host__ __device__ function that picks its
// host path with #ifndef __CUDA_ARCH__ (and one marked so through a macro),
// called from the host.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

#if __CUDA_ARCH__ >= 700
__device__ int triple(int x) { return 3 * x; }
#endif

__host__ __device__ const char *side(void)
{
#ifndef __CUDA_ARCH__
    return "host";
#else
    return "device";
#endif
}

/* The same through a macro, as libraries spell it. */
#define HOST_DEVICE __host__ __device__
HOST_DEVICE const char *side_too(void)
{
#ifdef __CUDA_ARCH__
    return "device";
#else
    return "host";
#endif
}

__global__ void fill(int *out)
{
#if __CUDA_ARCH__ >= 700
    out[threadIdx.x] = triple((int)threadIdx.x);
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (threadIdx.x == 0) out[32] = 1;
#endif
}

int main(void)
{
    int h[33], *d;
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemset(d, 0, sizeof h));
    fill<<<1, 32>>>(d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    printf("out[1] = %d, out[31] = %d, compiled for 8.0 or newer: %s\n", h[1], h[31],
           h[32] ? "yes" : "no");
    printf("side() called from the host: %s, side_too(): %s\n", side(), side_too());
    CHECK(cudaFree(d));
    return 0;
}
