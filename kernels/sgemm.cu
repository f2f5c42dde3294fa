/* sgemm.cu: C = alpha * A * B + beta * C, three times, each faster than the last.
 *
 * All matrices are column-major with leading dimensions, as in BLAS:
 * A(i, k) = A[i + k * lda] (M x K), B(k, j) = B[k + j * ldb] (K x N),
 * C(i, j) = C[i + j * ldc] (M x N). Every kernel puts threadIdx.x along the
 * rows i, because consecutive rows are consecutive addresses in a column: the
 * 32 threads of a warp then read and write one contiguous stretch (coalesced).
 *
 *   0 naive             one thread per element of C, reading a row of A and a
 *                       column of B straight from global memory: 2K loads for
 *                       2K flops, so memory bandwidth is the limit.
 *   1 tiled             a 32x32 block of threads stages 32x32 tiles of A and B
 *                       in shared memory; each value loaded from global memory
 *                       is used 32 times. Two barriers per tile: after loading
 *                       (the tile is complete) and after computing (nobody
 *                       still reads it when the next tile overwrites it).
 *   2 register-blocked  16x16 threads compute a 64x64 tile of C; each thread
 *                       keeps a 4x4 micro-tile of C in registers, and for every
 *                       k loads 4 values of A and 4 of B from shared memory for
 *                       16 multiply-adds: four times fewer shared loads a flop.
 *
 * Every kernel handles any M, N, K: loads outside the matrices read as zero and
 * stores outside C are skipped. Layouts and shapes: kernels.h.
 */
#include <limits.h>
#include <stdint.h>

#include "kernels.h"

#define NAIVE_BLOCK 16 /* variant 0: 16x16 threads */
#define TILE 32        /* variant 1: 32x32 threads, 32x32 tiles */
#define RB_TILE 64     /* variant 2: 64x64 tile of C per block ... */
#define RB_BK 16       /* ... stepping through K 16 at a time ... */
#define RB_THREADS 16  /* ... with 16x16 threads ... */
#define RB_MICRO 4     /* ... each computing a 4x4 micro-tile */
#define MAX_GRID_Y 65535

/* C(i, j) = alpha * acc + beta * C(i, j); as in BLAS, C is not read when beta is 0. */
static __device__ void store_c(float *c, float acc, float alpha, float beta)
{
    *c = (beta == 0.0f) ? alpha * acc : alpha * acc + beta * *c;
}

/* Variant 0: thread (x, y) of block (bx, by) computes C(bx*16 + x, by*16 + y). */
static __global__ void sgemm_naive_kernel(int M, int N, int K, float alpha, const float *A, int lda,
                                          const float *B, int ldb, float beta, float *C, int ldc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= M || j >= N) return; /* no barrier in this kernel: leaving is safe */
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[i + k * lda] * B[k + j * ldb];
    store_c(&C[i + j * ldc], acc, alpha, beta);
}

/* Variant 1: block (bx, by) computes the 32x32 tile of C at (bx*32, by*32). */
static __global__ void sgemm_tiled_kernel(int M, int N, int K, float alpha, const float *A, int lda,
                                          const float *B, int ldb, float beta, float *C, int ldc)
{
    __shared__ float As[TILE][TILE]; /* As[k][x] = A(row x of the tile, k0 + k) */
    __shared__ float Bs[TILE][TILE]; /* Bs[y][k] = B(k0 + k, column y of the tile) */
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.x * TILE + tx;
    int j = blockIdx.y * TILE + ty;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        /* Each thread loads one value of each tile: A(i, k0 + ty) and B(k0 + tx, j).
         * Threads outside C still load (and reach both barriers): their values
         * are needed by the others. */
        As[ty][tx] = (i < M && k0 + ty < K) ? A[i + (k0 + ty) * lda] : 0.0f;
        Bs[ty][tx] = (k0 + tx < K && j < N) ? B[(k0 + tx) + j * ldb] : 0.0f;
        __syncthreads(); /* both tiles complete */
        for (int k = 0; k < TILE; k++) acc += As[k][tx] * Bs[ty][k];
        __syncthreads(); /* everyone done with these tiles before they are overwritten */
    }
    if (i < M && j < N) store_c(&C[i + j * ldc], acc, alpha, beta);
}

/* Variant 2: block (bx, by) computes the 64x64 tile of C at (bx*64, by*64);
 * thread (x, y) owns the 16 elements at rows x + 16r and columns y + 16c
 * (r, c = 0..3) of that tile. */
static __global__ void sgemm_regblock_kernel(int M, int N, int K, float alpha, const float *A,
                                             int lda, const float *B, int ldb, float beta, float *C,
                                             int ldc)
{
    __shared__ float As[RB_BK][RB_TILE];     /* As[k][r] = A(row0 + r, k0 + k) */
    __shared__ float Bs[RB_BK][RB_TILE + 2]; /* Bs[k][c] = B(k0 + k, col0 + c); the
                                                padding spreads the stores over all banks */
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = tx + ty * RB_THREADS; /* 0 .. 255 */
    int row0 = blockIdx.x * RB_TILE, col0 = blockIdx.y * RB_TILE;
    float acc[RB_MICRO][RB_MICRO];
    float a[RB_MICRO], b[RB_MICRO];
    for (int r = 0; r < RB_MICRO; r++)
        for (int c = 0; c < RB_MICRO; c++) acc[r][c] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += RB_BK) {
        /* 256 threads load 64x16 values of A and 16x64 of B, 4 each. Consecutive
         * threads take consecutive rows (A) or consecutive k (B): coalesced. */
        for (int l = 0; l < RB_TILE * RB_BK / (RB_THREADS * RB_THREADS); l++) {
            int e = tid + l * RB_THREADS * RB_THREADS;
            int r = e % RB_TILE, k = e / RB_TILE;
            As[k][r] = (row0 + r < M && k0 + k < K) ? A[(row0 + r) + (k0 + k) * lda] : 0.0f;
            int kb = e % RB_BK, c = e / RB_BK;
            Bs[kb][c] = (k0 + kb < K && col0 + c < N) ? B[(k0 + kb) + (col0 + c) * ldb] : 0.0f;
        }
        __syncthreads(); /* both tiles complete */
        for (int k = 0; k < RB_BK; k++) {
            for (int r = 0; r < RB_MICRO; r++) a[r] = As[k][tx + r * RB_THREADS];
            for (int c = 0; c < RB_MICRO; c++) b[c] = Bs[k][ty + c * RB_THREADS];
            for (int r = 0; r < RB_MICRO; r++)
                for (int c = 0; c < RB_MICRO; c++) acc[r][c] += a[r] * b[c];
        }
        __syncthreads(); /* everyone done with these tiles before they are overwritten */
    }

    for (int c = 0; c < RB_MICRO; c++) {
        int j = col0 + ty + c * RB_THREADS;
        for (int r = 0; r < RB_MICRO; r++) {
            int i = row0 + tx + r * RB_THREADS;
            if (i < M && j < N) store_c(&C[i + j * ldc], acc[r][c], alpha, beta);
        }
    }
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t max1(int64_t a) { return a > 1 ? a : 1; }

extern "C" cudaError_t k_sgemm(int variant, int64_t M, int64_t N, int64_t K, float alpha,
                               const float *A, int64_t lda, const float *B, int64_t ldb,
                               float beta, float *C, int64_t ldc, cudaStream_t s)
{
    if (variant < 0 || variant >= K_SGEMM_VARIANTS || M < 0 || N < 0 || K < 0 ||
        lda < max1(M) || ldb < max1(K) || ldc < max1(M))
        return cudaErrorInvalidValue;
    if (M == 0 || N == 0) return cudaSuccess;
    /* int indices in the kernels: the largest offsets and a tile past the end must fit */
    const int64_t big = INT_MAX - RB_TILE;
    if (M > big || N > big || K > big || lda * K > INT_MAX || ldb * N > INT_MAX ||
        ldc * N > INT_MAX)
        return cudaErrorInvalidValue;
    if (!C || (K > 0 && (!A || !B))) return cudaErrorInvalidValue;
    int m = (int)M, n = (int)N, k = (int)K;
    int la = (int)lda, lb = (int)ldb, lc = (int)ldc;
    if (variant == 0) {
        if (ceil_div(N, NAIVE_BLOCK) > MAX_GRID_Y) return cudaErrorInvalidValue;
        dim3 block(NAIVE_BLOCK, NAIVE_BLOCK);
        dim3 grid((unsigned int)ceil_div(M, NAIVE_BLOCK), (unsigned int)ceil_div(N, NAIVE_BLOCK));
        sgemm_naive_kernel<<<grid, block, 0, s>>>(m, n, k, alpha, A, la, B, lb, beta, C, lc);
    } else if (variant == 1) {
        if (ceil_div(N, TILE) > MAX_GRID_Y) return cudaErrorInvalidValue;
        dim3 block(TILE, TILE);
        dim3 grid((unsigned int)ceil_div(M, TILE), (unsigned int)ceil_div(N, TILE));
        sgemm_tiled_kernel<<<grid, block, 0, s>>>(m, n, k, alpha, A, la, B, lb, beta, C, lc);
    } else {
        if (ceil_div(N, RB_TILE) > MAX_GRID_Y) return cudaErrorInvalidValue;
        dim3 block(RB_THREADS, RB_THREADS);
        dim3 grid((unsigned int)ceil_div(M, RB_TILE), (unsigned int)ceil_div(N, RB_TILE));
        sgemm_regblock_kernel<<<grid, block, 0, s>>>(m, n, k, alpha, A, la, B, lb, beta, C, lc);
    }
    return cudaGetLastError();
}

extern "C" const char *k_sgemm_name(int variant)
{
    switch (variant) {
    case 0: return "naive";
    case 1: return "tiled (shared memory)";
    case 2: return "register-blocked 4x4";
    default: return "unknown";
    }
}
