// A bug: the wrong stride writes past the end of the buffer from thread 64 on,
// and far (more than a page) past it from thread 128 on. A GPU may not fault
// there; compute-sanitizer and the simulator say which thread, which line and
// which buffer: the simulator the first thread, and how many more faulted.
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
