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

/**
 * @brief Copy rows [@p src_start, + @p count) of @p src (src_rows, cols) to rows from
 *        @p dst_start of @p dst (dst_rows, cols), both column-major on @p d: one launch.
 */
int backend_copy_rows(Device d, const float *src, int64_t src_rows, int64_t src_start,
                      float *dst, int64_t dst_rows, int64_t dst_start, int64_t count,
                      int64_t cols);

/* ---- Lesson 03: what a launch, a copy and a sync cost -------------------- */

/** @brief Launch the empty kernel once: the cost of a launch with no work in it. */
int backend_empty_kernel(Device d);

/**
 * @brief Allocate @p bytes of pinned (page-locked) host memory, cudaMallocHost.
 *
 * Copies from pinned memory go straight to the GPU by DMA; copies from
 * ordinary (pageable) memory are staged through a pinned buffer by the
 * driver first. Free with backend_host_free().
 */
int backend_host_alloc(size_t bytes, void **ptr);

/** @brief Release memory from backend_host_alloc() (NULL is allowed). */
void backend_host_free(void *ptr);

/**
 * @brief Start copying @p bytes from pinned host memory @p src to @p dst on @p d, on the
 *        device's copy stream, and return at once.
 *
 * The copy runs beside the kernels of the device's compute stream. Call
 * backend_copy_wait() before a kernel that reads @p dst.
 */
int backend_copy_async(Device d, void *dst, const void *src, size_t bytes);

/** @brief Make the compute stream of @p d wait (on the GPU, not the CPU) for the copies started so far. */
int backend_copy_wait(Device d);

/** A CUDA Graph: a recorded sequence of GPU work, replayed with one launch. */
typedef struct BackendGraph BackendGraph;

/**
 * @brief Start recording instead of running: the work lib issues on @p d from now on
 *        is captured (cudaStreamBeginCapture) until backend_capture_end().
 *
 * Nothing may wait for the GPU while recording (no loss.item(), no copy to
 * the CPU, no allocation): that is an error that names the operation.
 */
int backend_capture_begin(Device d);

/** @brief Stop recording and make the graph ready to replay (cudaGraphInstantiate). */
int backend_capture_end(Device d, BackendGraph **graph);

/** @brief How many operations (kernels, cuBLAS calls, memsets) the graph holds. */
size_t backend_graph_nodes(const BackendGraph *graph);

/** @brief Replay the graph: all its work with one launch (counted as one). */
int backend_graph_launch(BackendGraph *graph);

/** @brief Release a graph (NULL is allowed). */
void backend_graph_free(BackendGraph *graph);

/**
 * @brief Train Linear(din, h), ReLU, Linear(h, c) with mean cross-entropy and SGD for
 *        @p epochs full-batch epochs in ONE kernel launch (kernels/mlp_fused.cu).
 *
 * x: (n, din) and y: (n) on @p d; the parameters w1 (h, din), b1 (h),
 * w2 (c, h), b2 (c) on @p d are updated in place. With @p losses (on @p d,
 * @p epochs floats) not NULL, each epoch's loss is kept there.
 */
int backend_mlp_train_fused(Device d, const float *x, const int32_t *y, int64_t n, int64_t din,
                            int64_t h, int64_t c, float *w1, float *b1, float *w2, float *b2,
                            long epochs, float lr, float *losses);

#endif /* WB_BACKEND_H */
