// A bug: a histogram of values in [0, 1] takes bin (int)(v * BINS), so v = 1
// lands in bin BINS, one past the last: the atomicAdd on the block's shared
// bins writes past the end of the array.
#include <cstdio>
#include <cuda_runtime.h>

#define BINS 16

__global__ void histogram(const float *v, int n, unsigned int *bins)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&local[(int)(v[i] * BINS)], 1u); /* v = 1: bin 16 */
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main(void)
{
    const int n = 256;
    float h[n], *d_v;
    unsigned int *d_bins;
    for (int i = 0; i < n; i++) h[i] = (float)i / (n - 1); /* 0 to 1, both ends */
    cudaMalloc(&d_v, sizeof h);
    cudaMalloc(&d_bins, BINS * sizeof(unsigned int));
    cudaMemcpy(d_v, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, BINS * sizeof(unsigned int));
    histogram<<<2, 128>>>(d_v, n, d_bins);
    cudaError_t e = cudaDeviceSynchronize();
    printf("histogram: %s\n", e == cudaSuccess ? "no error reported" : cudaGetErrorString(e));
    return 0;
}
