// A bug: the tile's shuffle is inside a branch that only half of the tile
// takes, so lanes 16-31 never arrive at it. On a GPU the result is
// undefined (or the warp hangs); the simulator stops the launch and names
// the lanes that skipped it.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

__global__ void halves(const int *x, int *out)
{
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    int v = x[threadIdx.x];
    if (tile.thread_rank() < 16) {
        v += tile.shfl_down(v, 16); /* lanes 16-31 are not here */
        out[threadIdx.x] = v;
    }
}

int main(void)
{
    int h[32], *x, *out;
    for (int i = 0; i < 32; i++) h[i] = i;
    cudaMalloc(&x, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    halves<<<1, 32>>>(x, out);
    cudaError_t e = cudaDeviceSynchronize();
    printf("halves: %s\n", e == cudaSuccess ? "finished" : "failed");
    return 0;
}
