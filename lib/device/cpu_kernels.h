/**
 * @file cpu_kernels.h
 * @brief The CPU's kernels that students write: the arithmetic of Lesson 01's
 *        layers, loss and SGD step, and Lesson 05's gradient clipping.
 *
 * These are holes in lib: the CPU backend (backend_cpu.c) calls them as its
 * linear_forward, relu_forward, ... ops, so every Linear, ReLU, loss and
 * optimizer on the CPU runs on the students' code. lessons/NN/exercises.c
 * defines them as stubs, solutions/NN/exercises.c as the answers. They work on
 * host arrays, column-major: element (i, j) of an (n, d) array is at i + j * n.
 */
#ifndef WB_CPU_KERNELS_H
#define WB_CPU_KERNELS_H

#include <stdint.h>

#include "lib/core/err.h"

/* ---- Exercises of Lesson 01 (lessons/01_cpu_baseline/exercises.c) ------ */

/**
 * @brief Exercise 01.2: the forward pass of Linear, y = x W^T + b.
 *
 * x: (n, in), w: (out, in), b: (out), y: (n, out), column-major f32:
 * y(i, o) = b(o) + sum over k of x(i, k) * w(o, k), where x(i, k) is
 * `x[i + k * n]`, w(o, k) is `w[o + k * out]` and y(i, o) is `y[i + o * n]`.
 * Returns 0 (::ERR_OK).
 */
WB_MUST_CHECK int linear_forward(const float *restrict x, const float *restrict w, const float *restrict b,
                   float *restrict y, int64_t n, int64_t in, int64_t out);

/**
 * @brief Exercise 01.3: the backward pass of Linear.
 *
 * Given x: (n, in), w: (out, in) and dy = dLoss/dy: (n, out), all
 * column-major, **add** to the gradients dw: (out, in) and db: (out), as
 * PyTorch accumulates them: dw(o, k) += sum over i of dy(i, o) * x(i, k) and
 * db(o) += sum over i of dy(i, o). When @p dx is not NULL, also **write**
 * dx: (n, in), dx(i, k) = sum over o of dy(i, o) * w(o, k). Returns 0
 * (::ERR_OK).
 */
WB_MUST_CHECK int linear_backward(const float *restrict x, const float *restrict w, const float *restrict dy,
                    float *restrict dx, float *restrict dw, float *restrict db, int64_t n,
                    int64_t in, int64_t out);

/**
 * @brief Exercise 01.4: the forward pass of ReLU, y[i] = max(x[i], 0), over @p n values.
 *
 * Returns 0 (::ERR_OK).
 */
WB_MUST_CHECK int relu_forward(const float *restrict x, float *restrict y, int64_t n);

/**
 * @brief Exercise 01.5: the backward pass of ReLU, from its output.
 *
 * dx[i] = dy[i] where y[i] > 0, else 0 (PyTorch's choice at 0 too). Uses the
 * forward output @p y, which is all ReLU needs to remember. Returns 0
 * (::ERR_OK).
 */
WB_MUST_CHECK int relu_backward(const float *restrict y, const float *restrict dy, float *restrict dx,
                  int64_t n);

/**
 * @brief Exercise 01.6: softmax probabilities and mean cross-entropy.
 *
 * logits: (n, c) and probs: (n, c), column-major (z(i, j) is
 * `logits[i + j * n]`); targets: (n) with values in [0, c).
 * probs(i, j) = exp(z(i, j)) / sum over k of exp(z(i, k)), and
 * *loss = mean over i of (logsumexp of row i - z(i, targets[i])).
 * Must stay finite for logits in the thousands: subtract each row's maximum
 * first (log-sum-exp). Returns 0 (::ERR_OK).
 */
WB_MUST_CHECK int cross_entropy_forward(const float *restrict logits, const int32_t *restrict targets,
                          float *restrict probs, float *restrict loss, int64_t n, int64_t c);

/**
 * @brief Exercise 01.7: dLoss/dlogits of the mean cross-entropy.
 *
 * dlogits(i, j) = (probs(i, j) - (1 if j == targets[i] else 0)) / n, with
 * probs from cross_entropy_forward(); both (n, c) column-major. Returns 0
 * (::ERR_OK).
 */
WB_MUST_CHECK int cross_entropy_backward(const float *restrict probs, const int32_t *restrict targets,
                           float *restrict dlogits, int64_t n, int64_t c);

/**
 * @brief Exercise 01.8: one SGD update, param[i] -= lr * grad[i], over @p n values.
 *
 * Returns 0 (::ERR_OK).
 */
WB_MUST_CHECK int sgd_step(float *restrict param, const float *restrict grad, int64_t n, float lr);

/* ---- Exercise 05.2 (lessons/05_trainer) --------------------------------- */

/**
 * @brief Exercise 05.2: clip gradients by their global 2-norm, on host arrays.
 *
 * @p grads holds @p n arrays (n >= 0) and array i holds @p sizes[i] >= 0
 * floats. First the norm of all values together: total = sqrt(x_1^2 + x_2^2
 * + ... over every value of every array), a float; store it in
 * *@p total_norm (0 when there are no values). The sum of the squares has
 * float's range, as in PyTorch, whose float32 norm adds the squares in
 * float, and in the GPU kernel: a sum beyond it (about 3.4e38, reached by
 * values of 3e30 and 4e30) makes the norm inf. Add the squares in float, or
 * in double (exact enough in any order) and round the sum to float before
 * the square root. Then, in float, clip_coef = max_norm / (total + 1e-6f).
 * When clip_coef < 1, or is NaN, multiply every value of every array by
 * clip_coef in place; otherwise change nothing. This is what
 * `torch.nn.utils.clip_grad_norm_` does, including its non-finite cases: an
 * infinite norm (an infinite value, or squares beyond float's range) makes
 * clip_coef 0 (finite values become 0, infinite ones NaN), and a NaN makes
 * the norm and every value NaN. Returns 0 (::ERR_OK).
 */
WB_MUST_CHECK int clip_grad_norm_scale(float *const *grads, const int64_t *sizes, int n, float max_norm,
                         float *total_norm);

#endif /* WB_CPU_KERNELS_H */
