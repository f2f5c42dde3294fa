/**
 * @file checkpoint.h
 * @brief Checkpoints that hold the whole training state and resume exactly.
 *
 * A checkpoint is a safetensors file (safetensors.h), so the weights open in
 * Python with `safetensors.torch.load_file` or a few lines of `struct` and
 * `json`. It holds everything a run needs to go on as if it had never
 * stopped: the model's parameters ("model.fc1.weight", in PyTorch's
 * row-major order and shape), the optimizer's state ("optim.fc1.weight.
 * momentum_buffer", "exp_avg", ...), the history ("history.val_loss", ...),
 * and in the metadata the epoch, the best validation loss, the optimizer's
 * step count and learning rate, the scheduler's state (with its arguments,
 * T_max or step_size, as PyTorch's state_dict has them), the GradScaler's
 * scale, the loader's seed (which fixes every epoch's batch order) and the
 * run's config, plus a format name, a version and a checksum. Floats are
 * written in hexadecimal ("%a") so they read back bit for bit.
 *
 * Saving is atomic (a crash or a kill leaves the previous checkpoint
 * intact, and the next save removes the temporary file it left). Loading
 * reads and checks the whole file first (structure, checksum, format and
 * version, every tensor's presence, dtype and shape against this trainer's
 * model and optimizer, every value: weights and buffers finite, learning
 * rates, loss scale and losses in range, every metadata field parsed
 * strictly, and what must agree agreeing: the scheduler's count with the
 * epoch and its rate with the optimizer's, the best epoch and loss with the
 * history, the step count with the epochs trained) into scratch copies,
 * and only then touches the trainer, in one step that cannot fail half-way:
 * a bad file changes nothing, and its one message names the file and the
 * field. Saving checks what it writes with
 * the same rules (a diverged run's NaN weights are not saved), so what the
 * workbook writes it reads back. Tensors are copied to wherever the
 * trainer's model is, so a checkpoint saved on a GPU loads on the CPU and
 * the other way round (PyTorch's map_location).
 *
 * The checksum guards against damage, not against intent: a file without
 * `wb.crc32` (or one whose checksum was recomputed) is checked only as far
 * as values can be checked, and a flipped bit that leaves a weight finite
 * goes unseen there.
 */
#ifndef WB_CHECKPOINT_H
#define WB_CHECKPOINT_H

#include "lib/core/err.h"
#include "lib/nn/module.h"
#include "lib/io/safetensors.h"
#include "lib/train/trainer.h"

/** The metadata "wb.format" of a full checkpoint. */
#define CHECKPOINT_FORMAT "workbook-checkpoint"
/** The metadata "wb.format" of a weights-only file (the best model). */
#define CHECKPOINT_WEIGHTS_FORMAT "workbook-weights"
/** The version this build writes and reads. */
#define CHECKPOINT_VERSION 1
/** The largest learning rate a checkpoint holds ("optim.lr", "sched.base_lr", "sched.lr"):
 *  a config's "lr" and "eta_min" go up to it, and the schedulers never raise a rate above
 *  their base or eta_min (StepLR's gamma is at most 1). */
#define CHECKPOINT_MAX_LR 100.0

/**
 * @brief Save the trainer's whole state after epoch @p epoch to @p path, atomically.
 */
WB_MUST_CHECK int checkpoint_save(const Trainer *t, long epoch, const char *path);

/**
 * @brief Load a checkpoint into @p t: check everything, then restore everything.
 *
 * The trainer must be made like the one that saved it (same model, same
 * kind of optimizer and scheduler, same loader seed, epochs at least the
 * checkpoint's). On any problem returns one message naming the file, the
 * tensor or field, what was expected and what came, and @p t is unchanged:
 * its weights, optimizer (buffers, step, rate), scheduler, loss scaler,
 * epoch, best loss and history, bit for bit. checkpoint_stage() then
 * checkpoint_commit().
 */
WB_MUST_CHECK int checkpoint_load(Trainer *t, const char *path);

/** A checkpoint read and checked against a trainer, not yet applied to it. */
typedef struct CheckpointStaged CheckpointStaged;

/**
 * @brief The first half of checkpoint_load(): read and check the file at @p path against
 *        @p t and prepare everything it will change, touching nothing of @p t.
 *
 * The tensors are made on the trainer's devices in lib's layout; what can
 * fail (memory, a copy to a GPU) fails here. Free @p *out with
 * checkpoint_staged_free() or hand it to checkpoint_commit().
 */
WB_MUST_CHECK int checkpoint_stage(Trainer *t, const char *path, CheckpointStaged **out);

/**
 * @brief The second half: put the staged state into @p t (the trainer it was staged for),
 *        and free @p s. It cannot fail: memory is exchanged, values assigned.
 */
void checkpoint_commit(Trainer *t, CheckpointStaged *s);

/**
 * @brief @p t as it will be after checkpoint_commit(), for looking only: @p out is a copy of
 *        @p t with the staged epoch, best loss and history (which @p s owns).
 */
void checkpoint_preview(const CheckpointStaged *s, const Trainer *t, Trainer *out);

/** @brief Release a staged checkpoint that is not committed; NULL is allowed. */
void checkpoint_staged_free(CheckpointStaged *s);

/**
 * @brief The whole state a checkpoint holds, as bytes, for comparing trainers: the
 *        parameters, the optimizer's buffers, step and rate, the scheduler's state, the loss
 *        scaler, the epoch, the best loss and epoch, the stop flag and the history (all of
 *        its rows, recorded or not).
 *
 * Two trainers in the same state give the same bytes; one trainer gives the
 * same bytes before and after a refused load. @p *bytes is malloc'd (free()
 * it).
 */
WB_MUST_CHECK int checkpoint_state_bytes(const Trainer *t, unsigned char **bytes, size_t *len);

/** @brief Save only the model's parameters (the best model), atomically. */
WB_MUST_CHECK int checkpoint_save_weights(Module *model, const char *path);

/**
 * @brief Load a weights file from checkpoint_save_weights() (or the model of a checkpoint);
 *        on any problem the model is unchanged.
 *
 * A plain safetensors file, as Python's `save_file(model.state_dict(), p)`
 * writes, is refused with a message that says so, and a prefix mismatch
 * ("fc1.weight" where this workbook writes "model.fc1.weight") is named as one.
 */
WB_MUST_CHECK int checkpoint_load_weights(Module *model, const char *path);

/**
 * @brief A callable that saves a full checkpoint (checkpoint.h) to @p path every
 *        @p every epochs, atomically.
 */
WB_MUST_CHECK int checkpoint_saver_new(const char *path, long every, Callable *out);

/**
 * @brief A callable that saves the model's weights (checkpoint_save_weights()) to
 *        @p path after each epoch that is the best so far (lowest validation loss):
 *        the best model, which checkpoint_load_weights() loads back.
 */
WB_MUST_CHECK int best_model_saver_new(const char *path, Callable *out);

/* ---- Exercise of Lesson 05 (lessons/05_trainer/exercises.c) -------------- */

/**
 * @brief Exercise 05.5: check that file @p st (read from @p path) fits @p model, touching
 *        nothing.
 *
 * - The metadata "wb.format" must be CHECKPOINT_FORMAT or
 *   CHECKPOINT_WEIGHTS_FORMAT: `PATH: not a checkpoint of this workbook
 *   (wb.format is "X")` (or `(no wb.format)`).
 * - "wb.version" must be CHECKPOINT_VERSION written in decimal: `PATH:
 *   checkpoint format version 2; this build reads version 1`.
 * - For every parameter of @p model (module_parameters(), named like
 *   "fc1.weight"), the file must hold "model.NAME" with dtype F32 and the
 *   parameter's shape: `PATH: missing tensor "model.fc2.bias": the checkpoint
 *   is of another model`, `PATH: tensor "model.fc1.weight" has dtype F16,
 *   expected F32`, `PATH: tensor "model.fc1.weight" has shape [10, 4]; this
 *   model's is [64, 4]: the checkpoint is of another model`.
 * - No "model." tensor may name a parameter the model lacks: `PATH: tensor
 *   "model.fc3.weight" is not a parameter of this model`.
 *
 * Returns 0, or ::ERR_FORMAT with the first problem.
 */
WB_MUST_CHECK int checkpoint_validate(const SafeTensors *st, Module *model, const char *path);

#endif /* WB_CHECKPOINT_H */
