/**
 * @file train.h
 * @brief One training step and one evaluation, the loop body of every lesson.
 *
 * train_step() is the five lines of a PyTorch training loop:
 * `outputs = model(x); loss = criterion(outputs, y); optimizer.zero_grad();
 * loss.backward(); optimizer.step()`. Lessons write the loop out where it is
 * the point of the lesson; tests and benchmarks call these.
 */
#ifndef WB_TRAIN_H
#define WB_TRAIN_H

#include "loss.h"
#include "module.h"
#include "optim.h"

/**
 * @brief One full step: forward, loss, zero_grad, backward, optimizer step.
 *
 * @p x: (n, d) inputs, @p y: (n) labels. The loss before the update goes to
 * @p *loss_value.
 */
int train_step(Module *model, Loss *loss, Optimizer *opt, const Tensor *x, const Tensor *y,
               float *loss_value);

/**
 * @brief Loss and accuracy of @p model on (@p x, @p y), in evaluation mode.
 *
 * Either output pointer may be NULL. The model is left in evaluation mode;
 * call module_train() to switch back.
 */
int train_evaluate(Module *model, Loss *loss, const Tensor *x, const Tensor *y, float *loss_value,
                   float *accuracy);

#endif /* WB_TRAIN_H */
