// A bug: a kernel that updates a __constant__ table in place. Constant
// memory is read-only in kernels: nvcc only warns ("Cannot store to pointer
// that points to constant memory space"), and what a GPU does with the
// store is undefined; the simulator names the variable and stops the kernel.
#include <cstdio>
#include <cuda_runtime.h>

__constant__ float scale[4];

__global__ void rescale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= scale[i % 4];
    if (i == 0) {
        float *s = (float *)scale; /* the bug: the table is halved for the next launch */
        s[0] = scale[0] * 0.5f;
    }
}

int main(void)
{
    const int n = 64;
    float h[n], h_scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    for (int i = 0; i < n; i++) h[i] = 1.0f;
    float *d;
    cudaMemcpyToSymbol(scale, h_scale, sizeof h_scale);
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    rescale<<<1, n>>>(d, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("rescale: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
