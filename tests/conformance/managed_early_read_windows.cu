// A bug: host code reads managed memory right after the launch, without
// waiting for the kernel. On a device whose concurrentManagedAccess is 0
// (GPUs under Windows, GPUs before Pascal: CUDASIM_MANAGED=windows) the GPU
// has all managed memory until the host waits, and the read dies of a
// SIGSEGV; on others it may read y before the kernel wrote it
// (managed_early_read.cu).
#include <cstdio>

__global__ void add(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + y[i];
}

int main(void)
{
    const int n = 1 << 10;
    float *x, *y;
    cudaMallocManaged(&x, n * sizeof(float));
    cudaMallocManaged(&y, n * sizeof(float));
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }
    add<<<(n + 255) / 256, 256>>>(n, x, y);
    printf("launched\n");
    fflush(stdout);
    printf("y[0] = %.1f\n", y[0]); /* no cudaDeviceSynchronize() before it */
    cudaDeviceSynchronize();
    cudaFree(x);
    cudaFree(y);
    return 0;
}
