// A tile of 64 threads, with the scratch memory CUDA asks for it
// (cg::block_tile_memory), as NVIDIA's reduction sample does: the simulator's
// tiles have up to 32 threads, so it refuses the program in one line that says
// what it has, instead of g++'s messages about a name it lacks.
#include <cooperative_groups.h>
#include <cstdio>

namespace cg = cooperative_groups;

__global__ void ranks(int *out)
{
    __shared__ cg::block_tile_memory<128> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    out[block.thread_rank()] = tile.thread_rank();
}

int main(void)
{
    int *out;
    cudaMalloc(&out, 128 * sizeof(int));
    ranks<<<1, 128>>>(out);
    cudaDeviceSynchronize();
    cudaFree(out);
    printf("done\n");
    return 0;
}
