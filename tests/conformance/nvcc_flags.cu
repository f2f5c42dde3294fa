// A program that needs nvcc's options (nvcc_flags.flags, make sim-run's
// NVCCFLAGS): a __device__ lambda (--extended-lambda) given to a template
// kernel, and __reduce_add_sync, an intrinsic of compute capability 8.0
// (-arch=sm_80). refused_nvcc_flags.cu is the same without them.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

template <typename F>
__global__ void apply(float *x, int n, F f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = f(x[i]);
}

__global__ void warp_sums(const int *x, int *out)
{
    int total = __reduce_add_sync(0xffffffffu, x[blockIdx.x * 32 + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

int main(void)
{
    const int n = 64;
    float h[n], *x;
    int hi[n], *v, sums[2], *out;
    for (int i = 0; i < n; i++) {
        h[i] = (float)i;
        hi[i] = i;
    }
    CHECK(cudaMalloc(&x, sizeof h));
    CHECK(cudaMalloc(&v, sizeof hi));
    CHECK(cudaMalloc(&out, sizeof sums));
    CHECK(cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(v, hi, sizeof hi, cudaMemcpyHostToDevice));
    float a = 2.0f, b = 1.0f;
    apply<<<2, 32>>>(x, n, [a, b] __device__(float t) { return a * t + b; });
    warp_sums<<<2, 32>>>(v, out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost));
    printf("x[0] = %g, x[63] = %g; warp sums %d %d\n", h[0], h[63], sums[0], sums[1]);
    CHECK(cudaFree(x));
    CHECK(cudaFree(v));
    CHECK(cudaFree(out));
    return 0;
}
