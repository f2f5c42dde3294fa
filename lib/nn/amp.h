/**
 * @file amp.h
 * @brief Mixed precision: autocast to f16 or bf16, and PyTorch's GradScaler.
 *
 * Under autocast (amp_set_autocast()), the matrix products of Linear run in
 * half precision with f32 accumulation, as `torch.autocast` does: their
 * inputs are rounded to f16 or bf16, and so are their outputs and the
 * gradients that flow back through them. The weights stay f32 ("master
 * weights") and so does the optimizer. On the CPU the rounding is emulated
 * exactly (lib/core/half.h); on a GPU the products go to cuBLAS in half precision
 * (tensor cores).
 *
 * f16 keeps 11 significant bits but only reaches down to 6e-8: small
 * gradients round to zero ("underflow") and the weights they belong to stop
 * learning. A ::GradScaler multiplies the loss by a large factor before the
 * backward pass, so the gradients are large enough to survive f16, divides
 * them by the same factor before the optimizer uses them, and skips a step
 * whose gradients overflowed to inf or NaN, making the factor smaller. Its
 * defaults and rules are PyTorch's `torch.amp.GradScaler`: initial scale
 * 2^16, growth x2 after 2000 steps without inf or NaN, backoff x0.5 and a
 * skipped step after one. bf16 has f32's range, so it needs no scaler.
 */
#ifndef WB_AMP_H
#define WB_AMP_H

#include <stdbool.h>

#include "lib/core/err.h"
#include "lib/nn/optim.h"
#include "lib/device/tensor.h"

/**
 * @brief Turn autocast on with DTYPE_F16 or DTYPE_BF16, or off with DTYPE_F32.
 *
 * Like `torch.autocast(dtype=...)`, it is a mode of the whole program that
 * the layers read; the trainer sets it around its forward and backward.
 */
WB_MUST_CHECK int amp_set_autocast(DType dtype);

/** @brief The autocast dtype now (DTYPE_F32 when off). */
DType amp_autocast(void);

/**
 * What rounding gradients to half precision did, counted by Linear's backward
 * on the CPU: how many gradient values were rounded, and how many of those
 * became zero although they were not (underflow).
 */
typedef struct AmpStats {
    int64_t rounded;     /**< gradient values rounded to f16 or bf16 */
    int64_t underflowed; /**< of those, non-zero values that became zero */
} AmpStats;

/** @brief The counts since the last amp_stats_reset(). */
AmpStats amp_stats(void);

/** @brief Zero the counts. */
void amp_stats_reset(void);

/** @brief Add to the counts (the layers call it). */
void amp_stats_add(int64_t rounded, int64_t underflowed);

/** PyTorch's GradScaler: the state of dynamic loss scaling. */
typedef struct GradScaler {
    bool enabled;          /**< false: every call does nothing, the scale stays 1 */
    float scale;           /**< the factor the loss is multiplied by (65536) */
    float growth_factor;   /**< scale *= this after growth_interval clean steps (2) */
    float backoff_factor;  /**< scale *= this after a step with inf or NaN (0.5) */
    int growth_interval;   /**< clean steps before growing (2000) */
    int growth_tracker;    /**< clean steps since the scale last changed */
    bool found_inf;        /**< this step's gradients held an inf or a NaN */
    bool unscaled;         /**< this step's gradients were already divided by the scale */
    long skipped;          /**< steps skipped so far */
} GradScaler;

/** @brief PyTorch's defaults: scale 65536, growth 2 every 2000 steps, backoff 0.5. */
void grad_scaler_init(GradScaler *s, bool enabled);

/** @brief The factor to multiply the loss (or its gradient) by: the scale, or 1 when disabled. */
float grad_scaler_factor(const GradScaler *s);

/**
 * @brief `scaler.unscale_(optimizer)`: divide every gradient by the scale and note
 *        whether any is inf or NaN.
 *
 * Once per step (a second call is an ::ERR_ARG, as in PyTorch); call it
 * before clipping so the norm is the true one. On a GPU the check is one
 * read back of a flag (a sync).
 */
WB_MUST_CHECK int grad_scaler_unscale(GradScaler *s, Optimizer *opt);

/**
 * @brief `scaler.step(optimizer)`: unscale if not done yet, then step, unless the
 *        gradients held an inf or a NaN, in which case the step is skipped.
 *
 * @p stepped (may be NULL) tells which happened.
 */
WB_MUST_CHECK int grad_scaler_step(GradScaler *s, Optimizer *opt, bool *stepped);

/* ---- Exercise of Lesson 05 (lessons/05_trainer/exercises.c) ------------- */

/**
 * @brief Exercise 05.1: `scaler.update()`, PyTorch's rule for the next scale.
 *
 * If found_inf: scale *= backoff_factor and growth_tracker = 0. Otherwise
 * growth_tracker += 1, and when it reaches growth_interval the scale grows
 * by growth_factor and growth_tracker goes back to 0; if the grown scale
 * would not be finite, the scale stays as it is (and growth_tracker still
 * goes back to 0). Then found_inf and unscaled are cleared for the next
 * step. A disabled scaler is left as it is. Returns 0 (::ERR_OK).
 */
WB_MUST_CHECK int grad_scaler_update(GradScaler *s);

#endif /* WB_AMP_H */
