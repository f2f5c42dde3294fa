// NVIDIA's warp-aggregated atomics (its blog "CUDA Pro Tip: Optimized Filtering
// with Warp-Aggregated Atomics"), in both of its forms: the lanes that take the
// branch together elect a leader, which adds their count once, and each lane
// gets its own slot. With __activemask(), __ffs and __popc, and with
// cooperative groups' coalesced_threads(). Only the lanes of the branch take
// part: nothing waits for the others. And __activemask() itself, in a branch,
// and after __syncwarp() in a warp of 32 threads and one of 16.
#include <cstdio>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "check.h"

namespace cg = cooperative_groups;

__device__ int atomicAggInc(int *ctr)
{
    unsigned int active = __activemask();
    int leader = __ffs(active) - 1;
    int change = __popc(active);
    unsigned int lane_mask_lt = (1u << (threadIdx.x % 32)) - 1;
    unsigned int rank = __popc(active & lane_mask_lt);
    int warp_res;
    if (rank == 0) warp_res = atomicAdd(ctr, change);
    warp_res = __shfl_sync(active, warp_res, leader);
    return warp_res + rank;
}

__device__ int atomicAggIncCG(int *ctr)
{
    cg::coalesced_group g = cg::coalesced_threads();
    int warp_res;
    if (g.thread_rank() == 0) warp_res = atomicAdd(ctr, g.size());
    return g.shfl(warp_res, 0) + g.thread_rank();
}

__global__ void filter(int *dst, int *nres, const int *src, int n, int cg_form)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n && src[i] > 0) dst[cg_form ? atomicAggIncCG(nres) : atomicAggInc(nres)] = src[i];
}

__global__ void masks(unsigned *out)
{
    unsigned lane = threadIdx.x % 32;
    if (lane % 3 == 0) {
        unsigned m = __activemask();
        if (lane == 0) out[threadIdx.x / 32] = m;
    }
    __syncwarp(); /* the lanes meet again (a GPU need not reconverge them before) */
    unsigned all = __activemask();
    if (lane == 0) out[2 + threadIdx.x / 32] = all;
}

int main(void)
{
    const int n = 1000;
    int h[n], *src, *dst, *nres, count, got[n];
    long long want_sum = 0;
    int want_count = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (i * 7919) % 13 - 5; /* positive in about 7 of 13 */
        if (h[i] > 0) want_sum += h[i], want_count++;
    }
    CHECK(cudaMalloc(&src, sizeof h));
    CHECK(cudaMalloc(&dst, sizeof h));
    CHECK(cudaMalloc(&nres, sizeof(int)));
    CHECK(cudaMemcpy(src, h, sizeof h, cudaMemcpyHostToDevice));
    for (int form = 0; form < 2; form++) {
        CHECK(cudaMemset(nres, 0, sizeof(int)));
        filter<<<(n + 127) / 128, 128>>>(dst, nres, src, n, form);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&count, nres, sizeof(int), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(got, dst, count * sizeof(int), cudaMemcpyDeviceToHost));
        long long sum = 0;
        for (int i = 0; i < count; i++) sum += got[i];
        printf("%s: %d of %d kept (expected %d), their sum %lld (expected %lld)\n",
               form ? "coalesced_threads()" : "__activemask()", count, n, want_count, sum, want_sum);
    }
    unsigned *m, hm[4];
    CHECK(cudaMalloc(&m, sizeof hm));
    masks<<<1, 48>>>(m);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hm, m, sizeof hm, cudaMemcpyDeviceToHost));
    printf("__activemask() where lane %% 3 == 0: 0x%08x, 0x%08x; after __syncwarp(): 0x%08x, 0x%08x\n",
           hm[0], hm[1], hm[2], hm[3]);
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    CHECK(cudaFree(nres));
    CHECK(cudaFree(m));
    return 0;
}
