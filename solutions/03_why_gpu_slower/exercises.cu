/*
 * Lesson 03 exercise 03.4, reference answer: a transpose through a shared-memory
 * tile. Same function as lessons/03_why_gpu_slower/exercises.cu.
 */
#include <limits.h>
#include <stdint.h>

#include "kernels/kernels.h"

#define TILE 32     /* a block moves a TILE x TILE tile: a row of it is one warp's 32 floats */
#define TILE_ROWS 8 /* a block is TILE x TILE_ROWS threads: each moves TILE / TILE_ROWS elements */

/* in (rows, cols) to out (cols, rows), both column-major. Block (bx, by) moves the tile
 * of in whose rows start at bx * TILE and whose columns start at by * TILE. */
static __global__ void transpose_kernel(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1]; /* + 1: a column of the tile spans 32 banks */
    int i = blockIdx.x * TILE + threadIdx.x; /* a row of in: consecutive lanes, consecutive addresses */
    for (int k = threadIdx.y; k < TILE; k += TILE_ROWS) {
        int j = blockIdx.y * TILE + k;
        if (i < rows && j < cols) tile[k][threadIdx.x] = in[i + j * rows];
    }
    __syncthreads(); /* the whole tile is in before any thread reads another's element */
    int j = blockIdx.y * TILE + threadIdx.x; /* a column of in is a row of out: consecutive again */
    for (int k = threadIdx.y; k < TILE; k += TILE_ROWS) {
        int r = blockIdx.x * TILE + k;
        if (j < cols && r < rows) out[j + r * cols] = tile[threadIdx.x][k];
    }
}

extern "C" cudaError_t k_transpose(const float *in, float *out, int64_t rows, int64_t cols,
                                   cudaStream_t s)
{
    if (rows < 0 || cols < 0 || (rows > 0 && cols > INT_MAX / rows)) return cudaErrorInvalidValue;
    if (rows == 0 || cols == 0) return cudaSuccess; /* nothing to move: no launch */
    if (!in || !out) return cudaErrorInvalidValue;
    dim3 block(TILE, TILE_ROWS);
    dim3 grid((unsigned)((rows + TILE - 1) / TILE), (unsigned)((cols + TILE - 1) / TILE));
    transpose_kernel<<<grid, block, 0, s>>>(in, out, (int)rows, (int)cols);
    return cudaGetLastError();
}
