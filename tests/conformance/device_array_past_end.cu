// A bug: a histogram in a __device__ array of 16 bins, whose bin index is
// computed for values up to 16 inclusive: the largest value lands one bin
// past the end. On a GPU the atomic adds to whatever lies after the array;
// the simulator names the array and stops the kernel.
#include <cstdio>
#include <cuda_runtime.h>

#define BINS 16
__device__ unsigned int bins[BINS];

__global__ void histogram(const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[(int)(x[i] * BINS)], 1u); /* x == 1.0 gives bin 16 */
}

int main(void)
{
    const int n = 512;
    float h[n];
    for (int i = 0; i < n; i++) h[i] = (float)i / (n - 1); /* 0 .. 1, both ends included */
    float *d;
    unsigned int zero[BINS] = {0};
    cudaMemcpyToSymbol(bins, zero, sizeof zero);
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    histogram<<<n / 256, 256>>>(d, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("histogram: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
