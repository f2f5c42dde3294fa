// A bug: a vectorised copy that reads float4s from one float past the start
// of a buffer, reinterpret_cast<const float4 *>(in + 1). A float4 access must
// be at an address that is a multiple of 16 bytes: a GPU stops the kernel
// with a misaligned address, and compute-sanitizer reports an "Invalid
// __global__ read of size 16 bytes" whose address "is misaligned".
#include <cstdio>
#include <cuda_runtime.h>

__global__ void copy4(const float *in, float *out, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float4 *src = reinterpret_cast<const float4 *>(in + 1); /* the bug: 4 bytes off */
    if (i < n4) {
        float4 v = src[i];
        reinterpret_cast<float4 *>(out)[i] = v;
    }
}

int main(void)
{
    const int n = 1024;
    float h[n + 4];
    for (int i = 0; i < n + 4; i++) h[i] = (float)i;
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, n * sizeof(float));
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
    copy4<<<1, n / 4>>>(d_in, d_out, n / 4);
    cudaError_t e = cudaDeviceSynchronize();
    printf("copy4: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
