/* softmax_ce.cu: softmax and cross-entropy fused into one kernel, and its backward.
 *
 * The forward kernel gives each row of the (n, c) logits to one thread of its
 * one block. With
 * the column-major layout, element (i, j) is at z[i + j * n], so at each step
 * j the threads of a warp read 32 consecutive floats: coalesced. Subtracting
 * the row maximum before exp keeps every exponential in (0, 1], so nothing
 * overflows however large the logits (the log-sum-exp trick). Layouts and
 * shapes: kernels.h.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "kernels.h"

#define CE_THREADS 256

/* logits, probs: (n, c); targets: (n); *loss = the mean of the row losses.
 * One block, as PyTorch's NLL loss: thread k takes rows k, k + blockDim.x, ...
 * and adds their losses in that order, then a tree in shared memory adds the
 * threads' sums in a fixed order. No atomics, so *loss has the same bits on
 * every run (atomicAdd would add the rows in whatever order they finish). */
static __global__ void softmax_ce_forward_kernel(const float *logits, const int32_t *targets,
                                                 float *probs, float *loss, int n, int c)
{
    __shared__ float part[CE_THREADS];
    float acc = 0.0f;
    for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x) {
        float m = logits[i];
        for (int j = 1; j < c; j++) m = fmaxf(m, logits[i + j * n]);
        float sum = 0.0f;
        for (int j = 0; j < c; j++) {
            float e = expf(logits[i + j * n] - m); /* <= 1: cannot overflow */
            probs[i + j * n] = e;
            sum += e;
        }
        for (int j = 0; j < c; j++) probs[i + j * n] /= sum;
        int t = targets[i];
        acc += (t >= 0 && t < c) ? m + logf(sum) - logits[i + t * n] : nanf("");
    }
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int half = CE_THREADS / 2; half > 0; half /= 2) {
        if ((int)threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) *loss = part[0] / (float)n;
}

/* dlogits(i, j) = (probs(i, j) - [j == targets[i]]) / n; one thread per element. */
static __global__ void softmax_ce_backward_kernel(const float *probs, const int32_t *targets,
                                                  float *dlogits, int n, int c)
{
    int total = n * c;
    int stride = blockDim.x * gridDim.x;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < total; k += stride) {
        int i = k % n, j = k / n; /* element k is (i, j) */
        int t = targets[i];
        float onehot = (j == t) ? 1.0f : 0.0f;
        dlogits[k] = (t >= 0 && t < c) ? (probs[k] - onehot) / (float)n : nanf("");
    }
}

/* n * c elements indexed by int, with room for a grid-stride lap. */
static int ce_fits(int64_t n, int64_t c)
{
    const int64_t limit = INT_MAX - (int64_t)CE_THREADS * 65535;
    return c <= limit && n <= limit / (c > 0 ? c : 1);
}

extern "C" cudaError_t k_softmax_ce_forward(const float *logits, const int32_t *targets,
                                            float *probs, float *loss, int64_t n, int64_t c,
                                            cudaStream_t s)
{
    if (n < 0 || c < 0 || !loss || !ce_fits(n, c)) return cudaErrorInvalidValue;
    if (n == 0) /* the mean of nothing: NaN, as in PyTorch; all-one bits are a NaN */
        return cudaMemsetAsync(loss, 0xff, sizeof(float), s);
    if (c == 0 || !logits || !targets || !probs) return cudaErrorInvalidValue;
    int rows = (int)n, nc = (int)c;
    softmax_ce_forward_kernel<<<1, CE_THREADS, 0, s>>>(logits, targets, probs, loss, rows, nc);
    return cudaGetLastError();
}

extern "C" cudaError_t k_softmax_ce_backward(const float *probs, const int32_t *targets,
                                             float *dlogits, int64_t n, int64_t c,
                                             cudaStream_t s)
{
    if (n < 0 || c < 0 || !ce_fits(n, c)) return cudaErrorInvalidValue;
    if (n == 0 || c == 0) return cudaSuccess;
    if (!probs || !targets || !dlogits) return cudaErrorInvalidValue;
    int64_t blocks64 = (n * c + CE_THREADS - 1) / CE_THREADS;
    unsigned int blocks = (unsigned int)(blocks64 < 65535 ? blocks64 : 65535);
    int rows = (int)n, nc = (int)c;
    softmax_ce_backward_kernel<<<blocks, CE_THREADS, 0, s>>>(probs, targets, dlogits, rows, nc);
    return cudaGetLastError();
}
