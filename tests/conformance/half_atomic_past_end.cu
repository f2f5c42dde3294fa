// A bug: a histogram of __half2 pairs with one bin too few: the value 1.0
// lands one past the last bin, and the atomicAdd on __half2 writes past the
// end of the allocation. Checked as any atomic is.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define BINS 8

__global__ void histogram(const float *v, int n, __half2 *bins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[(int)(v[i] * BINS)], __floats2half2_rn(1.0f, v[i]));
}

int main(void)
{
    const int n = 64;
    float h[n], *d_v;
    for (int i = 0; i < n; i++) h[i] = (float)i / (n - 1); /* the last is 1.0: bin 8 */
    __half2 *d_bins;
    cudaMalloc(&d_v, sizeof h);
    cudaMalloc(&d_bins, BINS * sizeof(__half2));
    cudaMemcpy(d_v, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, BINS * sizeof(__half2));
    histogram<<<1, n>>>(d_v, n, d_bins);
    cudaError_t e = cudaDeviceSynchronize();
    printf("histogram: %s\n", e == cudaSuccess ? "no error reported" : cudaGetErrorString(e));
    return 0;
}
