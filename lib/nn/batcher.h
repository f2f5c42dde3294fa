/**
 * @file batcher.h
 * @brief A callable that runs a model over many inputs in batches (the source's TextVectorizer).
 *
 * Made once with the model, the device and the batch size, then called like a
 * function on any number of inputs: it cuts them into chunks of the batch
 * size, moves each chunk to the device once, runs the model on it without
 * keeping anything for backward (inference mode), brings the outputs back and
 * returns them all, in order, as one tensor. The caller no longer passes the
 * model and the device on every call, chooses a batch size, or remembers
 * `torch.no_grad()`: the object does, once.
 */
#ifndef WB_BATCHER_H
#define WB_BATCHER_H

#include <stdint.h>

#include "lib/core/err.h"
#include "lib/core/callable.h"
#include "lib/nn/module.h"

/** The state of a batching callable. */
typedef struct BatcherState {
    Module *model;        /**< the model (not owned), already on @ref device */
    Device device;        /**< where the model runs */
    int64_t batch_size;   /**< rows per chunk */
    int64_t in_features;  /**< columns of an input */
    int64_t out_features; /**< columns of an output */
} BatcherState;

/**
 * @brief Make the callable: `Batcher(model, device, batch_size)`.
 *
 * Moves @p model to @p device and puts it in evaluation mode (`model.eval().to(device)`);
 * the model is not owned and must outlive the callable. @p in_features and
 * @p out_features are the model's input and output widths. A call takes one
 * VALUE_PTR argument, an input tensor (n, in_features) on the CPU, and
 * returns a VALUE_PTR to a new (n, out_features) CPU tensor that the caller
 * frees; n may be 0.
 */
WB_MUST_CHECK int batcher_new(Module *model, Device device, int64_t batch_size, int64_t in_features,
                int64_t out_features, Callable *out);

/* ---- Exercise of Lesson 04 (lessons/04_callable_objects/exercises.c) ---- */

/**
 * @brief Exercise 04.4: the batching callable's work.
 *
 * @p x: (n, in_features) on the CPU; @p out: (n, out_features) on the CPU,
 * allocated by the caller. In chunks of b->batch_size rows (the last one
 * shorter): copy the chunk's rows out of @p x (tensor_copy_rows), move them
 * to b->device once (tensor_to), run the model (module_call) with gradients
 * disabled (module_set_grad_enabled(false), restored afterwards, also on an
 * error), bring the output back (tensor_to the CPU) and put its rows into
 * @p out (tensor_put_rows). n == 0 does nothing. Every temporary tensor is
 * freed, also on an error. Returns 0.
 */
WB_MUST_CHECK int batcher_forward(BatcherState *b, const Tensor *x, Tensor *out);

#endif /* WB_BATCHER_H */
