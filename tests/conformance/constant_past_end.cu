// A bug: a filter loop runs one tap too far, `k <= TAPS`, reading past the
// end of a __constant__ array. A GPU reads on into its constant bank without
// an error (compute-sanitizer does not look at constant memory either); the
// simulator names the array and stops the kernel.
#include <cstdio>
#include <cuda_runtime.h>

#define TAPS 5
__constant__ float taps[TAPS];

__global__ void convolve(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k <= TAPS; k++) { /* should be k < TAPS */
        int j = i + k - TAPS / 2;
        if (j >= 0 && j < n) acc += taps[k] * in[j];
    }
    out[i] = acc;
}

int main(void)
{
    const int n = 256;
    float h_taps[TAPS] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f}, in[n];
    for (int i = 0; i < n; i++) in[i] = (float)(i % 7);
    float *d_in, *d_out;
    cudaMemcpyToSymbol(taps, h_taps, sizeof h_taps);
    cudaMalloc(&d_in, sizeof in);
    cudaMalloc(&d_out, sizeof in);
    cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice);
    convolve<<<n / 128, 128>>>(d_in, d_out, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("convolve: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
