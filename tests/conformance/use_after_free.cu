// A bug: a buffer is freed too early, then copied from and used by a
// kernel. The copy fails with an invalid argument; the kernel faults.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void negate(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = -x[i];
}

int main(void)
{
    const int n = 1000;
    float h[n], *d;
    for (int i = 0; i < n; i++) h[i] = (float)i;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    cudaFree(d); /* too early */
    cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("cudaMemcpy from the freed buffer: %s\n", cudaGetErrorString(e));
    negate<<<(n + 255) / 256, 256>>>(d, n);
    e = cudaDeviceSynchronize();
    printf("negate on the freed buffer: %s\n", cudaGetErrorString(e));
    return 0;
}
