// A bug: a block that returns before the grid sync that the others wait at.
// Every thread of every block of a cooperative launch must reach every grid
// sync; on a GPU the other blocks would wait for ever.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void early_exit(int *data)
{
    if (blockIdx.x == 2) return; // "nothing to do" for this block
    data[blockIdx.x] = 1;
    cg::this_grid().sync();
    if (threadIdx.x == 0) data[blockIdx.x] += data[(blockIdx.x + 1) % gridDim.x];
}

int main()
{
    int *data;
    cudaMalloc(&data, 4 * sizeof(int));
    void *args[] = {&data};
    cudaLaunchCooperativeKernel((void *)early_exit, 4, 1, args, 0, 0);
    printf("%s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
