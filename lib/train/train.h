/**
 * @file train.h
 * @brief One training step and one evaluation, the loop body of every lesson.
 *
 * train_step() is the five lines of a PyTorch training loop:
 * `outputs = model(x); loss = criterion(outputs, y); optimizer.zero_grad();
 * loss.backward(); optimizer.step()`, with `model(x)` the module call, so the
 * model's hooks run. It is the one training step of the workbook: Lesson 01's
 * loop, the demos, the tests and the trainer of Lesson 05 (which adds mixed
 * precision, a loss scale and clipping through ::StepOptions) all call it.
 */
#ifndef WB_TRAIN_H
#define WB_TRAIN_H

#include <stdbool.h>

#include "lib/core/err.h"
#include "lib/nn/amp.h"
#include "lib/nn/loss.h"
#include "lib/nn/module.h"
#include "lib/nn/optim.h"

/**
 * @brief One full step: forward (module_call), loss, zero_grad, backward, optimizer step.
 *
 * @p x: (n, d) inputs, @p y: (n) labels. The loss before the update goes to
 * @p *loss_value; with NULL it stays where it was computed, so on a GPU the
 * step makes no sync (loss_item() reads it later: `loss.item()`).
 */
WB_MUST_CHECK int train_step(Module *model, Loss *loss, Optimizer *opt, const Tensor *x, const Tensor *y,
               float *loss_value);

/** What a training step does beyond the plain five lines (train_step_with()). */
typedef struct StepOptions {
    DType autocast;     /**< ::DTYPE_F16 or ::DTYPE_BF16: the forward and backward under autocast */
    GradScaler *scaler; /**< the loss scale of mixed precision (NULL, or disabled: none) */
    float loss_weight;  /**< the loss is multiplied by this before backward (1: as it is) */
    float clip_norm;    /**< > 0: clip the gradients to this global 2-norm before the step */
} StepOptions;

/**
 * @brief train_step() with the options of @p o (NULL: none): autocast for the forward
 *        and backward, the loss times the weight and the scale, unscale, clipping (not
 *        when the scaler found an inf), the scaler's step and update.
 *
 * @p *stepped (unless NULL) says whether the optimizer stepped: a scaler skips
 * the step whose gradients hold an inf or a NaN.
 */
WB_MUST_CHECK int train_step_with(Module *model, Loss *loss, Optimizer *opt, const Tensor *x, const Tensor *y,
                    const StepOptions *o, float *loss_value, bool *stepped);

/**
 * @brief Loss and accuracy of @p model on (@p x, @p y), in evaluation mode.
 *
 * The model is called as `model(x)` (module_call()), so its hooks see the
 * evaluation batch as they see the training ones. Either output pointer may
 * be NULL. The model is left in evaluation mode; call module_train() to
 * switch back.
 */
WB_MUST_CHECK int train_evaluate(Module *model, Loss *loss, const Tensor *x, const Tensor *y, float *loss_value,
                   float *accuracy);

/* ---- Exercises of Lesson 03 (lessons/03_why_gpu_slower/exercises.c) ---- */

/**
 * @brief Exercise 03.1: train, reading the loss back only every @p log_every epochs.
 *
 * Runs @p epochs full-batch epochs on (@p x, @p y), each one train_step()
 * with NULL for the loss value, so that on a GPU the loss stays there and
 * the CPU runs ahead. After epoch e (counting from 1) with
 * e % @p log_every == 0, reads the loss with loss_item() (one sync: the
 * `loss.item()` of a logging line) into logged[k++]. @p log_every 0 means
 * never. Sets @p *n_logged to k. On a GPU that is exactly
 * epochs / log_every syncs, and the same losses as reading every epoch.
 * @p logged holds at least epochs / log_every floats (NULL is allowed when
 * log_every is 0). @p epochs or @p log_every negative is an ::ERR_ARG.
 */
WB_MUST_CHECK int train_logged(Module *model, Loss *loss, Optimizer *opt, const Tensor *x, const Tensor *y,
                 long epochs, long log_every, float *logged, long *n_logged);

/**
 * @brief Exercise 03.2: the model's outputs for @p x, @p chunk rows at a time.
 *
 * @p x: (n, d) and @p out: (n, c), both on the model's device. Makes one
 * (chunk, d) buffer on that device before the loop; for each chunk of
 * @p chunk rows (the last one shorter: tensor_resize the buffer down),
 * tensor_copy_rows() into it, module_call() (the model's call, so its hooks
 * run, as Lesson 04 teaches), tensor_put_rows() into
 * @p out. Nothing is copied to the CPU and nothing is freed inside the loop
 * (on a GPU, freeing memory waits for it), so on a GPU the only sync is the
 * buffer's release at the end. n == 0 does nothing; @p chunk < 1 is an
 * ::ERR_ARG. Put the model in evaluation mode first (module_train).
 */
WB_MUST_CHECK int predict_chunked(Module *model, const Tensor *x, int64_t chunk, Tensor *out);

/* ---- Exercises of Lesson 05 (lessons/05_trainer/exercises.c) ---- */

/**
 * @brief Exercise 05.6: one optimizer step from @p k micro-batches (gradient accumulation).
 *
 * What a batch too big for the device's memory becomes: @p xs[i] (n_i, d) and
 * @p ys[i] (n_i) are the micro-batches, N = n_0 + ... + n_(k-1) rows in all.
 * Zero the gradients once; for each micro-batch: module_call(), loss_forward(),
 * loss_backward_scaled() with the weight n_i / N, module_backward() (which adds
 * to the gradients); then one optim_step(). The gradients, the step and the
 * weights are then those of one step on the whole batch of N rows (up to the
 * rounding of the sums), since a mean over N rows is the n_i / N weighted sum
 * of the micro-batches' means. With @p loss_value not NULL, the whole batch's
 * mean loss goes there (the n_i / N weighted sum of the micro-batches' losses;
 * on a GPU reading each is a sync). @p k < 1, or a micro-batch without rows,
 * is an ::ERR_ARG and changes nothing.
 */
WB_MUST_CHECK int train_step_accumulated(Module *model, Loss *loss, Optimizer *opt,
                                         const Tensor *const *xs, const Tensor *const *ys, int k,
                                         float *loss_value);

#endif /* WB_TRAIN_H */
