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

#include "lib/device/device.h"
#include "lib/device/tensor.h"

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
 * The copy runs beside the kernels of the device's compute stream, and does
 * not wait for them (that is the point): @p dst must be a buffer no queued
 * kernel still uses, and not a fresh tensor_new() one, whose zero-fill is
 * queued on the compute stream and could land after the copy. @p src must
 * stay untouched until the copy is done. Call backend_copy_wait() before a
 * kernel, or a copy to the CPU, that reads @p dst. (The simulator runs
 * everything in order, so it cannot show a mistake here; a GPU can.)
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

/** @brief Whether @p d is recording a CUDA Graph (between capture begin and end). */
bool backend_capturing(Device d);

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

/* ---- Optimizers and gradient clipping (kernels/optim.cu) ----------------- */

/**
 * @brief One `torch.optim.SGD` step on @p n values: p, g and the momentum buffer @p buf.
 *
 * See k_sgd_momentum_step(); @p first says that the buffer is not set yet
 * (the first step copies the gradient into it). One launch.
 */
int backend_sgd_momentum_step(Device d, float *p, const float *g, float *buf, int64_t n, float lr,
                              float momentum, float weight_decay, bool nesterov, bool first);

/**
 * @brief One `torch.optim.Adam` step on @p n values: p, g, exp_avg @p m and exp_avg_sq @p v.
 *
 * The scalars are those of k_adam_step(), computed by the caller in double.
 * One launch.
 */
int backend_adam_step(Device d, float *p, const float *g, float *m, float *v, int64_t n,
                      float beta1, float beta2, float one_minus_beta1, float one_minus_beta2,
                      float neg_step_size, float bias_correction2_sqrt, float eps,
                      float weight_decay);

/**
 * @brief Clip @p n gradient tensors on @p d together to the 2-norm @p max_norm.
 *
 * grads[i] points to sizes[i] floats on @p d. One k_sum_squares launch per
 * non-empty tensor, one k_norm_from_partials, one k_clip_scale per non-empty
 * tensor; the partial sums go to scratch memory that the backend keeps per
 * device (allocated on the first call, grown when a call needs more, held
 * until the program ends). With @p total_norm not NULL the norm is copied
 * back: one sync, the call's only one; with NULL, nothing waits for the GPU.
 */
int backend_clip_grad_norm(Device d, float *const *grads, const int64_t *sizes, int n,
                           float max_norm, float *total_norm);

/* ---- Lesson 05: the trainer's mixed precision and its epoch loss ---------- */

/** @brief p[i] *= f over @p n values (the loss scale on a gradient). */
int backend_scale(Device d, float *p, int64_t n, float f);

/** @brief acc[0] += w * x[0], both on @p d: a batch's loss added to the epoch's sum. */
int backend_accumulate(Device d, float *acc, const float *x, float w);

/**
 * @brief GradScaler's unscale of one gradient: g *= inv_scale, noting any inf or NaN in
 *        the device's flag (read and cleared by backend_unscale_result()).
 */
int backend_unscale(Device d, float *g, int64_t n, float inv_scale);

/** @brief Read and clear the flag of backend_unscale(): one 4-byte copy back, a sync. */
int backend_unscale_result(Device d, bool *found_inf);

/**
 * @brief C = alpha op(A) op(B) + beta C with A and B rounded to @p half (f16 or bf16) for the
 *        product, f32 accumulation, and C rounded to @p half: cublasGemmEx on tensor cores.
 *
 * A, B and C are f32 arrays on @p d (A and B are converted into scratch
 * half buffers first; they are not changed); the result equals half_gemm()'s
 * on the CPU up to the order of the sums. Column-major, leading dimensions
 * equal to the stored rows.
 */
int backend_gemm_half(Device d, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
                      const float *A, const float *B, float beta, float *C, DType half);

/**
 * @brief *out = the sum of @p n floats at @p x, all on @p d: with atomics (k_sum, whose last
 *        bits can change from run to run) or, @p deterministic, in a fixed order.
 */
int backend_sum(Device d, const float *x, int64_t n, float *out, bool deterministic);

/** @brief Round @p n floats in place through @p half and back (k_round_f16, k_round_bf16). */
int backend_round(Device d, float *p, int64_t n, DType half);

#endif /* WB_BACKEND_H */
