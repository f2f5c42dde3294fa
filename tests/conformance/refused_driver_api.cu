// The driver API (cuInit, cuDeviceGet, cuMemAlloc), as the CUDA samples'
// *Drv programs use it next to the runtime: the simulator has the runtime
// API only, and refuses the program in one line, where nvcc builds it (the
// program would link with -lcuda).
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

int main(void)
{
    CUdevice device;
    CUdeviceptr d_x;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS) return 1;
    if (cuMemAlloc(&d_x, 1024) != CUDA_SUCCESS) return 1;
    printf("CUDA_VERSION %d\n", CUDA_VERSION);
    cuMemFree(d_x);
    return 0;
}
