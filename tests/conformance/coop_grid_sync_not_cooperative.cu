// A bug: a kernel that syncs its grid, launched with <<< >>>. Only a
// cooperative launch (cudaLaunchCooperativeKernel) may sync the grid; on a
// GPU the sync is undefined here (this_grid().is_valid() is false).
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void two_phases(int *data)
{
    data[blockIdx.x] = blockIdx.x;
    cg::this_grid().sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) data[0] += data[gridDim.x - 1];
}

int main()
{
    int *data;
    cudaMalloc(&data, 4 * sizeof(int));
    two_phases<<<4, 1>>>(data);
    cudaError_t e = cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorName(e));
    return 0;
}
