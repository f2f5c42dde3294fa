// Warps with different roles, each waiting at a __syncthreads of its own (as
// siboehm's double-buffered SGEMM does): a GPU since Volta takes the
// __syncthreads of different warps as one barrier of the block, so long as
// every lane of a warp reaches the same one. Warps 0-1 load the next tile
// while warps 2-3 sum the current one, then they swap.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void pipelined_sum(const float *x, int tiles, float *out)
{
    __shared__ float buf[2][64];
    int t = threadIdx.x, lane = t % 64;
    bool loader = t < 64;
    float sum = 0;
    if (loader) buf[0][lane] = x[lane];
    __syncthreads();
    for (int k = 0; k < tiles; k++) {
        if (loader) {
            if (k + 1 < tiles) buf[(k + 1) % 2][lane] = x[(k + 1) * 64 + lane];
            __syncthreads(); /* the loaders' */
        } else {
            sum += buf[k % 2][lane];
            __syncthreads(); /* the summers' */
        }
    }
    if (!loader) out[lane] = sum;
}

int main(void)
{
    const int tiles = 8, n = tiles * 64;
    float h[n], *x, *out, r[64];
    for (int i = 0; i < n; i++) h[i] = (float)(i % 64) + (float)(i / 64) * 0.5f;
    CHECK(cudaMalloc(&x, sizeof h));
    CHECK(cudaMalloc(&out, sizeof r));
    CHECK(cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice));
    pipelined_sum<<<1, 128>>>(x, tiles, out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
    /* lane l: 8 l + 0.5 (0 + ... + 7) */
    printf("lane 0: %g, lane 1: %g, lane 63: %g\n", r[0], r[1], r[63]);
    CHECK(cudaFree(x));
    CHECK(cudaFree(out));
    return 0;
}
