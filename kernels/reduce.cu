/* reduce.cu: sums, the classic block reduction.
 *
 * A block of 256 threads reduces many numbers to one in three steps:
 *   1. each thread adds up a strided slice of the input in a register;
 *   2. the 256 partial sums go to shared memory and are halved in a tree
 *      (128, 64, 32 values), with a __syncthreads() after every level so no
 *      thread reads a value before its neighbour has written it;
 *   3. the last 32 values are one warp's: __shfl_down_sync passes registers
 *      between its lanes with no shared memory and no barrier.
 * k_sum_columns uses one block per column; k_sum uses many blocks that each
 * atomicAdd their partial sum into the result. Layouts and shapes: kernels.h.
 */
#include <limits.h>
#include <stdint.h>

#include "kernels.h"

#define RD_THREADS 256    /* threads per block; the tree below assumes this */
#define RD_WARP 32
#define RD_MAX_BLOCKS 512 /* k_sum: enough to fill a GPU; more would only mean more atomics */

/* Steps 2 and 3 for one block: every thread passes its partial sum v and the
 * block's __shared__ float[RD_THREADS]; thread 0 gets the block's total (the
 * other threads get meaningless values). All threads of the block must call it. */
static __device__ float block_sum(float v, float *partial)
{
    int tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();
    for (int half = RD_THREADS / 2; half >= RD_WARP; half /= 2) {
        if (tid < half) partial[tid] += partial[tid + half];
        __syncthreads(); /* every thread, even the idle ones */
    }
    float total = 0.0f;
    if (tid < RD_WARP) { /* the whole first warp: a shuffle needs all 32 lanes */
        total = partial[tid];
        for (int offset = RD_WARP / 2; offset > 0; offset /= 2)
            total += __shfl_down_sync(0xffffffff, total, offset);
    }
    return total;
}

/* out[j] = (accumulate ? out[j] : 0) + sum of column j of x (rows, cols);
 * block j reduces column j. */
static __global__ void sum_columns_kernel(const float *x, float *out, int rows, int accumulate)
{
    __shared__ float partial[RD_THREADS];
    int j = blockIdx.x;
    const float *col = x + (int64_t)j * rows;
    float v = 0.0f;
    for (int i = threadIdx.x; i < rows; i += blockDim.x) v += col[i];
    float total = block_sum(v, partial);
    if (threadIdx.x == 0) out[j] = accumulate ? out[j] + total : total;
}

/* *out += sum of x (n); each block adds its share with one atomicAdd. */
static __global__ void sum_kernel(const float *x, int n, float *out)
{
    __shared__ float partial[RD_THREADS];
    int stride = blockDim.x * gridDim.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) v += x[i];
    float total = block_sum(v, partial);
    if (threadIdx.x == 0) atomicAdd(out, total);
}

/* partial[blockIdx.x] = this block's share of the sum of x (n): no atomics. */
static __global__ void sum_partials_kernel(const float *x, int n, float *partial_out)
{
    __shared__ float partial[RD_THREADS];
    int stride = blockDim.x * gridDim.x;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) v += x[i];
    float total = block_sum(v, partial);
    if (threadIdx.x == 0) partial_out[blockIdx.x] = total;
}

extern "C" cudaError_t k_sum_columns(const float *x, float *out, int64_t rows, int64_t cols,
                                     int accumulate, cudaStream_t s)
{
    if (rows < 0 || cols < 0) return cudaErrorInvalidValue;
    if (cols == 0) return cudaSuccess;
    if (!out || rows > INT_MAX - RD_THREADS || cols > INT_MAX) return cudaErrorInvalidValue;
    if (rows == 0) /* the sum of no numbers is 0 */
        return accumulate ? cudaSuccess
                          : cudaMemsetAsync(out, 0, (size_t)cols * sizeof(float), s);
    if (!x) return cudaErrorInvalidValue;
    sum_columns_kernel<<<(unsigned int)cols, RD_THREADS, 0, s>>>(x, out, (int)rows, accumulate);
    return cudaGetLastError();
}

extern "C" cudaError_t k_sum(const float *x, int64_t n, float *out, cudaStream_t s)
{
    if (n < 0 || !out || n > INT_MAX - (int64_t)RD_THREADS * RD_MAX_BLOCKS)
        return cudaErrorInvalidValue;
    if (n > 0 && !x) return cudaErrorInvalidValue;
    cudaError_t err = cudaMemsetAsync(out, 0, sizeof(float), s); /* 0.0f is all zero bits */
    if (err != cudaSuccess || n == 0) return err;
    int64_t blocks = (n + RD_THREADS - 1) / RD_THREADS;
    if (blocks > RD_MAX_BLOCKS) blocks = RD_MAX_BLOCKS;
    sum_kernel<<<(unsigned int)blocks, RD_THREADS, 0, s>>>(x, (int)n, out);
    return cudaGetLastError();
}

extern "C" cudaError_t k_sum_ordered(const float *x, int64_t n, float *partials, float *out,
                                     cudaStream_t s)
{
    if (n < 0 || !out || !partials || n > INT_MAX - (int64_t)RD_THREADS * RD_MAX_BLOCKS)
        return cudaErrorInvalidValue;
    if (n > 0 && !x) return cudaErrorInvalidValue;
    if (n == 0) return cudaMemsetAsync(out, 0, sizeof(float), s);
    int64_t blocks = (n + RD_THREADS - 1) / RD_THREADS;
    if (blocks > RD_MAX_BLOCKS) blocks = RD_MAX_BLOCKS;
    sum_partials_kernel<<<(unsigned int)blocks, RD_THREADS, 0, s>>>(x, (int)n, partials);
    /* The partials, in block order, by one block: the same sum on every run. */
    sum_columns_kernel<<<1, RD_THREADS, 0, s>>>(partials, out, (int)blocks, 0);
    return cudaGetLastError();
}

extern "C" int64_t k_sum_ordered_partials(int64_t n)
{
    int64_t blocks = (n + RD_THREADS - 1) / RD_THREADS;
    return blocks < 1 ? 1 : blocks > RD_MAX_BLOCKS ? RD_MAX_BLOCKS : blocks;
}
