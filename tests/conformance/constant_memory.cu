// Constant memory and a __device__ variable: filter taps set with
// cudaMemcpyToSymbol, a counter read back with cudaMemcpyFromSymbol.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

#define TAPS 5
__constant__ float taps[TAPS];
__device__ unsigned int clipped;

__global__ void convolve(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < TAPS; k++) {
        int j = i + k - TAPS / 2;
        if (j >= 0 && j < n) acc += taps[k] * in[j];
    }
    if (acc > 10.0f) {
        acc = 10.0f;
        atomicAdd(&clipped, 1u);
    }
    out[i] = acc;
}

int main(void)
{
    const int n = 1000;
    float h_taps[TAPS] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f}, in[n], out[n];
    for (int i = 0; i < n; i++) in[i] = (float)(i % 23);
    unsigned int zero = 0, count = 0;
    CHECK(cudaMemcpyToSymbol(taps, h_taps, sizeof h_taps));
    CHECK(cudaMemcpyToSymbol(clipped, &zero, sizeof zero));
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof in));
    CHECK(cudaMalloc(&d_out, sizeof out));
    CHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
    convolve<<<(n + 127) / 128, 128>>>(d_in, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(&count, clipped, sizeof count));
    float back[TAPS];
    CHECK(cudaMemcpyFromSymbol(back, taps, sizeof back));
    printf("taps read back: %g %g %g %g %g\n", back[0], back[1], back[2], back[3], back[4]);
    printf("out[0] = %.2f, out[22] = %.2f, out[500] = %.2f; %u values clipped to 10\n", out[0],
           out[22], out[500], count);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
