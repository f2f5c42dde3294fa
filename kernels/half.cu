/* half.cu: conversions between float and the half types, and GradScaler's
 * unscale-and-check, as grid-stride loops (see elementwise.cu).
 *
 * Half arrays cross the C interface as uint16_t (C has no __half); here they
 * are __half and __nv_bfloat16, which have the same size and alignment. The
 * conversions are CUDA's round-to-nearest-even intrinsics, so results match
 * lib/core/half.c bit for bit except the bits of a NaN (CUDA writes 0x7FFF,
 * PyTorch's CPU 0x7E00 or 0xFFFF): a NaN stays a NaN on both. Layouts: kernels.h.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels.h"

#define HALF_THREADS 256      /* threads per block */
#define HALF_MAX_BLOCKS 65535 /* grid cap; more work means more laps of the loop */

/* The kernels index with int; i + stride must not overflow on the last lap. */
static int half_fits(int64_t n)
{
    return n <= (int64_t)INT_MAX - (int64_t)HALF_THREADS * HALF_MAX_BLOCKS;
}

static unsigned int half_blocks(int64_t n)
{
    int64_t blocks = (n + HALF_THREADS - 1) / HALF_THREADS;
    return (unsigned int)(blocks < HALF_MAX_BLOCKS ? blocks : HALF_MAX_BLOCKS);
}

/* h = half(x); x, h: (n) */
static __global__ void f32_to_f16_kernel(const float *x, __half *h, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        h[i] = __float2half_rn(x[i]);
}

/* x = float(h); h, x: (n) */
static __global__ void f16_to_f32_kernel(const __half *h, float *x, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = __half2float(h[i]);
}

static __global__ void f32_to_bf16_kernel(const float *x, __nv_bfloat16 *h, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        h[i] = __float2bfloat16_rn(x[i]);
}

static __global__ void bf16_to_f32_kernel(const __nv_bfloat16 *h, float *x, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = __bfloat162float(h[i]);
}

/* x = float(half(x)): the value as storing it in f16 keeps it; x: (n) */
static __global__ void round_f16_kernel(float *x, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = __half2float(__float2half_rn(x[i]));
}

static __global__ void round_bf16_kernel(float *x, int n)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = __bfloat162float(__float2bfloat16_rn(x[i]));
}

/* g *= inv_scale, and *found_inf = 1 where a g was inf or NaN. Every thread that
 * finds one sets the same 1, with an atomic: plain writes of one value from several
 * blocks are still a data race in CUDA's memory model (PyTorch's own kernel makes them;
 * the simulator reports them), and an inf is rare enough that its cost is nothing. The
 * flag is never cleared here: it collects several launches. g: (n) */
static __global__ void unscale_check_kernel(float *g, int n, float inv_scale, int *found_inf)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = g[i];
        if (!isfinite(v)) atomicExch(found_inf, 1);
        g[i] = v * inv_scale;
    }
}

/* The checks every wrapper makes: a size the kernels can index, and data. */
static int half_args_ok(int64_t n, const void *a, const void *b)
{
    return n >= 0 && half_fits(n) && (n == 0 || (a && b));
}

extern "C" cudaError_t k_f32_to_f16(const float *x, uint16_t *h, int64_t n, cudaStream_t s)
{
    if (!half_args_ok(n, x, h)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    f32_to_f16_kernel<<<half_blocks(n), HALF_THREADS, 0, s>>>(x, (__half *)h, (int)n);
    return cudaGetLastError();
}

extern "C" cudaError_t k_f16_to_f32(const uint16_t *h, float *x, int64_t n, cudaStream_t s)
{
    if (!half_args_ok(n, h, x)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    f16_to_f32_kernel<<<half_blocks(n), HALF_THREADS, 0, s>>>((const __half *)h, x, (int)n);
    return cudaGetLastError();
}

extern "C" cudaError_t k_f32_to_bf16(const float *x, uint16_t *h, int64_t n, cudaStream_t s)
{
    if (!half_args_ok(n, x, h)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    f32_to_bf16_kernel<<<half_blocks(n), HALF_THREADS, 0, s>>>(x, (__nv_bfloat16 *)h, (int)n);
    return cudaGetLastError();
}

extern "C" cudaError_t k_bf16_to_f32(const uint16_t *h, float *x, int64_t n, cudaStream_t s)
{
    if (!half_args_ok(n, h, x)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    const __nv_bfloat16 *hb = (const __nv_bfloat16 *)h;
    bf16_to_f32_kernel<<<half_blocks(n), HALF_THREADS, 0, s>>>(hb, x, (int)n);
    return cudaGetLastError();
}

extern "C" cudaError_t k_round_f16(float *x, int64_t n, cudaStream_t s)
{
    if (!half_args_ok(n, x, x)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    round_f16_kernel<<<half_blocks(n), HALF_THREADS, 0, s>>>(x, (int)n);
    return cudaGetLastError();
}

extern "C" cudaError_t k_round_bf16(float *x, int64_t n, cudaStream_t s)
{
    if (!half_args_ok(n, x, x)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    round_bf16_kernel<<<half_blocks(n), HALF_THREADS, 0, s>>>(x, (int)n);
    return cudaGetLastError();
}

extern "C" cudaError_t k_unscale_check(float *g, int64_t n, float inv_scale, int *found_inf,
                                       cudaStream_t s)
{
    if (!half_args_ok(n, g, found_inf)) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    unscale_check_kernel<<<half_blocks(n), HALF_THREADS, 0, s>>>(g, (int)n, inv_scale, found_inf);
    return cudaGetLastError();
}
