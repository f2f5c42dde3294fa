/**
 * @file optim.h
 * @brief Optimizers: plain stochastic gradient descent, `optim.SGD(params, lr)`.
 *
 * An ::Optimizer holds references to a model's parameters (it does not own
 * them) and updates them from their gradients. The update itself is Lesson
 * 01's exercise 01.8.
 */
#ifndef WB_OPTIM_H
#define WB_OPTIM_H

#include <stdint.h>

#include "module.h"

/** An optimizer over the parameters of one model. */
typedef struct Optimizer {
    ParamRef *params; /**< the parameters it updates (not owned) */
    int n_params;     /**< how many */
    float lr;         /**< learning rate */
} Optimizer;

/**
 * @brief SGD over every parameter of @p model with learning rate @p lr.
 *
 * @p lr must be positive and finite. Returns NULL with the error set on
 * failure.
 */
Optimizer *optim_sgd_new(Module *model, float lr);

/** @brief Release an optimizer (not the parameters); NULL is allowed. */
void optim_free(Optimizer *opt);

/** @brief Set every gradient the optimizer updates to zero (`optimizer.zero_grad()`). */
void optim_zero_grad(Optimizer *opt);

/** @brief Update every parameter from its gradient (`optimizer.step()`). */
int optim_step(Optimizer *opt);

/* ---- Exercise of Lesson 01 (lessons/01_cpu_baseline/exercises.c) ------- */

/**
 * @brief Exercise 01.8: one SGD update, param[i] -= lr * grad[i], over @p n values.
 *
 * Returns 0 (::ERR_OK).
 */
int sgd_step(float *restrict param, const float *restrict grad, int64_t n, float lr);

#endif /* WB_OPTIM_H */
