/**
 * @file loss.h
 * @brief Loss functions: mean cross-entropy over class logits.
 *
 * `loss_cross_entropy_new()` is `nn.CrossEntropyLoss()`: softmax and negative
 * log-likelihood in one step, averaged over the batch. The arithmetic is
 * Lesson 01's exercises 01.6 and 01.7, called after lib has checked shapes and
 * that every label is a valid class.
 */
#ifndef WB_LOSS_H
#define WB_LOSS_H

#include <stdint.h>

#include "lib/core/err.h"
#include "lib/device/tensor.h"
#include "lib/device/cpu_kernels.h" /* the exercises of these ops */

/** A loss function with the cache its backward pass needs. */
typedef struct Loss {
    Tensor *probs; /**< softmax of the last logits, (n, c), on the logits' device */
    Tensor *grad;  /**< dLoss/dlogits of the last backward, (n, c) */
    Tensor *on_device; /**< the loss as one float on the logits' device */
    const Tensor *targets; /**< labels of the last forward (borrowed), (n) */
    float value;   /**< the last loss value */
    int ready;     /**< 1 after a forward, so backward has something to use */
} Loss;

/** @brief Make a mean cross-entropy loss; NULL with the error set on failure. */
Loss *loss_cross_entropy_new(void);

/** @brief Release a loss; NULL is allowed. */
void loss_free(Loss *loss);

/**
 * @brief The mean cross-entropy of @p logits (n, c) against @p targets (n, int32).
 *
 * Stores the result in @p *value and remembers what backward needs. A label
 * outside [0, c) is an ::ERR_ARG naming the row, as PyTorch's
 * "Target 5 is out of bounds" does.
 *
 * On a GPU the loss stays on the device, and @p value may be NULL: reading it
 * is `loss.item()`, a copy to the CPU that waits for the GPU (a sync).
 * Labels are not checked there (checking them would be a sync too); a label
 * out of range gives a NaN loss.
 */
WB_MUST_CHECK int loss_forward(Loss *loss, const Tensor *logits, const Tensor *targets, float *value);

/**
 * @brief The value of the last loss_forward(): PyTorch's `loss.item()`.
 *
 * On the CPU it is already there. On a GPU it is one float copied back to
 * the CPU, which first waits for everything queued before it: a sync, and
 * the cost Lesson 03 measures. ::ERR_ARG before any forward.
 */
WB_MUST_CHECK int loss_item(Loss *loss, float *value);

/** @brief dLoss/dlogits of the last forward; @p *dlogits belongs to @p loss. */
WB_MUST_CHECK int loss_backward(Loss *loss, const Tensor **dlogits);

/**
 * @brief loss_backward() of the loss times @p weight: the gradient of `weight * loss`.
 *
 * What `(loss * weight).backward()` starts from in PyTorch: a micro-batch's
 * share of a bigger batch (gradient accumulation, exercise 05.6) or a weighted
 * term of a bigger loss. A @p weight that is not finite is an ::ERR_ARG.
 */
WB_MUST_CHECK int loss_backward_scaled(Loss *loss, float weight, const Tensor **dlogits);

/**
 * @brief Fraction of rows of @p logits (n, c) whose largest entry is at the label.
 *
 * Ties go to the lowest index, as `argmax` does. Stores the fraction in
 * @p *accuracy (0 for an empty batch).
 */
WB_MUST_CHECK int loss_accuracy(const Tensor *logits, const Tensor *targets, float *accuracy);


#endif /* WB_LOSS_H */
