// A bug: only the lanes that hold "their" rows store the tile, but
// store_matrix_sync is a collective of the whole warp (every lane holds part
// of every row). On a GPU the result is undefined; the simulator reports the
// lanes that never came, as for a warp operation in a divergent branch.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

__global__ void ones_tile(float *c)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 1.0f);
    if (threadIdx.x < 16) // BUG: every lane must store
        wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

int main(void)
{
    float *c;
    cudaMalloc(&c, 256 * sizeof(float));
    ones_tile<<<1, 32>>>(c);
    cudaError_t e = cudaDeviceSynchronize();
    printf("ones_tile: %s\n", e == cudaSuccess ? "finished" : "failed");
    return 0;
}
