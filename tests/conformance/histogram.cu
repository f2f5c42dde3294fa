// A histogram with atomics: each block counts into its own bins in shared
// memory (atomicAdd on shared), then adds them to the global bins.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

#define BINS 64

__global__ void histogram(const unsigned char *data, int n, unsigned int *bins)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main(void)
{
    const int n = 1 << 18;
    static unsigned char h[1 << 18];
    unsigned int expect[BINS] = {0}, got[BINS];
    for (int i = 0; i < n; i++) {
        h[i] = (unsigned char)((i * 2654435761u) >> 24);
        expect[h[i] % BINS]++;
    }
    unsigned char *d_data;
    unsigned int *d_bins;
    CHECK(cudaMalloc(&d_data, n));
    CHECK(cudaMalloc(&d_bins, sizeof got));
    CHECK(cudaMemcpy(d_data, h, n, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_bins, 0, sizeof got));
    histogram<<<32, 256>>>(d_data, n, d_bins);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, d_bins, sizeof got, cudaMemcpyDeviceToHost));
    int wrong = 0;
    unsigned int total = 0;
    for (int b = 0; b < BINS; b++) {
        wrong += got[b] != expect[b];
        total += got[b];
    }
    printf("histogram of %d bytes in %d bins: total %u, bin 0 %u, bin 63 %u, wrong bins %d\n", n,
           BINS, total, got[0], got[63], wrong);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return wrong != 0;
}
