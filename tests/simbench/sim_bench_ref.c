/* sim_bench_ref.c: the plain C loops sim_bench.cu compares each kernel with:
 * the same work, one CPU thread, built with the workbook's optimising flags
 * and no simulator (a host file of the program, not translated). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim_bench.h"

/* C (hA x wB) = A (hA x wA) * B (wA x wB), row-major: matrixMul's product. */
void ref_matmul(float *C, const float *A, const float *B, int hA, int wA, int wB)
{
    for (int i = 0; i < hA; i++) {
        float *c = C + (size_t)i * wB;
        memset(c, 0, sizeof(float) * (size_t)wB);
        for (int k = 0; k < wA; k++) {
            float a = A[(size_t)i * wA + k];
            const float *b = B + (size_t)k * wB;
            for (int j = 0; j < wB; j++) c[j] += a * b[j];
        }
    }
}

/* simpleStreams' kernel: each element gets factor added, iterations times. */
void ref_add_factor(int *a, size_t n, int factor, int iterations)
{
    for (int it = 0; it < iterations; it++)
        for (size_t i = 0; i < n; i++) a[i] += factor;
}

/* A band of rows [0, rows) of C = A * B, n x n row-major. */
void ref_sgemm_rows(float *C, const float *A, const float *B, int n, int rows)
{
    ref_matmul(C, A, B, rows, n, n);
}

float ref_sum(const float *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return (float)s;
}

/* An inclusive scan of each segment of seg ints. */
void ref_scan_segments(int *out, const int *in, size_t n, int seg)
{
    for (size_t b = 0; b < n; b += (size_t)seg) {
        int s = 0;
        for (size_t i = b; i < b + (size_t)seg && i < n; i++) out[i] = s += in[i];
    }
}

/* torch.optim.Adam's step, as kernels/optim.cu's k_adam_step computes it. */
void ref_adam(float *p, const float *g, float *m, float *v, size_t n, float beta1, float beta2,
              float omb1, float omb2, float neg_step, float bc2, float eps)
{
    for (size_t i = 0; i < n; i++) {
        float d = g[i];
        m[i] = omb1 * d + m[i] * beta1;
        v[i] = (omb2 * d) * d + v[i] * beta2;
        float denom = __builtin_sqrtf(v[i]) / bc2 + eps;
        p[i] = p[i] + neg_step * m[i] / denom;
    }
}

/* C = A * B, column-major (BLAS's layout, as k_sgemm takes it), n x n. */
void ref_sgemm_colmajor(float *C, const float *A, const float *B, int n)
{
    for (int j = 0; j < n; j++) {
        float *c = C + (size_t)j * n;
        memset(c, 0, sizeof(float) * (size_t)n);
        for (int k = 0; k < n; k++) {
            float b = B[(size_t)j * n + k];
            const float *a = A + (size_t)k * n;
            for (int i = 0; i < n; i++) c[i] += a[i] * b;
        }
    }
}
