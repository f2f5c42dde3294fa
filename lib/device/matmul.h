/**
 * @file matmul.h
 * @brief The N x N matrix product of Lesson 02, on the CPU and on a GPU.
 *
 * C = A B for column-major A (m, k), B (k, n), C (m, n): on the CPU with
 * OpenBLAS (all cores), on a CUDA device with cuBLAS or with one of the
 * workbook's own SGEMM kernels (kernels/sgemm.cu), a series from naive to
 * register-blocked. GPU calls return as soon as the work is queued: time them
 * only after backend_synchronize(), which is the point of the lesson's demo.
 */
#ifndef WB_MATMUL_H
#define WB_MATMUL_H

#include <stdint.h>

#include "lib/core/err.h"
#include "lib/device/device.h"

/** The variant that means cuBLAS in matmul_device(). */
#define MATMUL_CUBLAS (-1)

/** @brief C = A B on the CPU with OpenBLAS. */
WB_MUST_CHECK int matmul_cpu(const float *A, const float *B, float *C, int64_t m, int64_t n, int64_t k);

/**
 * @brief C = A B on CUDA device @p d (device pointers), without waiting for it.
 *
 * @p variant is ::MATMUL_CUBLAS or a kernel of the series, 0 .. matmul_variants() - 1.
 */
WB_MUST_CHECK int matmul_device(Device d, int variant, const float *A, const float *B, float *C, int64_t m,
                  int64_t n, int64_t k);

/** @brief How many of the workbook's own SGEMM kernels there are. */
int matmul_variants(void);

/** @brief "cuBLAS" or the name of kernel @p variant ("naive", ...). */
const char *matmul_variant_name(int variant);

/** @brief How many threads OpenBLAS uses. */
int matmul_cpu_threads(void);

#endif /* WB_MATMUL_H */
