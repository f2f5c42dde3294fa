// Launches over the limits fail with the error a GPU gives, and the error
// is cleared by cudaGetLastError; a good launch afterwards works.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int *x, int v)
{
    extern __shared__ int scratch[];
    scratch[threadIdx.x] = v;
    x[blockIdx.x * blockDim.x + threadIdx.x] = scratch[threadIdx.x];
}

int main(void)
{
    int *d, h[64];
    cudaMalloc(&d, sizeof h);

    fill<<<1, 2048, 2048 * sizeof(int)>>>(d, 1); /* more than 1024 threads */
    cudaError_t e = cudaGetLastError();
    printf("2048 threads per block: %s (%s)\n", cudaGetErrorName(e), cudaGetErrorString(e));

    fill<<<1, dim3(4, 4, 128)>>>(d, 2); /* z over 64 */
    e = cudaGetLastError();
    printf("block (4,4,128): %s\n", cudaGetErrorName(e));

    fill<<<dim3(1, 70000), 1, 4>>>(d, 3); /* grid y over 65535 */
    e = cudaGetLastError();
    printf("grid (1,70000): %s\n", cudaGetErrorName(e));

    fill<<<1, 64, 100 * 1024>>>(d, 4); /* 100 KiB of dynamic shared memory, no opt-in */
    e = cudaGetLastError();
    printf("100 KiB of dynamic shared memory: %s\n", cudaGetErrorName(e));

    printf("after cudaGetLastError: %s\n", cudaGetErrorName(cudaGetLastError()));
    fill<<<2, 32, 32 * sizeof(int)>>>(d, 7);
    e = cudaDeviceSynchronize();
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("a good launch: %s, h[0] = %d, h[63] = %d\n", cudaGetErrorName(e), h[0], h[63]);
    cudaFree(d);
    return 0;
}
