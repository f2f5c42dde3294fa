// Matrix transpose through a shared tile padded against bank conflicts
// (tile[32][33]), with a non-square matrix whose sides are not multiples of
// the tile; two __shared__ variables declared on one line.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

#define TILE 32
#define ROWS 8

__global__ void transpose(float *out, const float *in, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1], one;
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    if (threadIdx.x == 0 && threadIdx.y == 0) one = 1.0f;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < rows && y + j < cols) out[(y + j) * rows + x] = one * tile[threadIdx.x][threadIdx.y + j];
}

int main(void)
{
    const int rows = 100, cols = 70;
    static float in[rows * cols], out[rows * cols];
    for (int i = 0; i < rows * cols; i++) in[i] = (float)i;
    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, sizeof in));
    CHECK(cudaMalloc(&d_out, sizeof out));
    CHECK(cudaMemcpy(d_in, in, sizeof in, cudaMemcpyHostToDevice));
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE), block(TILE, ROWS);
    transpose<<<grid, block>>>(d_out, d_in, rows, cols);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) wrong += out[c * rows + r] != in[r * cols + c];
    printf("transpose %dx%d: out[1][0] = %g, out[69][99] = %g, wrong: %d\n", rows, cols,
           out[1 * rows + 0], out[69 * rows + 99], wrong);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return wrong != 0;
}
