// A texture reference, the form CUDA 12 removed (texture<float, 1> bound
// with cudaBindTexture): nvcc 13 rejects it, and the simulator refuses it in
// one line that names the texture object to use instead. (Texture objects,
// which the simulator has, are in texture_fetch.cu and its kin.)
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

texture<float, 1, cudaReadModeElementType> tref;

__global__ void fetch(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch(tref, i);
}

int main(void)
{
    const int n = 256;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaBindTexture(0, tref, d_in, n * sizeof(float)));
    fetch<<<1, n>>>(d_out, n);
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}
