/* sim_bench.h: the plain C loops of sim_bench_ref.c, called from sim_bench.cu. */
#ifndef SIM_BENCH_H
#define SIM_BENCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
void ref_matmul(float *C, const float *A, const float *B, int hA, int wA, int wB);
void ref_add_factor(int *a, size_t n, int factor, int iterations);
void ref_sgemm_rows(float *C, const float *A, const float *B, int n, int rows);
float ref_sum(const float *x, size_t n);
void ref_scan_segments(int *out, const int *in, size_t n, int seg);
void ref_adam(float *p, const float *g, float *m, float *v, size_t n, float beta1, float beta2,
              float omb1, float omb2, float neg_step, float bc2, float eps);
void ref_sgemm_colmajor(float *C, const float *A, const float *B, int n);
#ifdef __cplusplus
}
#endif

#endif
