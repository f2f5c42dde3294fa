/*
 * Lesson 01 exercises: the CPU building blocks of the Iris MLP.
 *
 * Each function below is a hole in the workbook's library: lib checks the
 * shapes, then calls your function to do the arithmetic. Replace a body
 * (including its `return exercise_todo(...)` line) with your code and return
 * 0. Shapes are PyTorch's, memory is column-major (lib/device/tensor.h says why):
 * element (i, j) of an (n, d) array is at i + j * n, so the n samples of one
 * feature are side by side. Write your inner loops over the samples i and the
 * compiler makes them SIMD code.
 *
 *   make grade LESSON=01          grade these exercises
 *   make hint EX=01.2             a longer hint for one exercise
 *   make lesson37 PART=1 IMPL=lessons    watch your code train Iris
 *
 * The shapes and formulas are next to each declaration: lib/train/data.h (01.1)
 * and lib/device/cpu_kernels.h (01.2 to 01.8), the CPU's kernels that lib's
 * layers, loss and optimizer call.
 */
#include <math.h>

#include "lib/core/err.h"
#include "lib/device/cpu_kernels.h"
#include "lib/train/data.h"

#define HERE "lessons/01_cpu_baseline/exercises.c"

/* ex01.1 MinMax scaling (two functions) --------------------------------------
 * TODO(ex01.1): minmax_fit: the smallest and largest value of each feature.
 * Hint: feature j is x[j * n + i] for (i = 0; i < n; i++); start from its
 * first value, then walk the others. About 10 lines.
 */
int minmax_fit(const float *restrict x, int64_t n, int64_t d, float *restrict data_min,
               float *restrict data_max)
{
    (void)x, (void)n, (void)d, (void)data_min, (void)data_max;
    return exercise_todo("01.1", "minmax_fit", HERE);
}

/* TODO(ex01.1): minmax_transform: y = (x - min) / (max - min), feature by feature.
 * Hint: a feature whose max equals its min must become 0, not NaN (use a range
 * of 1 then, as scikit-learn does). About 6 lines.
 */
int minmax_transform(const float *restrict x, int64_t n, int64_t d,
                     const float *restrict data_min, const float *restrict data_max,
                     float *restrict y)
{
    (void)x, (void)n, (void)d, (void)data_min, (void)data_max, (void)y;
    return exercise_todo("01.1", "minmax_transform", HERE);
}

/* ex01.2 Linear forward --------------------------------------------------------
 * TODO(ex01.2): y(i, o) = b[o] + sum over k of x(i, k) * w(o, k).
 * Hint: x(i, k) is x[i + k * n], w(o, k) is w[o + k * out], y(i, o) is
 * y[i + o * n]. Three nested loops; put the loop over i innermost. About 10
 * lines.
 */
int linear_forward(const float *restrict x, const float *restrict w, const float *restrict b,
                   float *restrict y, int64_t n, int64_t in, int64_t out)
{
    (void)x, (void)w, (void)b, (void)y, (void)n, (void)in, (void)out;
    return exercise_todo("01.2", "linear_forward", HERE);
}

/* ex01.3 Linear backward -------------------------------------------------------
 * TODO(ex01.3): dw(o, k) += sum_i dy(i, o) x(i, k), db(o) += sum_i dy(i, o),
 * and (if dx != NULL) dx(i, k) = sum_o dy(i, o) w(o, k).
 * Hint: dw and db ADD to what is there (PyTorch accumulates gradients until
 * zero_grad); dx is WRITTEN (set it, do not add). dx is NULL for the first
 * layer of a network: skip it then. About 20 lines.
 */
int linear_backward(const float *restrict x, const float *restrict w, const float *restrict dy,
                    float *restrict dx, float *restrict dw, float *restrict db, int64_t n,
                    int64_t in, int64_t out)
{
    (void)x, (void)w, (void)dy, (void)dx, (void)dw, (void)db, (void)n, (void)in, (void)out;
    return exercise_todo("01.3", "linear_backward", HERE);
}

/* ex01.4 ReLU forward ----------------------------------------------------------
 * TODO(ex01.4): y[i] = max(x[i], 0) for (i = 0; i < n; i++). About 2 lines.
 */
int relu_forward(const float *restrict x, float *restrict y, int64_t n)
{
    (void)x, (void)y, (void)n;
    return exercise_todo("01.4", "relu_forward", HERE);
}

/* ex01.5 ReLU backward ---------------------------------------------------------
 * TODO(ex01.5): dx[i] = dy[i] where the forward output y[i] > 0, else 0.
 * Hint: at exactly 0 the gradient is 0, as in PyTorch. About 2 lines.
 */
int relu_backward(const float *restrict y, const float *restrict dy, float *restrict dx,
                  int64_t n)
{
    (void)y, (void)dy, (void)dx, (void)n;
    return exercise_todo("01.5", "relu_backward", HERE);
}

/* ex01.6 Cross-entropy forward -------------------------------------------------
 * TODO(ex01.6): softmax of each row into probs, and the mean over rows of
 * logsumexp(row) - row[target]. Row i is z(i, j) = logits[i + j * n] for
 * (j = 0; j < c; j++).
 * Hint: subtract the row's maximum m before exp (exp(1000) is inf);
 * logsumexp = m + log(sum exp(z - m)). Sum the loss in double. About 20 lines.
 */
int cross_entropy_forward(const float *restrict logits, const int32_t *restrict targets,
                          float *restrict probs, float *restrict loss, int64_t n, int64_t c)
{
    (void)logits, (void)targets, (void)probs, (void)loss, (void)n, (void)c;
    return exercise_todo("01.6", "cross_entropy_forward", HERE);
}

/* ex01.7 Cross-entropy backward ------------------------------------------------
 * TODO(ex01.7): dlogits(i, j) = (probs(i, j) - (j == targets[i] ? 1 : 0)) / n,
 * where (i, j) is at [i + j * n].
 * Hint: the 1/n comes from the mean in the forward pass. About 6 lines.
 */
int cross_entropy_backward(const float *restrict probs, const int32_t *restrict targets,
                           float *restrict dlogits, int64_t n, int64_t c)
{
    (void)probs, (void)targets, (void)dlogits, (void)n, (void)c;
    return exercise_todo("01.7", "cross_entropy_backward", HERE);
}

/* ex01.8 SGD step ----------------------------------------------------------------
 * TODO(ex01.8): param[i] -= lr * grad[i] for (i = 0; i < n; i++). About 2 lines.
 */
int sgd_step(float *restrict param, const float *restrict grad, int64_t n, float lr)
{
    (void)param, (void)grad, (void)n, (void)lr;
    return exercise_todo("01.8", "sgd_step", HERE);
}
