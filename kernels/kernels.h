/**
 * @file kernels.h
 * @brief The workbook's CUDA kernels, seen from C: one host launch wrapper each.
 *
 * Every wrapper checks its arguments first (a negative size, a NULL pointer
 * where data is needed, or a size too big for the kernel's `int` indices
 * returns `cudaErrorInvalidValue` without launching anything), then launches
 * its kernel(s) on the stream @p s and returns `cudaGetLastError()`. The
 * launch is asynchronous: a result is ready once the stream has been
 * synchronised. A size of 0 launches nothing and returns `cudaSuccess`.
 *
 * Matrices are column-major, as everywhere in the workbook: element (i, j) of
 * a (rows, cols) matrix is `p[i + j * rows]` (or `p[i + j * ld]` where a
 * leading dimension is given). Shapes are PyTorch's: a batch is (n, features).
 * All pointers are device pointers.
 *
 * The same sources build with nvcc for a real GPU and with the workbook's CUDA
 * simulator (lib/cudasim), which runs every CUDA thread on the CPU.
 */
#ifndef WB_KERNELS_H
#define WB_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- elementwise.cu ------------------------------------------------------ */

/**
 * @brief Exercise 02.4: ReLU forward, y[i] = x[i] > 0 ? x[i] : 0 for i in [0, n).
 *
 * A kernel with one thread per element and the launch that covers all n of
 * them (lessons/02_device_transfer/exercises.cu). x and y hold n floats (any
 * shape, flattened); y may be x (in place). n < 0, NULL pointers or n too big
 * for int indices return cudaErrorInvalidValue; n == 0 launches nothing.
 */
cudaError_t k_relu_forward(const float *x, float *y, int64_t n, cudaStream_t s);

/**
 * @brief ReLU backward: dx[i] = y[i] > 0 ? dy[i] : 0 for i in [0, n).
 *
 * y is the forward output, dy the gradient of the loss with respect to y,
 * dx the gradient with respect to the input; all hold n floats, and dx may
 * be dy (in place).
 */
cudaError_t k_relu_backward(const float *y, const float *dy, float *dx, int64_t n,
                            cudaStream_t s);

/**
 * @brief Plain SGD update: p[i] -= lr * g[i] for i in [0, n).
 *
 * p is a parameter tensor and g its gradient, both n floats (any shape,
 * flattened); lr is the learning rate.
 */
cudaError_t k_sgd_step(float *p, const float *g, int64_t n, float lr, cudaStream_t s);

/**
 * @brief Add a bias to every row: y[i + j * n] += b[j] for y of shape (n, cols).
 *
 * y is (n, cols) column-major (a batch of n rows of cols features) and b
 * holds cols floats, one per column.
 */
cudaError_t k_add_bias(float *y, const float *b, int64_t n, int64_t cols, cudaStream_t s);

/** @brief Set all n floats of p to @p value. */
cudaError_t k_fill(float *p, int64_t n, float value, cudaStream_t s);

/**
 * @brief Copy a block of rows: dst(dst_start + i, j) = src(src_start + i, j).
 *
 * For i in [0, count) and j in [0, cols); src is (src_rows, cols) and dst is
 * (dst_rows, cols), both column-major, so each column's rows are contiguous
 * but the columns are src_rows (dst_rows) apart: one launch gathers a chunk
 * of a batch (or scatters it back) where cols separate copies would be slow.
 */
cudaError_t k_copy_rows(const float *src, int64_t src_rows, int64_t src_start, float *dst,
                        int64_t dst_rows, int64_t dst_start, int64_t count, int64_t cols,
                        cudaStream_t s);

/** @brief y[i] += x[i] for i in [0, n): a half-precision gradient added to the f32 one. */
cudaError_t k_add(float *y, const float *x, int64_t n, cudaStream_t s);

/** @brief p[i] *= f for i in [0, n): a gradient times the loss scale. */
cudaError_t k_scale(float *p, int64_t n, float f, cudaStream_t s);

/**
 * @brief acc[0] += w * x[0]: add one value kept on the device (a batch's loss) to a sum
 *        kept there too, so an epoch's loss is read back once, not once per batch.
 */
cudaError_t k_accumulate(float *acc, const float *x, float w, cudaStream_t s);

/**
 * @brief An empty kernel: one block of one thread that does nothing.
 *
 * Lesson 03 times it to show what a launch costs when there is no work.
 */
cudaError_t k_empty(cudaStream_t s);

/* ---- reduce.cu ----------------------------------------------------------- */

/**
 * @brief Column sums: out[j] = (accumulate ? out[j] : 0) + sum over i of x(i, j).
 *
 * x is (rows, cols) column-major and out holds cols floats (for a batch this
 * is the bias gradient: the sum of dy over the n rows). One block of 256
 * threads reduces each column: strided partial sums, a shared-memory tree
 * down to 32 values, then a warp-shuffle tail. With rows == 0, out is set to
 * 0 (or left as it is when accumulating); cols == 0 does nothing.
 */
cudaError_t k_sum_columns(const float *x, float *out, int64_t rows, int64_t cols,
                          int accumulate, cudaStream_t s);

/**
 * @brief Sum of all elements: *out = x[0] + ... + x[n-1].
 *
 * x holds n floats; out points to one float on the device. The wrapper sets
 * *out to 0 (cudaMemsetAsync), then each block reduces its grid-stride slice
 * in shared memory and adds its partial sum to *out with atomicAdd, so the
 * order of additions (and the last bits of the result) can vary from run to
 * run. With n == 0, *out is set to 0 and no kernel is launched.
 */
cudaError_t k_sum(const float *x, int64_t n, float *out, cudaStream_t s);

/**
 * @brief k_sum() without atomics: the same sum, bit for bit, on every run.
 *
 * Each block writes its partial sum to partials[block] (room for
 * k_sum_ordered_partials(n) floats), then one block adds the partials in
 * block order into *out. Two launches instead of one: the price of
 * determinism (what `torch.use_deterministic_algorithms(True)` asks for).
 */
cudaError_t k_sum_ordered(const float *x, int64_t n, float *partials, float *out,
                          cudaStream_t s);

/** @brief How many partial sums k_sum_ordered() writes for @p n values. */
int64_t k_sum_ordered_partials(int64_t n);

/* ---- softmax_ce.cu ------------------------------------------------------- */

/**
 * @brief Fused softmax and mean cross-entropy: probs = softmax(logits), *loss.
 *
 * logits and probs are (n, c) column-major, targets holds n labels in
 * [0, c), loss points to one float. For each row i, the row maximum m,
 * e_j = exp(z(i, j) - m), their sum S, probs(i, j) = e_j / S and the row loss
 * m + log(S) - z(i, targets[i]); *loss is the mean of the row losses (PyTorch's
 * `F.cross_entropy`), added in a fixed order by one block of threads, so it
 * has the same bits on every run. A label outside [0, c) makes *loss NaN (check labels on
 * the host first, as lib does). With n == 0, *loss is set to NaN (the mean of
 * nothing, as in PyTorch) and no kernel is launched; n > 0 needs c >= 1.
 */
cudaError_t k_softmax_ce_forward(const float *logits, const int32_t *targets, float *probs,
                                 float *loss, int64_t n, int64_t c, cudaStream_t s);

/**
 * @brief Gradient of the mean cross-entropy with respect to the logits.
 *
 * probs is the (n, c) output of k_softmax_ce_forward(), targets its n labels,
 * dlogits (n, c) column-major receives (probs(i, j) - [j == targets[i]]) / n.
 * A row whose label is outside [0, c) is filled with NaN.
 */
cudaError_t k_softmax_ce_backward(const float *probs, const int32_t *targets, float *dlogits,
                                  int64_t n, int64_t c, cudaStream_t s);

/* ---- sgemm.cu ------------------------------------------------------------ */

/** Number of SGEMM variants in the teaching series (valid variants: 0 .. K_SGEMM_VARIANTS-1). */
#define K_SGEMM_VARIANTS 3

/**
 * @brief C = alpha * A * B + beta * C with one of the workbook's SGEMM kernels.
 *
 * A is (M, K) with leading dimension lda >= max(1, M), B is (K, N) with
 * ldb >= max(1, K), C is (M, N) with ldc >= max(1, M), all column-major as in
 * BLAS (`cublasSgemm` with no transposes). @p variant picks the kernel of the
 * teaching series: 0 naive (one thread per element of C, 16x16 blocks),
 * 1 tiled (32x32 tiles of A and B in shared memory), 2 register-blocked
 * (64x64 tiles of C per block, a 4x4 micro-tile per thread). Any sizes work.
 * As in BLAS, C is not read when beta == 0 (it may hold garbage or NaN), and
 * M == 0 or N == 0 does nothing; with K == 0, C = beta * C (A and B may be NULL). Sizes whose indices do not fit in `int`
 * (lda * K, ldb * N or ldc * N above INT_MAX) and an unknown variant are
 * `cudaErrorInvalidValue`.
 */
cudaError_t k_sgemm(int variant, int64_t M, int64_t N, int64_t K, float alpha, const float *A,
                    int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
                    cudaStream_t s);

/**
 * @brief The name of an SGEMM variant for tables and plots.
 *
 * Returns "naive", "tiled (shared memory)" or "register-blocked 4x4" for
 * variants 0, 1 and 2, and "unknown" for any other number.
 */
const char *k_sgemm_name(int variant);

/* ---- Lesson 03's exercise (lessons/03_why_gpu_slower/exercises.cu) ------- */

/**
 * @brief Exercise 03.4: out = in transposed, through a shared-memory tile.
 *
 * in is a (rows, cols) matrix, column-major (element (i, j) at `in[i + j * rows]`),
 * and out the (cols, rows) one with out(j, i) = in(i, j) (at `out[j + i * cols]`);
 * they do not overlap. Each block copies a tile of in into `__shared__` memory and
 * writes it back transposed, so that the lanes of a warp read consecutive
 * addresses of in and write consecutive addresses of out (coalesced: 4 sectors per
 * request of 32 floats), and a warp reading a column of the tile hits 32 different
 * banks (the tile padded by one column). Any sizes work whose tiles of columns fit
 * in a grid's y dimension (65535 of them: cols up to 2,097,120); beyond, the launch
 * fails and its error (`cudaErrorInvalidConfiguration`) is returned. Rows or cols
 * of 0 launch nothing; negative sizes, sizes whose indices do not fit in `int`, or
 * NULL pointers with work to do are `cudaErrorInvalidValue`.
 */
cudaError_t k_transpose(const float *in, float *out, int64_t rows, int64_t cols, cudaStream_t s);

/* ---- mlp_fused.cu -------------------------------------------------------- */

/**
 * @brief A whole training of Linear(d, h) -> ReLU -> Linear(h, c) in one launch.
 *
 * Lesson 03's answer to launch overhead: mean cross-entropy, plain SGD
 * (p -= lr * grad), full batch (all n samples every epoch), @p epochs epochs,
 * what lib's train_step() does on the CPU, all inside one kernel: one block,
 * one thread per sample, the parameters and their gradients in shared memory.
 * x is (n, d) column-major, y holds n labels in [0, c) (a label outside makes
 * the loss and the parameters NaN), w1 is (h, d), b1 (h), w2 (c, h), b2 (c),
 * all column-major like lib's Linear; they are read at the start and
 * overwritten with the trained values. When @p losses is not NULL,
 * losses[e] is the mean loss of epoch e, computed in its forward pass before
 * its update (what train_step() reports). Sums run in a fixed order (warp
 * shuffles, then warp by warp, no atomics), so the same inputs give the same
 * bits on every run; they differ from the CPU's in the last bits.
 * Limits: 1 <= n <= 1024, 1 <= d <= 16, 1 <= h <= 64, 1 <= c <= 16,
 * epochs >= 0; anything else, or a NULL pointer other than @p losses, returns
 * cudaErrorInvalidValue without launching; epochs == 0 launches nothing.
 */
cudaError_t k_mlp_train_fused(const float *x, const int32_t *y, int n, int d, int h, int c,
                              float *w1, float *b1, float *w2, float *b2, int epochs, float lr,
                              float *losses, cudaStream_t s);

/* ---- optim.cu ------------------------------------------------------------ */

/**
 * @brief One step of `torch.optim.SGD` (dampening 0) on one parameter tensor.
 *
 * p, g and buf hold n floats (any shape, flattened): the parameter, its
 * gradient and its momentum buffer. Per element: d = g + weight_decay * p
 * (as one fmaf); when momentum != 0, buf = first ? d : momentum * buf + d
 * (the product rounded first) and d = nesterov ? d + momentum * buf (fmaf) :
 * buf; then p = p - lr * d (fmaf). With momentum == 0, buf is not used and
 * may be NULL. PyTorch's CPU order of operations, so the result is lib's CPU
 * update to the bit.
 */
cudaError_t k_sgd_momentum_step(float *p, const float *g, float *buf, int64_t n, float lr,
                                float momentum, float weight_decay, int nesterov, int first,
                                cudaStream_t s);

/**
 * @brief One step of `torch.optim.Adam` on one parameter tensor, with scalars from the host.
 *
 * p, g, m (exp_avg) and v (exp_avg_sq) hold n floats. The caller computes,
 * in double as PyTorch does, and passes as floats: one_minus_beta1 = 1 -
 * beta1, one_minus_beta2 = 1 - beta2, neg_step_size = -lr / (1 - beta1^t)
 * and bias_correction2_sqrt = sqrt(1 - beta2^t) for step t. Per element:
 * d = g + weight_decay * p (fmaf; skipped when weight_decay is 0);
 * m = fmaf(one_minus_beta1, d, m * beta1); v = fmaf(one_minus_beta2 * d, d,
 * v * beta2); p = p + neg_step_size * m / (sqrt(v) / bias_correction2_sqrt +
 * eps), each operation rounded as written.
 */
cudaError_t k_adam_step(float *p, const float *g, float *m, float *v, int64_t n, float beta1,
                        float beta2, float one_minus_beta1, float one_minus_beta2,
                        float neg_step_size, float bias_correction2_sqrt, float eps,
                        float weight_decay, cudaStream_t s);

/** @brief How many partial sums k_sum_squares() writes for n values (0 if n <= 0, at most 256). */
int k_sum_squares_blocks(int64_t n);

/**
 * @brief Partial sums of squares of x (n floats): partials[b] for b < k_sum_squares_blocks(n).
 *
 * Each block of 256 threads sums x[i]^2 over its grid-stride slice and
 * reduces the 256 values in a fixed tree in shared memory; nothing is added
 * atomically, so the same x gives the same bits on every run. Several
 * tensors' partials can go side by side into one array, to be finished by
 * one k_norm_from_partials(). n == 0 writes nothing.
 */
cudaError_t k_sum_squares(const float *x, int64_t n, float *partials, cudaStream_t s);

/**
 * @brief *norm = sqrt(partials[0] + ... + partials[count - 1]), in one block, in a fixed order.
 *
 * norm points to one float on the device; count == 0 gives 0.
 */
cudaError_t k_norm_from_partials(const float *partials, int64_t count, float *norm,
                                 cudaStream_t s);

/**
 * @brief Clip one gradient tensor by a global norm held on the device.
 *
 * g holds n floats; norm points to the total norm (k_norm_from_partials()).
 * Each block computes clip_coef = max_norm / (*norm + 1e-6f) and, when it is
 * below 1 or NaN (PyTorch multiplies by `clamp(clip_coef, max=1)`), sets
 * g[i] *= clip_coef. The CPU never needs to read the norm.
 */
cudaError_t k_clip_scale(float *g, int64_t n, const float *norm, float max_norm,
                         cudaStream_t s);

/* ---- half.cu ------------------------------------------------------------- */

/*
 * Half-precision arrays are passed as uint16_t: the bits of an f16 (IEEE
 * binary16, CUDA's __half) or a bf16 (__nv_bfloat16) value. Conversions round
 * to nearest even, overflow to inf and keep subnormals and -0, as lib/core/half.c
 * does on the CPU; only a NaN's bits differ (CUDA writes 0x7FFF). Sizes and
 * errors follow the rules at the top of this file.
 */

/** @brief h[i] = x[i] rounded to f16 (`__float2half_rn`) for i in [0, n). */
cudaError_t k_f32_to_f16(const float *x, uint16_t *h, int64_t n, cudaStream_t s);

/** @brief x[i] = the f16 value h[i] as a float (exact) for i in [0, n). */
cudaError_t k_f16_to_f32(const uint16_t *h, float *x, int64_t n, cudaStream_t s);

/** @brief h[i] = x[i] rounded to bf16 (`__float2bfloat16_rn`) for i in [0, n). */
cudaError_t k_f32_to_bf16(const float *x, uint16_t *h, int64_t n, cudaStream_t s);

/** @brief x[i] = the bf16 value h[i] as a float (exact) for i in [0, n). */
cudaError_t k_bf16_to_f32(const uint16_t *h, float *x, int64_t n, cudaStream_t s);

/**
 * @brief Round in place through f16: x[i] = float(half(x[i])) for i in [0, n).
 *
 * The GPU twin of half_round() (lib/core/half.h): afterwards each value is what
 * storing it in f16 keeps, so f32 buffers can stand for f16 ones.
 */
cudaError_t k_round_f16(float *x, int64_t n, cudaStream_t s);

/** @brief Round in place through bf16: x[i] = float(bf16(x[i])) for i in [0, n). */
cudaError_t k_round_bf16(float *x, int64_t n, cudaStream_t s);

/**
 * @brief GradScaler's unscale: g[i] *= inv_scale, and *found_inf = 1 if any g[i] is inf or NaN.
 *
 * PyTorch's `_amp_foreach_non_finite_check_and_unscale_` for one gradient
 * tensor of n floats: every value is multiplied (non-finite ones stay
 * non-finite), and found_inf, one int on the device, is set to 1 when a value
 * was inf or NaN. The kernel never resets it to 0: zero it once
 * (cudaMemsetAsync), run this for every gradient, and read it once. n == 0
 * leaves it as it is. The CPU twin is half_unscale_check() (lib/core/half.h).
 */
cudaError_t k_unscale_check(float *g, int64_t n, float inv_scale, int *found_inf,
                            cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif /* WB_KERNELS_H */
