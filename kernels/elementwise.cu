/* elementwise.cu: one thread per element, as grid-stride loops.
 *
 * Each kernel starts at its global thread index and steps by the total number
 * of threads in the grid, so a grid of any size covers any n: the wrappers cap
 * the grid at 65535 blocks of 256 threads and big arrays take several laps.
 * Consecutive threads touch consecutive floats, so every warp's loads and
 * stores are coalesced. Layouts and shapes: kernels.h. (ReLU's forward kernel
 * is Lesson 02's exercise 02.4: lessons/02_device_transfer/exercises.cu.)
 */
#include <limits.h>
#include <stdint.h>

#include "kernels.h"

#define EW_THREADS 256     /* threads per block */
#define EW_MAX_BLOCKS 65535 /* grid cap; more work means more laps of the loop */

/* The kernels index with int; i + stride must not overflow on the last lap. */
static int ew_fits(int64_t n)
{
    return n <= (int64_t)INT_MAX - (int64_t)EW_THREADS * EW_MAX_BLOCKS;
}

/* Enough blocks for one element per thread, but at most EW_MAX_BLOCKS. */
static unsigned int ew_blocks(int64_t n)
{
    int64_t blocks = (n + EW_THREADS - 1) / EW_THREADS;
    return (unsigned int)(blocks < EW_MAX_BLOCKS ? blocks : EW_MAX_BLOCKS);
}

/* dx = dy where the forward output y was positive, else 0; all (n) */
static __global__ void relu_backward_kernel(const float *y, const float *dy, float *dx, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

/* p -= lr * g; p, g: (n) */
static __global__ void sgd_step_kernel(float *p, const float *g, int n, float lr)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] -= lr * g[i];
}

/* y(i, j) += b[j]; y: (rows, cols) column-major, so element k is in column k / rows. */
static __global__ void add_bias_kernel(float *y, const float *b, int rows, int total)
{
    int stride = blockDim.x * gridDim.x;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total; k += stride)
        y[k] += b[k / rows];
}

/* p[i] = value; p: (n) */
static __global__ void fill_kernel(float *p, int n, float value)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = value;
}

extern "C" cudaError_t k_relu_backward(const float *y, const float *dy, float *dx, int64_t n,
                                       cudaStream_t s)
{
    if (n < 0 || !ew_fits(n) || (n > 0 && (!y || !dy || !dx))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    relu_backward_kernel<<<ew_blocks(n), EW_THREADS, 0, s>>>(y, dy, dx, (int)n);
    return cudaGetLastError();
}

extern "C" cudaError_t k_sgd_step(float *p, const float *g, int64_t n, float lr, cudaStream_t s)
{
    if (n < 0 || !ew_fits(n) || (n > 0 && (!p || !g))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    sgd_step_kernel<<<ew_blocks(n), EW_THREADS, 0, s>>>(p, g, (int)n, lr);
    return cudaGetLastError();
}

extern "C" cudaError_t k_add_bias(float *y, const float *b, int64_t n, int64_t cols,
                                  cudaStream_t s)
{
    if (n < 0 || cols < 0) return cudaErrorInvalidValue;
    if (n == 0 || cols == 0) return cudaSuccess;
    if (n > INT_MAX / cols || !ew_fits(n * cols) || !y || !b) return cudaErrorInvalidValue;
    add_bias_kernel<<<ew_blocks(n * cols), EW_THREADS, 0, s>>>(y, b, (int)n, (int)(n * cols));
    return cudaGetLastError();
}

extern "C" cudaError_t k_fill(float *p, int64_t n, float value, cudaStream_t s)
{
    if (n < 0 || !ew_fits(n) || (n > 0 && !p)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    fill_kernel<<<ew_blocks(n), EW_THREADS, 0, s>>>(p, (int)n, value);
    return cudaGetLastError();
}

/* Does nothing: what is left of a launch when the work is taken away. */
static __global__ void empty_kernel(void) {}

extern "C" cudaError_t k_empty(cudaStream_t s)
{
    empty_kernel<<<1, 1, 0, s>>>();
    return cudaGetLastError();
}

/* dst(ds + i, j) = src(ss + i, j); element k of the (count, cols) block is row
 * k % count of column k / count, so consecutive threads read consecutive rows. */
static __global__ void copy_rows_kernel(const float *src, int src_rows, int ss, float *dst,
                                        int dst_rows, int ds, int count, int total)
{
    int stride = blockDim.x * gridDim.x;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total; k += stride) {
        int i = k % count, j = k / count;
        dst[(ds + i) + j * dst_rows] = src[(ss + i) + j * src_rows];
    }
}

extern "C" cudaError_t k_copy_rows(const float *src, int64_t src_rows, int64_t src_start,
                                   float *dst, int64_t dst_rows, int64_t dst_start,
                                   int64_t count, int64_t cols, cudaStream_t s)
{
    if (count < 0 || cols < 0 || src_start < 0 || dst_start < 0 ||
        src_start + count > src_rows || dst_start + count > dst_rows)
        return cudaErrorInvalidValue;
    if (count == 0 || cols == 0) return cudaSuccess;
    if (!src || !dst || src_rows > INT_MAX / cols || dst_rows > INT_MAX / cols ||
        !ew_fits(count * cols))
        return cudaErrorInvalidValue;
    copy_rows_kernel<<<ew_blocks(count * cols), EW_THREADS, 0, s>>>(
        src, (int)src_rows, (int)src_start, dst, (int)dst_rows, (int)dst_start, (int)count,
        (int)(count * cols));
    return cudaGetLastError();
}

/* p *= f; p: (n) */
static __global__ void scale_kernel(float *p, int n, float f)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) p[i] *= f;
}

extern "C" cudaError_t k_scale(float *p, int64_t n, float f, cudaStream_t s)
{
    if (n < 0 || !ew_fits(n) || (n > 0 && !p)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    scale_kernel<<<ew_blocks(n), EW_THREADS, 0, s>>>(p, (int)n, f);
    return cudaGetLastError();
}

/* y += x; y, x: (n) */
static __global__ void add_kernel(float *y, const float *x, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] += x[i];
}

extern "C" cudaError_t k_add(float *y, const float *x, int64_t n, cudaStream_t s)
{
    if (n < 0 || !ew_fits(n) || (n > 0 && (!y || !x))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    add_kernel<<<ew_blocks(n), EW_THREADS, 0, s>>>(y, x, (int)n);
    return cudaGetLastError();
}

/* acc[0] += w * x[0], by one thread: the order of additions is the launch order. */
static __global__ void accumulate_kernel(float *acc, const float *x, float w)
{
    acc[0] += w * x[0];
}

extern "C" cudaError_t k_accumulate(float *acc, const float *x, float w, cudaStream_t s)
{
    if (!acc || !x) return cudaErrorInvalidValue;
    accumulate_kernel<<<1, 1, 0, s>>>(acc, x, w);
    return cudaGetLastError();
}
