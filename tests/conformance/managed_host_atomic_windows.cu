// A host atomic on managed memory before the wait, on a device whose
// concurrentManagedAccess is 0 (GPUs under Windows, before Pascal:
// CUDASIM_MANAGED=windows): the GPU has all managed memory until the host
// waits, so the atomic faults like any access, and the report names the
// program's line that made it (managed_host_atomic.cu: the same on Linux).
#include <cstdio>

__global__ void count(int *counter) { atomicAdd_system(counter, 1); }

int main(void)
{
    int *counter;
    cudaMallocManaged(&counter, sizeof(int));
    *counter = 0;
    count<<<1, 32>>>(counter);
    printf("launched\n");
    fflush(stdout);
    __sync_fetch_and_add(counter, 1); /* no cudaDeviceSynchronize() before it */
    cudaDeviceSynchronize();
    cudaFree(counter);
    return 0;
}
