// A bug: a stencil reads its left neighbour without checking i > 0, so
// thread 0 reads index -1, before the start of the buffer.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void difference(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] - in[i - 1]; /* i = 0 reads in[-1] */
}

int main(void)
{
    const int n = 512;
    float h[n], *d_in, *d_out;
    for (int i = 0; i < n; i++) h[i] = (float)(i * i);
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, sizeof h);
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
    difference<<<n / 128, 128>>>(d_in, d_out, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("difference: %s\n", e == cudaSuccess ? "no error reported" : cudaGetErrorString(e));
    return 0;
}
