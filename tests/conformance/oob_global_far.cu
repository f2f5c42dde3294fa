// A bug: the kernel writes with the wrong stride, far (more than a page)
// past the end of its buffer. A GPU may not fault there (the address can
// belong to another allocation); compute-sanitizer and the simulator say
// which thread, which line and which buffer.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scatter(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i * 16] = 1.0f; /* should be out[i] */
}

int main(void)
{
    const int n = 1024;
    float *d;
    cudaMalloc(&d, n * sizeof(float));
    scatter<<<n / 256, 256>>>(d, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("scatter: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
