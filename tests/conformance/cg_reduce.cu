// Cooperative groups as the CUDA programming guide's examples use them: a
// block's sum through thread_block_tile<32> (cg::reduce, and a shfl_down
// loop of our own), the tiles' sums combined in shared memory after
// block.sync(); tiles of 16 with their meta-group rank; votes (any, all,
// ballot); cg::reduce with cg::greater, cg::less and a lambda; the tile's
// shfl, shfl_xor and shfl_up; grid_group's ranks. The float sum of 0.1-steps shows the butterfly order of cg::reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

namespace cg = cooperative_groups;

__device__ float tile_sum(cg::thread_block_tile<32> tile, float v)
{
    for (int offset = tile.size() / 2; offset > 0; offset /= 2) v += tile.shfl_down(v, offset);
    return v; /* complete in the tile's thread 0 */
}

__global__ void block_sums(const float *x, float *out, float *out_own, int *stats)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    __shared__ float partial[8], partial_own[8];
    float v = x[cg::this_grid().thread_rank()];
    float s = cg::reduce(tile, v, cg::plus<float>());
    float own = tile_sum(tile, v);
    if (tile.thread_rank() == 0) {
        partial[tile.meta_group_rank()] = s;
        partial_own[tile.meta_group_rank()] = own;
    }
    block.sync();
    if (block.thread_rank() == 0) {
        float total = 0, total_own = 0;
        for (int t = 0; t < (int)tile.meta_group_size(); t++) total += partial[t], total_own += partial_own[t];
        out[block.group_index().x] = total;
        out_own[block.group_index().x] = total_own;
    }
    /* votes and other reductions, from the first block's first tile */
    int i = (int)block.thread_rank();
    int big = cg::reduce(tile, i * 7 % 32, cg::greater<int>());
    int odd = cg::reduce(tile, i % 2, [](int a, int b) { return a + b; });
    unsigned ballot = tile.ballot(i % 3 == 0);
    int any = tile.any(i == 5), all = tile.all(i < 1000);
    cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
    int half_sum = cg::reduce(half, 1, cg::plus<int>());
    int least = cg::reduce(tile, 100 + (i * 11) % 32, cg::less<int>());
    int from5 = tile.shfl(i * 3, 5), partner = tile.shfl_xor(i, 1);
    int up = tile.shfl_up(i, 2);
    if (blockIdx.x == 0 && i == 0) {
        stats[0] = big, stats[1] = odd, stats[2] = (int)ballot, stats[3] = any, stats[4] = all;
        stats[5] = half_sum, stats[6] = (int)half.meta_group_size();
        stats[7] = (int)cg::this_grid().size();
    }
    if (blockIdx.x == 0 && i == 6) stats[8] = least, stats[9] = from5, stats[10] = partner, stats[11] = up;
}

int main(void)
{
    const int blocks = 4, threads = 256, n = blocks * threads;
    float x[n], out[blocks], out_own[blocks];
    for (int i = 0; i < n; i++) x[i] = 0.1f * (float)(i % 37);
    float *dx, *dout, *dout_own;
    int *dstats, stats[12];
    CHECK(cudaMalloc(&dx, sizeof x));
    CHECK(cudaMalloc(&dout, sizeof out));
    CHECK(cudaMalloc(&dout_own, sizeof out_own));
    CHECK(cudaMalloc(&dstats, sizeof stats));
    CHECK(cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice));
    block_sums<<<blocks, threads>>>(dx, dout, dout_own, dstats);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(out_own, dout_own, sizeof out_own, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(stats, dstats, sizeof stats, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        double want = 0;
        for (int i = b * threads; i < (b + 1) * threads; i++) want += x[i];
        printf("block %d: cg::reduce %.9g, shfl_down %.9g (exact sum %.4f)\n", b, out[b], out_own[b],
               want);
    }
    printf("max %d, odd lanes %d, ballot of multiples of 3 0x%08x, any %d, all %d\n", stats[0],
           stats[1], (unsigned)stats[2], stats[3], stats[4]);
    printf("tile of 16 sums to %d, %d tiles of 16 in a block, %d threads in the grid\n", stats[5],
           stats[6], stats[7]);
    printf("in lane 6: least %d, lane 5's value %d, from shfl_xor 1 %d, from shfl_up 2 %d\n",
           stats[8], stats[9], stats[10], stats[11]);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
