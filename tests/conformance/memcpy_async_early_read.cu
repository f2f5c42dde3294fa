// A bug: the block copies a tile to shared memory with cooperative groups'
// memcpy_async and synchronizes with block.sync(), but never waits for the
// copy (cg::wait), so the tile may not have landed when the threads read it.
// On a GPU the copy is usually quick and the bug hides; the simulator lands a
// copy only when it is waited for, so the threads read the old bytes, and it
// reports each read of a destination that its copy has not reached.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

#define T 64

__global__ void tile_sum(const float *x, float *out)
{
    __shared__ float tile[T];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, tile, x + blockIdx.x * T, sizeof(float) * T);
    block.sync(); // BUG: cg::wait(block) waits for the copy, then syncs
    float v = tile[(threadIdx.x + 1) % T];
    out[blockIdx.x * T + threadIdx.x] = v;
}

int main(void)
{
    float h[T], *x, *out;
    for (int i = 0; i < T; i++) h[i] = (float)i;
    cudaMalloc(&x, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    tile_sum<<<1, T>>>(x, out);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    int right = 0;
    for (int i = 0; i < T; i++) right += h[i] == (float)((i + 1) % T);
    printf("tile_sum: %d of %d values copied before they were read\n", right, T);
    return 0;
}
