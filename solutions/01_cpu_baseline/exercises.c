/*
 * Lesson 01 exercises: reference answers.
 *
 * Same functions as lessons/01_cpu_baseline/exercises.c. Written to be read
 * first and to be fast second. Every array is column-major (tensor.h): the n
 * samples of one feature sit side by side, so each inner loop below runs over
 * the samples i, touches consecutive floats, and becomes SIMD code (16 floats
 * per instruction with AVX-512). `restrict` promises the compiler that the
 * arrays do not overlap, which it needs before it vectorizes.
 */
#include "lib/train/data.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/nn/optim.h"
#include "lib/core/vecmath.h"

/* ex01.1 MinMax scaling ------------------------------------------------- */

int minmax_fit(const float *restrict x, int64_t n, int64_t d, float *restrict data_min,
               float *restrict data_max)
{
    for (int64_t j = 0; j < d; j++) {
        const float *xj = x + j * n; /* feature j: n consecutive values */
        float lo = xj[0], hi = xj[0];
        for (int64_t i = 1; i < n; i++) {
            lo = xj[i] < lo ? xj[i] : lo;
            hi = xj[i] > hi ? xj[i] : hi;
        }
        data_min[j] = lo;
        data_max[j] = hi;
    }
    return 0;
}

int minmax_transform(const float *restrict x, int64_t n, int64_t d,
                     const float *restrict data_min, const float *restrict data_max,
                     float *restrict y)
{
    for (int64_t j = 0; j < d; j++) {
        float range = data_max[j] - data_min[j];
        if (range == 0.0f) range = 1.0f; /* a constant feature maps to 0, not NaN */
        for (int64_t i = 0; i < n; i++) y[i + j * n] = (x[i + j * n] - data_min[j]) / range;
    }
    return 0;
}

/* ex01.2 / ex01.3 Linear: forward and backward side by side ------------- */

int linear_forward(const float *restrict x, const float *restrict w, const float *restrict b,
                   float *restrict y, int64_t n, int64_t in, int64_t out)
{
    for (int64_t o = 0; o < out; o++) {
        float *yo = y + o * n; /* output o for all n samples */
        for (int64_t i = 0; i < n; i++) yo[i] = b[o];
        for (int64_t k = 0; k < in; k++) {
            const float wok = w[o + k * out], *xk = x + k * n;
            for (int64_t i = 0; i < n; i++) yo[i] += wok * xk[i];
        }
    }
    return 0;
}

int linear_backward(const float *restrict x, const float *restrict w, const float *restrict dy,
                    float *restrict dx, float *restrict dw, float *restrict db, int64_t n,
                    int64_t in, int64_t out)
{
    for (int64_t o = 0; o < out; o++) {
        const float *dyo = dy + o * n;
        float sum = 0.0f;
        for (int64_t i = 0; i < n; i++) sum += dyo[i];
        db[o] += sum; /* db(o) += sum_i dy(i, o) */
        for (int64_t k = 0; k < in; k++) {
            const float *xk = x + k * n;
            float dot = 0.0f;
            for (int64_t i = 0; i < n; i++) dot += dyo[i] * xk[i];
            dw[o + k * out] += dot; /* dw(o, k) += sum_i dy(i, o) x(i, k) */
        }
    }
    if (!dx) return 0; /* the first layer: nobody needs dLoss/dx */
    for (int64_t k = 0; k < in; k++) {
        float *dxk = dx + k * n;
        for (int64_t i = 0; i < n; i++) dxk[i] = 0.0f;
        for (int64_t o = 0; o < out; o++) {
            const float wok = w[o + k * out], *dyo = dy + o * n;
            for (int64_t i = 0; i < n; i++) dxk[i] += dyo[i] * wok; /* dx = dy w */
        }
    }
    return 0;
}

/* ex01.4 / ex01.5 ReLU ------------------------------------------------------ */

int relu_forward(const float *restrict x, float *restrict y, int64_t n)
{
    for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
    return 0;
}

int relu_backward(const float *restrict y, const float *restrict dy, float *restrict dx,
                  int64_t n)
{
    for (int64_t i = 0; i < n; i++) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
    return 0;
}

/* ex01.6 / ex01.7 Cross-entropy ------------------------------------------- */

/* Rows are handled in blocks so the per-row scratch fits on the stack. */
#define CE_BLOCK 256

int cross_entropy_forward(const float *restrict logits, const int32_t *restrict targets,
                          float *restrict probs, float *restrict loss, int64_t n, int64_t c)
{
    double total = 0.0;
    for (int64_t i0 = 0; i0 < n; i0 += CE_BLOCK) {
        const int64_t m = n - i0 < CE_BLOCK ? n - i0 : CE_BLOCK;
        const float *z = logits + i0;
        const int32_t *t = targets + i0;
        float *p = probs + i0;
        float rowmax[CE_BLOCK], sum[CE_BLOCK], picked[CE_BLOCK];
        for (int64_t i = 0; i < m; i++) {
            rowmax[i] = z[i];
            sum[i] = 0.0f;
            picked[i] = 0.0f;
        }
        for (int64_t j = 1; j < c; j++)
            for (int64_t i = 0; i < m; i++)
                rowmax[i] = z[i + j * n] > rowmax[i] ? z[i + j * n] : rowmax[i];
        for (int64_t j = 0; j < c; j++)
            for (int64_t i = 0; i < m; i++) {
                float e = expf(z[i + j * n] - rowmax[i]); /* <= 1: cannot overflow */
                p[i + j * n] = e;
                sum[i] += e;
                picked[i] += t[i] == j ? z[i + j * n] : 0.0f; /* z(i, target) */
            }
        for (int64_t j = 0; j < c; j++)
            for (int64_t i = 0; i < m; i++) p[i + j * n] /= sum[i];
        float block = 0.0f;
        for (int64_t i = 0; i < m; i++) block += rowmax[i] + logf(sum[i]) - picked[i];
        total += block; /* logsumexp(row) - z(i, target), summed */
    }
    *loss = (float)(total / (double)n);
    return 0;
}

int cross_entropy_backward(const float *restrict probs, const int32_t *restrict targets,
                           float *restrict dlogits, int64_t n, int64_t c)
{
    const float inv_n = 1.0f / (float)n; /* from the mean over rows */
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < n; i++)
            dlogits[i + j * n] = (probs[i + j * n] - (targets[i] == j ? 1.0f : 0.0f)) * inv_n;
    return 0;
}

/* ex01.8 SGD ------------------------------------------------------------------ */

int sgd_step(float *restrict param, const float *restrict grad, int64_t n, float lr)
{
    for (int64_t i = 0; i < n; i++) param[i] -= lr * grad[i];
    return 0;
}
