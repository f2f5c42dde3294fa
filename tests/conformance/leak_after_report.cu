// A leak reported at exit by a program that had a report made earlier, from a
// folder whose name is longer than a short string holds in place: the leak
// check runs after the destructors of what the first report set up, and must
// not use any of it (under ASan: no use after free).
#include <cstdio>
#include <cuda_runtime.h>
#include <unistd.h>

#include "check.h"

int main(void)
{
    if (chdir("/proc/sys/kernel") != 0) return 1; /* (a long name on every Linux) */
    float *kept;
    CHECK(cudaMalloc(&kept, 64 * sizeof(float)));
    int on_the_host = 0;
    cudaError_t e = cudaFree(&on_the_host); /* reported, and refused */
    printf("cudaFree of a host address: %s\n", cudaGetErrorName(e));
    cudaGetLastError();
    return 0;
}
