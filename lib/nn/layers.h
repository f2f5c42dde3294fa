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
#include "lib/device/cpu_kernels.h" /* the exercises of these ops */

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


#endif /* WB_LAYERS_H */
