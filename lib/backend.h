/**
 * @file backend.h
 * @brief What lib asks of a GPU: memory, copies, and the operations of a network.
 *
 * Two files implement this header, and a build links one: backend_cuda.c
 * (the CUDA runtime, cuBLAS and the kernels of kernels/, compiled against a
 * real GPU's headers or the CUDA simulator's) and backend_none.c (no CUDA:
 * every call says so). Everything else in lib is the same in every build.
 *
 * Pointers are device pointers on device @p d; matrices are column-major, so
 * cuBLAS takes them as they are. Every call that can fail returns an ::ErrCode
 * with a message naming the operation, CUDA's error and, on the simulator,
 * its report (kernel, block, thread). Launches and syncs are counted
 * (counters.h).
 */
#ifndef WB_BACKEND_H
#define WB_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"

/** @brief "CUDA", "CUDA simulator" or "none". */
const char *backend_name(void);

/** @brief How many CUDA devices are visible (see device_count()). */
int backend_device_count(int *count);

/** @brief Facts of visible CUDA device @p index (DeviceInfo::physical is filled by the caller). */
int backend_device_info(int index, DeviceInfo *info);

/**
 * @brief Allocate @p bytes on CUDA device @p d.
 *
 * Out of memory is an ::ERR_NOMEM that names the request, what is free and
 * what to try.
 */
int backend_alloc(Device d, size_t bytes, void **ptr);

/** @brief Release memory from backend_alloc() (NULL is allowed). */
void backend_free(Device d, void *ptr, size_t bytes);

/** @brief Copy @p bytes from @p src on @p from to @p dst on @p to (a sync when @p to is the CPU). */
int backend_copy(void *dst, Device to, const void *src, Device from, size_t bytes);

/** @brief Set @p bytes at @p p on @p d to zero, without waiting. */
int backend_zero(Device d, void *p, size_t bytes);

/** @brief Wait until device @p d has finished all its work (a sync). */
int backend_synchronize(Device d);

/**
 * @brief C = alpha op(A) op(B) + beta C with cuBLAS (column-major, as BLAS).
 *
 * op(A) is (m, k), op(B) is (k, n), C is (m, n); @p ta / @p tb transpose.
 */
int backend_gemm(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                 const float *A, int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                 int64_t ldc);

/**
 * @brief C = A B (column-major, no transposes) with the workbook's own SGEMM kernel @p variant.
 *
 * 0 naive, 1 shared-memory tiled, 2 register-blocked (kernels/sgemm.cu).
 */
int backend_sgemm_kernel(Device d, int variant, const float *A, const float *B, float *C,
                         int64_t m, int64_t n, int64_t k);

/** @brief The name of SGEMM kernel @p variant ("naive", ...), or NULL past the last one. */
const char *backend_sgemm_name(int variant);

/** @brief y(i, j) += b(j) for y (n, cols). */
int backend_add_bias(Device d, float *y, const float *b, int64_t n, int64_t cols);

/** @brief out(j) += sum over i of x(i, j) for x (rows, cols). */
int backend_sum_columns_add(Device d, const float *x, float *out, int64_t rows, int64_t cols);

/** @brief y = max(x, 0) over @p n values (the kernel is Lesson 02's exercise 02.4). */
int backend_relu_forward(Device d, const float *x, float *y, int64_t n);

/** @brief dx = dy where y > 0, else 0, over @p n values. */
int backend_relu_backward(Device d, const float *y, const float *dy, float *dx, int64_t n);

/**
 * @brief Softmax probabilities (n, c) and the mean cross-entropy, left on the device in @p loss.
 */
int backend_softmax_ce_forward(Device d, const float *logits, const int32_t *targets,
                               float *probs, float *loss, int64_t n, int64_t c);

/** @brief dlogits = (probs - onehot) / n. */
int backend_softmax_ce_backward(Device d, const float *probs, const int32_t *targets,
                                float *dlogits, int64_t n, int64_t c);

/** @brief p -= lr g over @p n values. */
int backend_sgd_step(Device d, float *p, const float *g, int64_t n, float lr);

#endif /* WB_BACKEND_H */
