// A grid sync orders what every block did before it with what any block does
// after it: block 1 reads, after the sync, what block 0 wrote before it. No
// race (coop_grid_sync_race.cu is the same without the sync).
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void handoff(int *data, int *out)
{
    if (blockIdx.x == 0) data[threadIdx.x] = threadIdx.x * 3;
#ifndef WITHOUT_SYNC
    cg::this_grid().sync();
#endif
    if (blockIdx.x == 1) out[threadIdx.x] = data[threadIdx.x] + 1;
#ifndef WITHOUT_SYNC
    cg::this_grid().sync();
    if (blockIdx.x == 0) data[threadIdx.x] = out[threadIdx.x]; // after block 1's read
#endif
}

int main()
{
    int *data, *out;
    cudaMallocManaged(&data, 32 * sizeof(int));
    cudaMallocManaged(&out, 32 * sizeof(int));
    void *args[] = {&data, &out};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)handoff, 2, 32, args, 0, 0);
    cudaDeviceSynchronize();
    printf("%s: out[5] = %d\n", cudaGetErrorName(e), out[5]);
    cudaFree(data);
    cudaFree(out);
    return 0;
}
