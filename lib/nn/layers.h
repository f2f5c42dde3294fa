/**
 * @file layers.h
 * @brief Layers: Linear and ReLU, each a module (see module.h).
 *
 * Each layer has a tensor-level constructor (linear_new(), relu_new()) and
 * raw-array kernels that do the arithmetic. The kernels are Lesson 01's
 * exercises: lib calls them from the layers' forward and backward, after it
 * has checked shapes, and the build links either the student's version
 * (`lessons/01_cpu_baseline/exercises.c`) or the reference answer.
 *
 * All arrays are column-major (tensor.h): element (i, k) of an (n, in) batch
 * is at `x[i + k * n]`, element (o, k) of an (out, in) weight at
 * `w[o + k * out]`. Loops whose innermost index is the sample i touch
 * consecutive memory and vectorize.
 */
#ifndef WB_LAYERS_H
#define WB_LAYERS_H

#include <stdint.h>

#include "lib/nn/module.h"
#include "lib/core/rng.h"

/**
 * @brief A fully connected layer, `nn.Linear(in_features, out_features)`.
 *
 * Parameters `weight` (out, in) and `bias` (out) start uniform in
 * ±1/sqrt(in), PyTorch's default (kaiming_uniform_ with a = sqrt(5) gives
 * exactly this bound), drawn from @p rng weight first, row by row. Returns
 * NULL and sets the error on failure.
 */
Module *linear_new(const char *name, int64_t in_features, int64_t out_features, Rng *rng);

/** @brief The rectified linear unit, `nn.ReLU()`: y = max(x, 0). */
Module *relu_new(const char *name);

/** Most hidden layers mlp_new() builds. */
#define MLP_MAX_HIDDEN 8

/**
 * @brief A multilayer perceptron: Linear, ReLU, ..., Linear, as a Sequential named @p name.
 *
 * Widths @p in, @p hidden[0..n_hidden), @p out; the layers are named fc1,
 * relu1, fc2, ... as in a PyTorch `nn.Sequential` written by hand, and their
 * weights are drawn from @p rng in that order. At most ::MLP_MAX_HIDDEN hidden
 * layers.
 */
Module *mlp_new(const char *name, int64_t in, const int64_t *hidden, int n_hidden, int64_t out,
                Rng *rng);

/* ---- Exercises of Lesson 01 (lessons/01_cpu_baseline/exercises.c) ------ */

/**
 * @brief Exercise 01.2: the forward pass of Linear, y = x W^T + b.
 *
 * x: (n, in), w: (out, in), b: (out), y: (n, out), column-major f32:
 * y(i, o) = b(o) + sum over k of x(i, k) * w(o, k), where x(i, k) is
 * `x[i + k * n]`, w(o, k) is `w[o + k * out]` and y(i, o) is `y[i + o * n]`.
 * Returns 0 (::ERR_OK).
 */
int linear_forward(const float *restrict x, const float *restrict w, const float *restrict b,
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
int linear_backward(const float *restrict x, const float *restrict w, const float *restrict dy,
                    float *restrict dx, float *restrict dw, float *restrict db, int64_t n,
                    int64_t in, int64_t out);

/**
 * @brief Exercise 01.4: the forward pass of ReLU, y[i] = max(x[i], 0), over @p n values.
 *
 * Returns 0 (::ERR_OK).
 */
int relu_forward(const float *restrict x, float *restrict y, int64_t n);

/**
 * @brief Exercise 01.5: the backward pass of ReLU, from its output.
 *
 * dx[i] = dy[i] where y[i] > 0, else 0 (PyTorch's choice at 0 too). Uses the
 * forward output @p y, which is all ReLU needs to remember. Returns 0
 * (::ERR_OK).
 */
int relu_backward(const float *restrict y, const float *restrict dy, float *restrict dx,
                  int64_t n);

#endif /* WB_LAYERS_H */
