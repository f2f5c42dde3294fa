// cudaLaunchKernel with the kernel cast to void *, as NVIDIA's samples write it:
// a plain kernel, an instantiation of a template, a table of kernels chosen at
// run time, the defaults of its last two arguments, and a pointer that is not a
// kernel (CUDA: invalid device function).
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void add(float *x, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}

__global__ void mul(float *x, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= v;
}

template <typename T, int STRIDE>
__global__ void gather(const T *in, T *out, int n)
{
    __shared__ T staged[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    staged[threadIdx.x] = i * STRIDE < n ? in[i * STRIDE] : T(0);
    __syncthreads();
    if (i * STRIDE < n) out[i] = staged[threadIdx.x];
}

static void host_function(void) {}

int main(void)
{
    const int n = 256;
    float h[n], *x, *y;
    for (int i = 0; i < n; i++) h[i] = (float)i;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice));

    /* x = (x + 1) * 3 - ... : a table of kernels and their values */
    void *table[] = {(void *)add, (void *)mul, (void *)add};
    float values[] = {1.0f, 3.0f, -2.0f};
    int count = n;
    for (int k = 0; k < 3; k++) {
        void *args[] = {&x, &values[k], &count};
        CHECK(cudaLaunchKernel(table[k], dim3(n / 64), dim3(64), args, 0, 0));
    }
    /* every second element, by an instantiation of a template; no shared size or stream given */
    const float *in = x;
    void *args[] = {&in, &y, &count};
    CHECK(cudaLaunchKernel((const void *)gather<float, 2>, dim3(2), dim3(64), args));
    CHECK(cudaMemcpy(h, y, sizeof h, cudaMemcpyDeviceToHost));
    printf("y[0] = %g, y[1] = %g, y[127] = %g\n", h[0], h[1], h[127]);

    cudaError_t e = cudaLaunchKernel((const void *)host_function, dim3(1), dim3(1), nullptr, 0, 0);
    printf("cudaLaunchKernel(a host function): %s\n", cudaGetErrorString(e));
    printf("then cudaGetLastError: %s\n", cudaGetErrorString(cudaGetLastError()));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    return 0;
}
