// System-wide atomics on managed memory, as NVIDIA's systemWideAtomics sample
// uses them: the kernel adds with atomicAdd_system while the host adds with
// __sync_fetch_and_add, before either waits for the other. On a Pascal or
// newer GPU under Linux (concurrentManagedAccess = 1) the two are ordered, so
// nothing is reported of the counter. A plain host write before the wait to
// the flag the kernel writes is a race with the kernel, and is reported. Run
// again as a device whose concurrentManagedAccess is 0 (GPUs under Windows,
// before Pascal: CUDASIM_MANAGED=windows, managed_host_atomic.windows.env),
// where the GPU has all managed memory until the host waits: the first host
// atomic faults like any access, and the report names its line.
#include <cstdio>

#include "check.h"

__global__ void count(int *counter, int *flag)
{
    atomicAdd_system(counter, 1);
    if (threadIdx.x == 0 && blockIdx.x == 0) *flag = 1;
}

int main(void)
{
    int *counter, *flag;
    CHECK(cudaMallocManaged(&counter, sizeof(int)));
    CHECK(cudaMallocManaged(&flag, sizeof(int)));
    *counter = 0;
    *flag = 0;
    count<<<4, 64>>>(counter, flag);
    for (int i = 0; i < 100; i++) __sync_fetch_and_add(counter, 1); /* system-scope: no race */
    *flag = 2; /* a plain write before the wait: a race with the kernel's */
    CHECK(cudaDeviceSynchronize());
    printf("counter = %d, flag = %s\n", *counter, *flag == 1 || *flag == 2 ? "1 or 2" : "neither");
    CHECK(cudaFree(counter));
    CHECK(cudaFree(flag));
    return 0;
}
