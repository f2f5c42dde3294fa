/*
 * Lesson 05 exercises: the trainer.
 *
 * Each function is a hole in the workbook's library, declared with its
 * contract in lib/nn/amp.h (05.1), lib/device/cpu_kernels.h (05.2),
 * lib/train/trainer.h (05.3, 05.4), lib/train/checkpoint.h (05.5) and
 * lib/train/train.h (05.6). Replace a body (including its `return
 * exercise_todo(...)` line) and return 0; report an error with
 * `return err_set(...)`.
 *
 *   make grade LESSON=05          grade these exercises
 *   make hint EX=05.4             a longer hint for one exercise
 *   make lesson37 PART=5 IMPL=lessons    watch your code train
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/nn/amp.h"
#include "lib/train/checkpoint.h"
#include "lib/core/err.h"
#include "lib/nn/optim.h"
#include "lib/io/safetensors.h"
#include "lib/train/train.h"
#include "lib/train/trainer.h"

#define HERE "lessons/05_trainer/exercises.c"

/* ex05.1 GradScaler's update --------------------------------------------------------
 * TODO(ex05.1): after a step with inf/NaN gradients, back off and reset the
 * tracker; after a clean one, count it, and grow the scale every
 * growth_interval clean steps (never into inf). Clear found_inf and unscaled.
 * Hint: PyTorch's _amp_update_scale_. About 12 lines.
 */
int grad_scaler_update(GradScaler *s)
{
    (void)s;
    return exercise_todo("05.1", "grad_scaler_update", HERE);
}

/* ex05.2 Clipping by global norm ------------------------------------------------------
 * TODO(ex05.2): total = sqrt(sum of every square), the sum in float's range
 * (past it the norm is inf, as in PyTorch); *total_norm = total;
 * coef = max_norm / (total + 1e-6f); scale everything by coef when it is
 * below 1 or NaN.
 * Hint: isnan(coef) matters: a NaN norm must make the gradients NaN. About 10 lines.
 */
int clip_grad_norm_scale(float *const *grads, const int64_t *sizes, int n, float max_norm,
                         float *total_norm)
{
    (void)grads, (void)sizes, (void)n, (void)max_norm, (void)total_norm;
    return exercise_todo("05.2", "clip_grad_norm_scale", HERE);
}

/* ex05.3 Early stopping ------------------------------------------------------------------
 * TODO(ex05.3): compare the last validation loss of the trainer's history with
 * best - min_delta; reset or count the wait; at patience, set t->stop, a reason
 * and stopped_epoch. Return None.
 * Hint: Trainer *t = args[0].as.p; t->hist.val_loss[t->hist.n - 1]. About 20 lines.
 */
int early_stopping_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)state, (void)args, (void)nargs, (void)out;
    return exercise_todo("05.3", "early_stopping_call", HERE);
}

/* ex05.4 The epoch loop ----------------------------------------------------------------
 * TODO(ex05.4): the target epoch (upto, or the total for 0; beyond the total is
 * an error); from t->epoch + 1 while not stopped: train, validate, end the
 * epoch, then t->epoch = e.
 * Hint: an error leaves t->epoch at the last finished epoch. About 12 lines.
 */
int trainer_run_epochs(Trainer *t, long upto)
{
    (void)t, (void)upto;
    return exercise_todo("05.4", "trainer_run_epochs", HERE);
}

/* ex05.5 Checking a checkpoint before loading it -----------------------------------------
 * TODO(ex05.5): wb.format and wb.version, then every parameter of the model as
 * "model.NAME", F32, same shape; and no "model." tensor the model lacks. The
 * messages are in lib/train/checkpoint.h.
 * Hint: module_parameters, safetensors_find, safetensors_meta, safetensors_shape_str.
 * About 30 lines.
 */
int checkpoint_validate(const SafeTensors *st, Module *model, const char *path)
{
    (void)st, (void)model, (void)path;
    return exercise_todo("05.5", "checkpoint_validate", HERE);
}

/* ex05.6 Gradient accumulation ------------------------------------------------------------
 * TODO(ex05.6): one step from k micro-batches: zero the gradients once; for each
 * micro-batch forward (module_call), loss_forward, loss_backward_scaled with its share
 * n_i / N of the rows, module_backward; then one optim_step. *loss_value (unless NULL):
 * the shares times the micro-batches' losses, added up.
 * Hint: k < 1 or an empty micro-batch is an ERR_ARG, before anything changes. About 20 lines.
 */
int train_step_accumulated(Module *model, Loss *loss, Optimizer *opt, const Tensor *const *xs,
                           const Tensor *const *ys, int k, float *loss_value)
{
    (void)model, (void)loss, (void)opt, (void)xs, (void)ys, (void)k, (void)loss_value;
    return exercise_todo("05.6", "train_step_accumulated", HERE);
}
