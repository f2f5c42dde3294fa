// A bug: the accumulator buffer was allocated but never cleared, and the
// kernel adds to it. cudaMalloc does not clear memory (here the simulator's
// initcheck names the read; on a GPU the result is whatever was there).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void accumulate(const float *x, float *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += x[i];
}

int main(void)
{
    const int n = 256;
    float h[n], *d_x, *d_acc;
    for (int i = 0; i < n; i++) h[i] = 1.0f;
    cudaMalloc(&d_x, sizeof h);
    cudaMalloc(&d_acc, sizeof h); /* missing: cudaMemset(d_acc, 0, sizeof h) */
    cudaMemcpy(d_x, h, sizeof h, cudaMemcpyHostToDevice);
    accumulate<<<2, 128>>>(d_x, d_acc, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("accumulate: %s\n", cudaGetErrorString(e));
    return 0;
}
