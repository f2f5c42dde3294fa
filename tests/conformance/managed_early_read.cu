// A bug: host code reads managed memory right after the launch, without
// waiting for the kernel. On a Pascal or newer GPU under Linux
// (concurrentManagedAccess = 1, the simulator's default) the read does not
// fault, but nothing orders it after the kernel's writes: a race, reported
// with both lines, and the program goes on. Run again as a device whose
// concurrentManagedAccess is 0 (GPUs under Windows, before Pascal:
// CUDASIM_MANAGED=windows, managed_early_read.windows.env), where the GPU has
// all managed memory until the host waits, the read dies of a SIGSEGV.
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
    fflush(stdout); /* (before a read that may die) */
    float early = y[0]; /* no cudaDeviceSynchronize() before it */
    cudaDeviceSynchronize();
    printf("y[0] = %.1f, then %.1f\n", early >= 2.0f ? 3.0f : early, y[0]);
    cudaFree(x);
    cudaFree(y);
    return 0;
}
