/**
 * @file trainer.h
 * @brief The trainer object: a training run you make once and call.
 *
 * The source material turns a 300-line `train()` function into a
 * `GPUTrainer` class. Here it is a ::Trainer: made once from a model, the
 * training and validation loaders, a loss, an optimizer, an optional LR
 * scheduler, a device and options (epochs, gradient clipping, mixed
 * precision), and then *called*: trainer_call(t, 3) trains to epoch 3, and
 * a later trainer_call(t, 0) goes on to the configured total, from where it
 * stands. Every epoch trains over all batches, validates, records the
 * history, records the best epoch when the validation loss improves (by more
 * than min_delta, as early stopping counts an improvement), steps
 * the scheduler, and calls the callbacks (Lesson 04's callables) with the
 * trainer, which may set the stop flag (early stopping) or save the best
 * model (best_model_saver_new()).
 *
 * One training step is: forward under autocast, loss, backward with the
 * loss scaled (GradScaler), unscale, clip by global norm, optimizer step
 * (skipped when a gradient is inf or NaN), scaler update. The loss of the
 * epoch is checked once per epoch: a NaN in f32 stops the trainer with an
 * error rather than training on garbage.
 *
 * The trainer borrows everything it is given; the caller frees them after
 * trainer_free().
 */
#ifndef WB_TRAINER_H
#define WB_TRAINER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/nn/amp.h"
#include "lib/core/callable.h"
#include "lib/train/loader.h"
#include "lib/nn/loss.h"
#include "lib/nn/module.h"
#include "lib/nn/optim.h"
#include "lib/core/rng.h"
#include "lib/nn/sched.h"

/** Most callbacks a trainer takes. */
#define TRAINER_MAX_CALLBACKS 8

/** What the trainer does besides the step itself. */
typedef struct TrainerOptions {
    long epochs;          /**< the configured total */
    float clip_norm;      /**< clip gradients to this global norm; 0: no clipping */
    DType autocast;       /**< DTYPE_F16 or DTYPE_BF16 for mixed precision, DTYPE_F32 off */
    bool grad_scaler;     /**< use a GradScaler (needed for f16, not for bf16) */
    bool progress;        /**< a progress line on a terminal */
    float loss_weight;    /**< minimise loss_weight x the loss (1: as it is; a weighted term of
                               a bigger loss has small gradients); the history keeps the loss */
    float min_delta;      /**< a validation loss must beat the best by more than this to be the
                               new best (early stopping's min_delta, so both name one best;
                               0: any improvement) */
} TrainerOptions;

/** One row of the history per epoch, like Keras's History or a Lightning log. */
typedef struct History {
    long n;            /**< epochs recorded */
    long cap;          /**< room for this many */
    float *train_loss; /**< mean training loss of the epoch */
    float *val_loss;   /**< validation loss after the epoch */
    float *val_acc;    /**< validation accuracy after the epoch, 0..1 */
    float *lr;         /**< learning rate used in the epoch */
    float *loss_scale; /**< the GradScaler's scale at the end of the epoch (1: none) */
    float *seconds;    /**< wall time of the epoch (training and validation) */
    float *skipped;    /**< steps skipped for inf or NaN gradients in the epoch */
} History;

/** What one epoch measured, passed from trainer_train_epoch() to trainer_end_epoch(). */
typedef struct EpochStats {
    float train_loss; /**< mean training loss over the steps taken */
    float val_loss;   /**< validation loss */
    float val_acc;    /**< validation accuracy, 0..1 */
    float lr;         /**< the learning rate of the epoch */
    long skipped;     /**< steps skipped for inf or NaN gradients */
} EpochStats;

/** A training run. Fields are for reading; change them through the functions. */
typedef struct Trainer {
    Module *model;      /**< the model it trains (borrowed) */
    Loader *train;      /**< the training batches */
    Loader *val;        /**< the validation batches */
    Loss *loss;         /**< the loss */
    Optimizer *opt;     /**< the optimizer */
    Scheduler *sched;   /**< the LR scheduler; may be NULL */
    Device device;      /**< where it trains */
    TrainerOptions opts; /**< its options */
    GradScaler scaler;  /**< the loss scaler (disabled without mixed precision) */
    long epoch;         /**< epochs done; the next one is epoch + 1 */
    float best_val_loss; /**< the best validation loss so far (INFINITY before any): the last
                              one that beat the best before it by more than opts.min_delta */
    long best_epoch;    /**< when it was reached (0: never) */
    bool stop;          /**< set by a callback (or an error) to end training */
    char stop_reason[160]; /**< why, for the report */
    History hist;       /**< one row per epoch done */
    Callable callbacks[TRAINER_MAX_CALLBACKS]; /**< called after every epoch, in order */
    int n_callbacks;    /**< how many */
    double epoch_start; /**< timer_now() when the current epoch began */
    const char *config_json; /**< the run's config, stored in checkpoints (may be NULL) */
    Tensor *loss_sum;   /**< on a GPU: the epoch's loss summed on the device, read once */
} Trainer;

/**
 * @brief Make a trainer. The model, loaders, loss, optimizer and scheduler must already be
 *        on (or for) @p device; nothing is copied or owned. The training loader must give
 *        at least one batch per epoch.
 */
WB_MUST_CHECK int trainer_new(Module *model, Loader *train, Loader *val, Loss *loss, Optimizer *opt,
                Scheduler *sched, Device device, const TrainerOptions *options, Trainer **out);

/** @brief Release the trainer and its history (not what it borrowed); NULL is allowed. */
void trainer_free(Trainer *t);

/**
 * @brief Add a callback: a callable called after every epoch with one VALUE_PTR argument,
 *        the trainer. An error from it stops the training with that error.
 */
WB_MUST_CHECK int trainer_add_callback(Trainer *t, Callable cb);

/**
 * @brief Train up to epoch @p upto (0: the configured total), from where the trainer stands.
 *
 * `trainer_call(t, 3)` then `trainer_call(t, 0)` trains epochs 1-3 and then
 * 4 to the total, exactly as one `trainer_call(t, 0)` would. Stops early
 * when the stop flag is set.
 */
WB_MUST_CHECK int trainer_call(Trainer *t, long upto);

/** @brief Train one epoch (number @p epoch): every batch, one step each; fills the training half of @p s. */
WB_MUST_CHECK int trainer_train_epoch(Trainer *t, long epoch, EpochStats *s);

/** @brief Loss and accuracy on the validation loader, in evaluation mode; fills @p s. */
WB_MUST_CHECK int trainer_validate(Trainer *t, EpochStats *s);

/**
 * @brief After an epoch: record it in the history, record the best epoch on improvement,
 *        step the scheduler, call the callbacks.
 */
WB_MUST_CHECK int trainer_end_epoch(Trainer *t, long epoch, const EpochStats *s);

/**
 * @brief Whether validation loss @p val_loss is a new best after @p best: lower by more
 *        than @p min_delta (in float, as the trainer and early stopping compare).
 */
bool trainer_improves(float val_loss, float best, float min_delta);


/* ---- callbacks ------------------------------------------------------------- */

/** Early stopping's state (PyTorch Lightning's EarlyStopping on the validation loss). */
typedef struct EarlyStopping {
    int patience;    /**< epochs without improvement before stopping */
    float min_delta; /**< an improvement smaller than this does not count */
    float best;      /**< the best validation loss seen (INFINITY at first) */
    int wait;        /**< epochs since it improved */
    long stopped_epoch; /**< the epoch it stopped at (0: not yet) */
} EarlyStopping;

/** @brief A callable that stops training after @p patience epochs without improvement. */
WB_MUST_CHECK int early_stopping_new(int patience, float min_delta, Callable *out);

/**
 * @brief A callable that saves the trainer's history to the CSV file @p path after each
 *        epoch (a header, then a row per epoch), so a crashed run still leaves its metrics.
 *
 * Each call saves the whole file with fileio_save() (lib/core/fileio.h): never
 * appended to in place, it always holds the history the trainer has, and a path
 * that is a link, a FIFO or a device is refused.
 */
WB_MUST_CHECK int metrics_logger_new(const char *path, Callable *out);


/* ---- Exercises of Lesson 05 (lessons/05_trainer/exercises.c) ------------- */

/**
 * @brief Exercise 05.3: early stopping's `__call__`: args[0] is a VALUE_PTR to the trainer.
 *
 * @p state is an ::EarlyStopping. With v the last validation loss in the
 * trainer's history: if v < best - min_delta, best = v and wait = 0;
 * otherwise wait += 1, and when wait reaches patience, set the trainer's
 * stop flag, write a reason ("no improvement in 3 epochs (best 0.1234 at
 * epoch 5)": its own best, and the epoch it was reached, wait epochs ago)
 * and stopped_epoch. Returns None. A trainer with an empty history is an
 * ::ERR_ARG.
 */
WB_MUST_CHECK int early_stopping_call(void *state, const Value *args, int nargs, Value *out);

/**
 * @brief Exercise 05.4: the epoch loop of trainer_call(), with resume and stop.
 *
 * The target is @p upto, or the configured total when @p upto is 0; a
 * target beyond the total is an ::ERR_ARG, and one at or before t->epoch
 * does nothing. For each epoch e from t->epoch + 1 to the target, while the
 * stop flag is not set: trainer_train_epoch(t, e, &s), trainer_validate(t,
 * &s), trainer_end_epoch(t, e, &s), then t->epoch = e. An error stops the
 * loop and is returned (t->epoch stays at the last finished epoch).
 */
WB_MUST_CHECK int trainer_run_epochs(Trainer *t, long upto);

#endif /* WB_TRAINER_H */
