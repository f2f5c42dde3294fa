/**
 * @file sched.h
 * @brief Learning-rate schedulers: `StepLR` and `CosineAnnealingLR` of `torch.optim.lr_scheduler`.
 *
 * A ::Scheduler changes its optimizer's learning rate once per epoch: call
 * sched_step() after the epoch's optimizer steps, as in PyTorch
 * (`optimizer.step()` in the batches, then `scheduler.step()`). The values
 * are PyTorch's to the bit: like PyTorch, the scheduler computes in double
 * from the previous rate (the recursive, "chainable" form of get_lr(), not
 * the closed form), and the optimizer gets that double rounded to its float.
 * If something else sets the optimizer's rate between two sched_step()
 * calls (optim_set_lr()), the next step goes on from that rate, as PyTorch
 * goes on from whatever `group['lr']` holds.
 *
 * **Saving and loading** (PyTorch's `scheduler.state_dict()`): save
 * sched_name() and the ::SchedState of sched_state(), which holds the
 * constructor's arguments too; to load, make a scheduler of the same kind
 * over the restored optimizer and call sched_restore(), which also sets the
 * optimizer's rate. As PyTorch's `load_state_dict()`, the restore takes the
 * saved arguments over the new scheduler's: a cosine saved with T_max 12 and
 * restored into one made with T_max 15 goes on with 12, so a run resumed
 * past its schedule's end climbs back along the saved cosine.
 */
#ifndef WB_SCHED_H
#define WB_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/nn/optim.h"

/** The schedule a ::Scheduler follows. */
typedef enum SchedKind {
    SCHED_STEP,  /**< `StepLR`: multiply by gamma every step_size epochs */
    SCHED_COSINE /**< `CosineAnnealingLR`: a cosine down to eta_min in t_max epochs, and back */
} SchedKind;

/**
 * What a scheduler must keep to resume exactly: PyTorch's state_dict, which holds
 * the constructor's arguments beside the count and the rates. The arguments of the
 * other kind are 0.
 */
typedef struct SchedState {
    int64_t last_epoch; /**< sched_step() calls so far: PyTorch's last_epoch (0 once made) */
    double base_lr;     /**< the rate when the scheduler was made: PyTorch's base_lrs[0] */
    double lr;          /**< the current rate in double: PyTorch's group['lr'] (get_last_lr()) */
    int step_size;      /**< StepLR: epochs between decays */
    double gamma;       /**< StepLR: the factor of each decay */
    int t_max;          /**< CosineAnnealingLR: epochs from the base rate down to eta_min */
    double eta_min;     /**< CosineAnnealingLR: the lowest rate */
} SchedState;

/** A learning-rate scheduler bound to one optimizer. Fields are for reading. */
typedef struct Scheduler {
    SchedKind kind;   /**< which schedule */
    Optimizer *opt;   /**< the optimizer whose rate it sets (not owned) */
    SchedState state; /**< where it stands, and its arguments */
} Scheduler;

/**
 * @brief `StepLR(opt, step_size, gamma)`: multiply the rate by @p gamma every @p step_size epochs.
 *
 * After epoch e (the e-th sched_step()) the rate is base_lr * gamma^(e / step_size)
 * (integer division), computed one multiplication at a time as PyTorch does.
 * @p step_size >= 1 and @p gamma > 0 and finite. The base rate is the
 * optimizer's rate now. Returns NULL with the error set on failure.
 */
Scheduler *sched_step_new(Optimizer *opt, int step_size, float gamma);

/**
 * @brief `CosineAnnealingLR(opt, T_max=t_max, eta_min)`: the rate follows a cosine.
 *
 * eta_min + (base_lr - eta_min) (1 + cos(pi e / t_max)) / 2 after epoch e, down
 * to @p eta_min at e = t_max and back up to base_lr at 2 t_max, and so on
 * (PyTorch computes it recursively from the previous rate, and so does this,
 * so the values are PyTorch's and not quite the formula's). @p t_max >= 1 and
 * @p eta_min >= 0 and finite. Returns NULL with the error set on failure.
 */
Scheduler *sched_cosine_new(Optimizer *opt, int t_max, float eta_min);

/** @brief Release a scheduler (not its optimizer); NULL is allowed. */
void sched_free(Scheduler *s);

/** @brief PyTorch's class name: "StepLR" or "CosineAnnealingLR". */
const char *sched_name(const Scheduler *s);

/**
 * @brief `scheduler.step()`: end an epoch and set the optimizer's rate for the next one.
 *
 * Call it once per epoch, after the epoch's optimizer steps.
 */
WB_MUST_CHECK int sched_step(Scheduler *s);

/** @brief The rate the scheduler set last (`get_last_lr()[0]`), as the optimizer's float. */
float sched_lr(const Scheduler *s);

/** @brief Copy the scheduler's state to @p out, for a checkpoint. */
void sched_state(const Scheduler *s, SchedState *out);

/**
 * @brief Restore a state from sched_state() and set the optimizer's rate to it.
 *
 * The state's arguments replace the scheduler's own, as in PyTorch's
 * `load_state_dict()`. ::ERR_ARG (and nothing changed) for a negative epoch, a
 * rate that is not finite or is negative, or arguments its constructor would
 * refuse. The next sched_step() continues exactly where the saved scheduler
 * would have.
 */
WB_MUST_CHECK int sched_restore(Scheduler *s, const SchedState *state);

/**
 * @brief Whether epoch @p epoch lies past the end of the schedule: after T_max for a
 *        cosine, where PyTorch's CosineAnnealingLR climbs back up; never for StepLR.
 */
bool sched_past_end(const Scheduler *s, int64_t epoch);

#endif /* WB_SCHED_H */
