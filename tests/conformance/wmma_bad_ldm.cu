// A bug: the shared tile is padded by 4 __half per row to spread its rows
// over the banks, but WMMA needs every row 16 bytes aligned, so ldm must be a
// multiple of 8 (__half elements). load_matrix_sync with ldm 20 is undefined
// (a GPU's loads of the misaligned rows fault); the simulator stops the
// launch at the program's line and says which rule was broken.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

#define PAD 4 // BUG: a multiple of 8 keeps the rows aligned

__global__ void tile_product(const half *a, const half *b, float *c)
{
    __shared__ __align__(32) half sa[16][16 + PAD];
    for (int i = threadIdx.x; i < 256; i += 32) sa[i / 16][i % 16] = a[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, &sa[0][0], 16 + PAD);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

int main(void)
{
    half h[256];
    for (int i = 0; i < 256; i++) h[i] = __float2half(1.0f);
    half *a, *b;
    float *c;
    cudaMalloc(&a, sizeof h);
    cudaMalloc(&b, sizeof h);
    cudaMalloc(&c, 256 * sizeof(float));
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
    tile_product<<<1, 32>>>(a, b, c);
    cudaError_t e = cudaDeviceSynchronize();
    printf("tile_product: %s\n", cudaGetErrorString(e));
    return 0;
}
