// A cooperative launch of more blocks than are on the device at once: CUDA
// refuses it (cudaErrorCooperativeLaunchTooLarge), and the kernel does not run.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void count(int *n)
{
    if (threadIdx.x == 0) atomicAdd(n, 1);
    cg::this_grid().sync();
}

int main()
{
    int *n;
    cudaMallocManaged(&n, sizeof(int));
    *n = 0;
    int per_sm = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, count, 512, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int blocks = per_sm * sms + 1;
    void *args[] = {&n};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)count, blocks, 512, args, 0, 0);
    printf("one block too many: %s\n", cudaGetErrorName(e));
    cudaDeviceSynchronize();
    printf("blocks that ran: %d\n", *n);
    e = cudaLaunchCooperativeKernel((void *)count, blocks - 1, 512, args, 0, 0);
    cudaDeviceSynchronize();
    printf("as many as fit: %s, blocks that ran: %d\n", cudaGetErrorName(e), *n);
    cudaFree(n);
    return 0;
}
