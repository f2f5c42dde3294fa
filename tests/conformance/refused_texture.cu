// A 1D texture read, as the CUDA samples' simpleTexture family does it
// (texture objects over a cudaArray): the simulator has no texture units, so
// it refuses the program before compiling it, in one line that names what
// is missing, where nvcc builds it.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void fetch(cudaTextureObject_t tex, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(tex, i);
}

int main(void)
{
    const int n = 256;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d_in;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = n * sizeof(float);
    cudaTextureDesc desc = {};
    desc.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    CHECK(cudaCreateTextureObject(&tex, &res, &desc, NULL));
    fetch<<<1, n>>>(tex, d_out, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaDestroyTextureObject(tex));
    printf("done\n");
    return 0;
}
