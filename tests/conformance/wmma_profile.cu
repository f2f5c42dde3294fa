// What the simulator's profiler counts of WMMA's loads and stores
// (wmma_profile.profile): each lane's own run of the tile, in 16-byte pieces,
// as shared or global accesses by the address. One warp:
//  - copies a 16x16 __half tile (512 bytes) from global to shared memory, a
//    16-byte int4 per lane: 1 global load request of 16 sectors, 1 shared
//    store of 4 wavefronts;
//  - load_matrix_sync of that tile from shared memory (ldm 16): each lane's
//    8 __half are one 16-byte piece, 1 shared load of 4 wavefronts;
//  - load_matrix_sync of B from global memory (col-major, ldm 16): 1 request
//    of 16 sectors;
//  - store_matrix_sync of the float accumulator to global memory (row-major,
//    ldm 16): each lane's 8 floats are two 16-byte pieces, 2 requests; lane L
//    stores bytes 0-15 and then 16-31 of half a 64-byte row, so each request
//    touches both 32-byte sectors of every row: 32 sectors each.
// A GPU executes WMMA's loads and stores as instructions of its own (ldmatrix,
// or wider ones), so ncu's counts for the same kernel may differ.
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

using namespace nvcuda;

__global__ void wmma_counts(const half *a, const half *b, float *c)
{
    __shared__ __align__(32) half sa[256];
    reinterpret_cast<int4 *>(sa)[threadIdx.x] = reinterpret_cast<const int4 *>(a)[threadIdx.x];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, sa, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

int main(void)
{
    half h[256];
    for (int i = 0; i < 256; i++) h[i] = __float2half((float)(i % 3));
    half *a, *b;
    float *c, out[256];
    cudaMalloc(&a, sizeof h);
    cudaMalloc(&b, sizeof h);
    cudaMalloc(&c, sizeof out);
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
    wmma_counts<<<1, 32>>>(a, b, c);
    cudaMemcpy(out, c, sizeof out, cudaMemcpyDeviceToHost);
    double sum = 0;
    for (int i = 0; i < 256; i++) sum += out[i];
    printf("wmma_counts: sum %.0f\n", sum);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
