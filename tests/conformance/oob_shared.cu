// A bug: a shared-memory stencil reads one element past its __shared__ tile
// (the halo was forgotten).
#include <cstdio>
#include <cuda_runtime.h>

#define BLOCK 64

__global__ void smooth(const float *in, float *out)
{
    __shared__ float tile[BLOCK];
    int t = threadIdx.x, i = blockIdx.x * BLOCK + t;
    tile[t] = in[i];
    __syncthreads();
    out[i] = 0.5f * (tile[t] + tile[t + 1]); /* t = 63 reads tile[64] */
}

int main(void)
{
    const int n = 4 * BLOCK;
    float h[n], *d_in, *d_out;
    for (int i = 0; i < n; i++) h[i] = (float)i;
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, sizeof h);
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
    smooth<<<n / BLOCK, BLOCK>>>(d_in, d_out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("smooth: %s\n", e == cudaSuccess ? "no error reported" : cudaGetErrorString(e));
    return 0;
}
