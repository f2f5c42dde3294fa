// Tiled matrix multiplication, C = A B for n x n matrices, with the tiles in
// dynamic shared memory (the third <<< >>> argument): TILE x TILE of A, then
// of B, in one extern __shared__ array. Checked against the CPU.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "check.h"

#define TILE 16

__global__ void matmul(const float *A, const float *B, float *C, int n)
{
    extern __shared__ float tiles[];
    float *As = tiles, *Bs = tiles + TILE * TILE;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
        int ac = t * TILE + tx, br = t * TILE + ty;
        As[ty * TILE + tx] = row < n && ac < n ? A[row * n + ac] : 0.0f;
        Bs[ty * TILE + tx] = br < n && col < n ? B[br * n + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; k++) acc += As[ty * TILE + k] * Bs[k * TILE + tx];
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *A = (float *)malloc(bytes), *B = (float *)malloc(bytes), *C = (float *)malloc(bytes);
    for (int i = 0; i < n * n; i++) {
        A[i] = (float)((i * 13) % 17) / 16.0f - 0.5f;
        B[i] = (float)((i * 7) % 11) / 10.0f - 0.5f;
    }
    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, bytes));
    CHECK(cudaMalloc(&dB, bytes));
    CHECK(cudaMalloc(&dC, bytes));
    CHECK(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice));
    dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
    size_t shared = 2 * TILE * TILE * sizeof(float);
    matmul<<<grid, block, shared>>>(dA, dB, dC, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(C, dC, bytes, cudaMemcpyDeviceToHost));
    double max_err = 0, trace = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double want = 0;
            for (int k = 0; k < n; k++) want += (double)A[i * n + k] * B[k * n + j];
            double err = fabs(C[i * n + j] - want);
            if (err > max_err) max_err = err;
        }
        trace += C[i * n + i];
    }
    printf("matmul %dx%d, tiles of %dx%d in %zu bytes of dynamic shared memory\n", n, n, TILE,
           TILE, shared);
    printf("trace %.2f, largest error against the CPU below 1e-3: %s\n", trace,
           max_err < 1e-3 ? "yes" : "NO");
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    free(A), free(B), free(C);
    return max_err >= 1e-3;
}
