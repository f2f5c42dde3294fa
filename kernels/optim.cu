/* optim.cu: the optimizers' updates, and clipping gradients by their global norm.
 *
 * The updates (SGD with momentum, Adam) are elementwise: one thread per
 * element in grid-stride loops, as in elementwise.cu, one launch per
 * parameter tensor. They repeat lib/nn/optim.c's CPU code operation by
 * operation, which repeats PyTorch's: where PyTorch adds a scaled tensor
 * (`x.add(y, alpha=a)`, a fused multiply-add in its CPU kernels) the kernel
 * calls fmaf, and where PyTorch rounds a product before adding it (`mul_`
 * then `add_`) the product goes through mul_rn, which no compiler may fuse.
 * Square roots and divisions are IEEE-rounded on the GPU (nvcc's default
 * without --use_fast_math), so a GPU step gives the CPU's bits.
 *
 * The norm for clipping is a sum of squares over all gradient tensors. For
 * the same bits on every run it uses no float atomics: k_sum_squares writes
 * one partial sum per block (a fixed tree in shared memory), and
 * k_norm_from_partials, one block, adds the partials of all tensors in a
 * fixed order and takes the square root. k_clip_scale reads that norm on the
 * device, so clipping never needs the CPU to look at it. Layouts: kernels.h.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "kernels.h"

#define OPT_THREADS 256      /* threads per block; the tree in block_sum assumes a power of 2 */
#define OPT_MAX_BLOCKS 65535 /* elementwise grid cap; more work means more laps of the loop */
#define NORM_MAX_BLOCKS 256  /* k_sum_squares: partial sums per tensor at most */

/* The kernels index with int; i + stride must not overflow on the last lap. */
static int opt_fits(int64_t n)
{
    return n <= (int64_t)INT_MAX - (int64_t)OPT_THREADS * OPT_MAX_BLOCKS;
}

static unsigned int opt_blocks(int64_t n, int64_t cap)
{
    int64_t blocks = (n + OPT_THREADS - 1) / OPT_THREADS;
    return (unsigned int)(blocks < cap ? blocks : cap);
}

/* a * b rounded to float on its own. nvcc contracts a * b + c into one fma
 * (and so does g++ building the simulator); PyTorch's mul_ then add_ rounds
 * twice, and so must we. __fmul_rn is never contracted, on a GPU or on the
 * simulator (whose __fmul_rn stores the product where the compiler cannot fuse it). */
static __device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }

/* torch.optim.SGD, dampening 0; p, g, buf: (n). buf is unused when momentum is 0. */
static __global__ void sgd_momentum_kernel(float *p, const float *g, float *buf, int n, float lr,
                                           float momentum, float weight_decay, int nesterov,
                                           int first)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float d = g[i];
        if (weight_decay != 0.0f) d = fmaf(weight_decay, p[i], d); /* grad.add(p, alpha=wd) */
        if (momentum != 0.0f) {
            float b = first ? d : mul_rn(buf[i], momentum) + d; /* buf.mul_(m).add_(d) */
            buf[i] = b;
            d = nesterov ? fmaf(momentum, b, d) : b; /* d.add(buf, alpha=m) */
        }
        p[i] = fmaf(-lr, d, p[i]); /* p.add_(d, alpha=-lr) */
    }
}

/* torch.optim.Adam's _single_tensor_adam; p, g, m (exp_avg), v (exp_avg_sq): (n). */
static __global__ void adam_kernel(float *p, const float *g, float *m, float *v, int n,
                                   float beta1, float beta2, float one_minus_beta1,
                                   float one_minus_beta2, float neg_step_size,
                                   float bias_correction2_sqrt, float eps, float weight_decay)
{
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float d = g[i];
        if (weight_decay != 0.0f) d = fmaf(weight_decay, p[i], d);
        float mi = fmaf(one_minus_beta1, d, m[i] * beta1);     /* m.mul_(b1).add_(d, alpha=1-b1) */
        float vi = fmaf(one_minus_beta2 * d, d, v[i] * beta2); /* v.mul_(b2).addcmul_(d, d, 1-b2) */
        m[i] = mi;
        v[i] = vi;
        float denom = sqrtf(vi) / bias_correction2_sqrt + eps;
        p[i] = p[i] + neg_step_size * mi / denom; /* p.addcdiv_(m, denom, value=-step_size) */
    }
}

/* Thread 0 gets the sum of every thread's v, added in a fixed tree order;
 * partial is the block's __shared__ float[OPT_THREADS]. All threads call it. */
static __device__ float block_sum(float v, float *partial)
{
    int tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();
    for (int half = OPT_THREADS / 2; half > 0; half /= 2) {
        if (tid < half) partial[tid] += partial[tid + half];
        __syncthreads(); /* every thread, even the idle ones */
    }
    return partial[0];
}

/* partials[b] = sum of x[i]^2 over block b's grid-stride slice of x (n). */
static __global__ void sum_squares_kernel(const float *x, int n, float *partials)
{
    __shared__ float partial[OPT_THREADS];
    int stride = blockDim.x * gridDim.x;
    float s = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        s = fmaf(x[i], x[i], s);
    float total = block_sum(s, partial);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

/* One block: *norm = sqrt(partials[0] + ... + partials[count-1]). */
static __global__ void norm_from_partials_kernel(const float *partials, int count, float *norm)
{
    __shared__ float partial[OPT_THREADS];
    float s = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x) s += partials[i];
    float total = block_sum(s, partial);
    if (threadIdx.x == 0) *norm = sqrtf(total);
}

/* g (n) *= clip_coef = max_norm / (*norm + 1e-6) when clip_coef < 1 or is NaN. */
static __global__ void clip_scale_kernel(float *g, int n, const float *norm, float max_norm)
{
    float coef = max_norm / (*norm + 1e-6f);
    if (coef >= 1.0f) return; /* PyTorch multiplies by min(coef, 1): a no-op, skipped */
    int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) g[i] *= coef;
}

extern "C" cudaError_t k_sgd_momentum_step(float *p, const float *g, float *buf, int64_t n,
                                           float lr, float momentum, float weight_decay,
                                           int nesterov, int first, cudaStream_t s)
{
    if (n < 0 || !opt_fits(n) || (n > 0 && (!p || !g || (momentum != 0.0f && !buf))))
        return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    sgd_momentum_kernel<<<opt_blocks(n, OPT_MAX_BLOCKS), OPT_THREADS, 0, s>>>(
        p, g, buf, (int)n, lr, momentum, weight_decay, nesterov, first);
    return cudaGetLastError();
}

extern "C" cudaError_t k_adam_step(float *p, const float *g, float *m, float *v, int64_t n,
                                   float beta1, float beta2, float one_minus_beta1,
                                   float one_minus_beta2, float neg_step_size,
                                   float bias_correction2_sqrt, float eps, float weight_decay,
                                   cudaStream_t s)
{
    if (n < 0 || !opt_fits(n) || (n > 0 && (!p || !g || !m || !v))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    adam_kernel<<<opt_blocks(n, OPT_MAX_BLOCKS), OPT_THREADS, 0, s>>>(
        p, g, m, v, (int)n, beta1, beta2, one_minus_beta1, one_minus_beta2, neg_step_size,
        bias_correction2_sqrt, eps, weight_decay);
    return cudaGetLastError();
}

extern "C" int k_sum_squares_blocks(int64_t n)
{
    return n > 0 ? (int)opt_blocks(n, NORM_MAX_BLOCKS) : 0;
}

extern "C" cudaError_t k_sum_squares(const float *x, int64_t n, float *partials, cudaStream_t s)
{
    if (n < 0 || !opt_fits(n) || (n > 0 && (!x || !partials))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    sum_squares_kernel<<<opt_blocks(n, NORM_MAX_BLOCKS), OPT_THREADS, 0, s>>>(x, (int)n,
                                                                             partials);
    return cudaGetLastError();
}

extern "C" cudaError_t k_norm_from_partials(const float *partials, int64_t count, float *norm,
                                            cudaStream_t s)
{
    if (count < 0 || count > INT_MAX - OPT_THREADS || !norm || (count > 0 && !partials))
        return cudaErrorInvalidValue;
    norm_from_partials_kernel<<<1, OPT_THREADS, 0, s>>>(partials, (int)count, norm);
    return cudaGetLastError();
}

extern "C" cudaError_t k_clip_scale(float *g, int64_t n, const float *norm, float max_norm,
                                    cudaStream_t s)
{
    if (n < 0 || !opt_fits(n) || (n > 0 && (!g || !norm))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess;
    clip_scale_kernel<<<opt_blocks(n, OPT_MAX_BLOCKS), OPT_THREADS, 0, s>>>(g, (int)n, norm,
                                                                           max_norm);
    return cudaGetLastError();
}
