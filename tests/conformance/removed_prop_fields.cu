// Device properties as programs written before CUDA 13 read them: the clock
// rates, the compute mode and the kernel timeout from cudaDeviceProp. CUDA 13
// removed those fields (cudaDeviceGetAttribute answers them), so nvcc 13
// rejects the program, and the simulator must too, naming the attribute.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

int main(void)
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("%s: SM clock %d kHz, memory clock %d kHz\n", prop.name, prop.clockRate,
           prop.memoryClockRate);
    double bandwidth = 2.0 * prop.memoryClockRate * (prop.memoryBusWidth / 8) / 1.0e6;
    printf("peak memory bandwidth %.1f GB/s\n", bandwidth);
    if (prop.computeMode == cudaComputeModeProhibited) printf("compute prohibited\n");
    CHECK(cudaThreadSynchronize());
    return 0;
}
