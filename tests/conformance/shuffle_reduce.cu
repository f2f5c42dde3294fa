// Warp-level reduction with __shfl_down_sync, then one atomicAdd per warp;
// and the warp's maximum with __shfl_xor_sync (every lane gets it), one per
// warp of the grid (the last ones, past n, find none).
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__inline__ __device__ int warp_sum(int v)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__inline__ __device__ int warp_max(int v)
{
    for (int mask = 16; mask > 0; mask >>= 1) v = max(v, __shfl_xor_sync(0xffffffff, v, mask));
    return v;
}

__global__ void reduce(const int *in, int n, int *sum, int *maxima)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int s = warp_sum(v);
    int m = warp_max(i < n ? in[i] : -1000000);
    int lane = threadIdx.x % warpSize, warp = i / warpSize;
    if (lane == 0) {
        atomicAdd(sum, s);
        maxima[warp] = m;
    }
}

int main(void)
{
    const int n = 5000, blocks = (n + 127) / 128, warps = blocks * 128 / 32;
    int h[n], hmax[warps], total = 0;
    long long expect = 0;
    for (int i = 0; i < n; i++) {
        h[i] = (i * 37) % 101 - 50;
        expect += h[i];
    }
    int *d_in, *d_sum, *d_max;
    CHECK(cudaMalloc(&d_in, sizeof h));
    CHECK(cudaMalloc(&d_sum, sizeof(int)));
    CHECK(cudaMalloc(&d_max, sizeof hmax));
    CHECK(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sum, 0, sizeof(int)));
    reduce<<<blocks, 128>>>(d_in, n, d_sum, d_max);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(&total, d_sum, sizeof total, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hmax, d_max, sizeof hmax, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int w = 0; w < warps; w++) {
        int m = -1000000;
        for (int i = w * 32; i < n && i < w * 32 + 32; i++) m = h[i] > m ? h[i] : m;
        bad += hmax[w] != m;
    }
    printf("warp shuffle sum: %d (expected %lld)\n", total, expect);
    printf("warp maxima: %d warps, %d wrong; warp 0: %d, last warp: %d\n", warps, bad, hmax[0],
           hmax[warps - 1]);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return total != expect || bad;
}
