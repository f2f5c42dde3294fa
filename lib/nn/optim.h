/**
 * @file optim.h
 * @brief Optimizers (`optim.SGD`, with momentum, `optim.Adam`) and gradient clipping.
 *
 * An ::Optimizer holds references to a model's parameters (it does not own
 * them) and updates them from their gradients. Plain SGD's update is Lesson
 * 01's exercise 01.8; SGD with momentum or weight decay and Adam follow
 * PyTorch's `torch.optim.SGD` (dampening 0) and `torch.optim.Adam` (not
 * AdamW, no amsgrad) operation by operation, in float, so that they agree
 * with PyTorch to float rounding. Parameters on a GPU are updated there, one
 * kernel launch per parameter tensor (kernels/optim.cu), with the same
 * formula in the same order, so CPU and GPU agree as well.
 *
 * **Optimizer state.** Momentum SGD keeps one buffer per parameter
 * ("momentum_buffer"), Adam two ("exp_avg", "exp_avg_sq"), plus a step
 * count. The buffers have the parameter's shape and live on its device; they
 * are allocated (zero) when the optimizer is made, but, as in PyTorch, they
 * only hold state once the first step has run (@ref Optimizer::step > 0):
 * the first SGD step copies the gradient into the momentum buffer instead of
 * decaying it. After module_to(), call optim_to() to move the state along.
 *
 * **Saving and loading the state** (PyTorch's `optimizer.state_dict()`):
 * - save optim_name(), the hyperparameters (the fields of ::Optimizer: lr,
 *   momentum, weight_decay, nesterov, or beta1, beta2, eps, weight_decay),
 *   @ref Optimizer::step and, when step > 0, every buffer that optim_state()
 *   lists (PyTorch's `state[i][name]`; before the first step PyTorch's
 *   state is empty, and so is what needs saving);
 * - to load, make an optimizer of the same kind and hyperparameters over the
 *   same model, on the device it will train on (module_to(), optim_to()),
 *   call optim_state() and write each saved buffer into the listed tensor in
 *   place (tensor_copy() or tensor_set_rows()), then optim_restore() with the
 *   saved step count; set the learning rate with optim_set_lr() (a
 *   scheduler's sched_restore() does that). Training then continues to the
 *   same bits as if it had never stopped.
 *
 * **Gradient clipping**: clip_grad_norm(), `torch.nn.utils.clip_grad_norm_`.
 */
#ifndef WB_OPTIM_H
#define WB_OPTIM_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/nn/module.h"
#include "lib/device/cpu_kernels.h" /* the exercises of these ops */

/** The update rule of an ::Optimizer. */
typedef enum OptimKind {
    OPTIM_SGD,          /**< plain SGD, p -= lr g (Lesson 01's exercise 01.8) */
    OPTIM_SGD_MOMENTUM, /**< `torch.optim.SGD` with momentum and/or weight decay */
    OPTIM_ADAM          /**< `torch.optim.Adam` */
} OptimKind;

/** An optimizer over one model's parameters. Read the fields; set lr with optim_set_lr(). */
typedef struct Optimizer {
    ParamRef *params;    /**< the parameters it updates (not owned) */
    int n_params;        /**< how many */
    float lr;            /**< learning rate (settable between steps: optim_set_lr()) */
    OptimKind kind;      /**< the update rule */
    float momentum;      /**< SGD: momentum factor (0: none) */
    bool nesterov;       /**< SGD: Nesterov momentum */
    double beta1;        /**< Adam: decay of the first moment (betas[0]), a Python float */
    double beta2;        /**< Adam: decay of the second moment (betas[1]), a Python float */
    float eps;           /**< Adam: added to the denominator */
    float weight_decay;  /**< L2 penalty: the gradient used is grad + weight_decay * param */
    int64_t step;        /**< steps taken; Adam's t. 0: no state yet (PyTorch's empty state) */
    int state_per_param; /**< buffers per parameter: 0, 1 (momentum) or 2 (Adam) */
    Tensor **state;      /**< n_params * state_per_param buffers, parameter by parameter */
} Optimizer;

/** One buffer of the optimizer's state, as optim_state() lists it. */
typedef struct OptimStateRef {
    int param;        /**< index of its parameter in Optimizer::params (PyTorch's state key) */
    const char *name; /**< "momentum_buffer", "exp_avg" or "exp_avg_sq" (PyTorch's names) */
    Tensor *tensor;   /**< the buffer: the parameter's shape, dtype and device */
} OptimStateRef;

/**
 * @brief SGD over every parameter of @p model with learning rate @p lr.
 *
 * @p lr must be positive and finite. Returns NULL with the error set on
 * failure.
 */
Optimizer *optim_sgd_new(Module *model, float lr);

/**
 * @brief `torch.optim.SGD(model.parameters(), lr, momentum, weight_decay=..., nesterov=...)`.
 *
 * Per parameter and step, with dampening 0: g = grad + weight_decay * p;
 * buf = g at the first step, else buf = momentum * buf + g; g = nesterov ?
 * g + momentum * buf : buf; p -= lr * g. With momentum 0 there is no
 * buffer, and with momentum and weight_decay both 0 this is optim_sgd_new()
 * (kind ::OPTIM_SGD, Lesson 01's update). @p lr must be positive, momentum
 * and weight decay zero or positive, all finite; Nesterov needs a momentum
 * (PyTorch's rules). The buffers are made on each parameter's device.
 * Returns NULL with the error set on failure.
 */
Optimizer *optim_sgd_momentum_new(Module *model, float lr, float momentum, float weight_decay,
                                  bool nesterov);

/**
 * @brief `torch.optim.Adam(model.parameters(), lr, betas=(beta1, beta2), eps, weight_decay)`.
 *
 * Per parameter at step t (counted from 1): g = grad + weight_decay * p;
 * m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2;
 * p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps), in
 * PyTorch's order of operations (the scalars in double, the tensors in
 * float). The betas are kept in double, as Python keeps `betas=(0.9, 0.999)`:
 * 1 - beta2 is then 0.001 rounded to float, not 1 - 0.999f = 0.00099998713
 * (pass 0.999, not 0.999f). Weight decay is added to the gradient (L2, not
 * AdamW's decoupled decay). @p lr must be positive, the betas in [0, 1), eps
 * and weight decay zero or positive, all finite. Returns NULL with the error
 * set on failure.
 */
Optimizer *optim_adam_new(Module *model, float lr, double beta1, double beta2, float eps,
                          float weight_decay);

/** @brief Release an optimizer and its state (not the parameters); NULL is allowed. */
void optim_free(Optimizer *opt);

/** @brief PyTorch's class name of the optimizer: "SGD" or "Adam". */
const char *optim_name(const Optimizer *opt);

/** @brief Set every gradient the optimizer updates to zero (`optimizer.zero_grad()`). */
WB_MUST_CHECK int optim_zero_grad(Optimizer *opt);

/**
 * @brief Update every parameter from its gradient (`optimizer.step()`).
 *
 * Each parameter is updated where it lives: on the CPU here, on a GPU by one
 * kernel launch per parameter tensor (no sync). The state must be on the
 * parameters' devices (::ERR_DEVICE otherwise, naming the parameter and
 * optim_to()).
 */
WB_MUST_CHECK int optim_step(Optimizer *opt);

/**
 * @brief Set the learning rate used from the next step on (`group['lr'] = lr`).
 *
 * @p lr must be finite and not negative (0 is allowed: a schedule may reach
 * it). Returns ::ERR_ARG otherwise.
 */
WB_MUST_CHECK int optim_set_lr(Optimizer *opt, float lr);

/**
 * @brief Move the optimizer's state to @p device; call it after module_to().
 *
 * All or nothing, like module_to(): on failure the state stays where it was.
 * Moving to where it is does nothing; an optimizer without state (plain SGD)
 * has nothing to move.
 */
WB_MUST_CHECK int optim_to(Optimizer *opt, Device device);

/**
 * @brief List the state buffers, for saving and loading checkpoints.
 *
 * Writes at most @p cap entries to @p out (NULL allowed when @p cap is 0) and
 * returns how many there are in all: for each parameter in order, its
 * "momentum_buffer" (SGD with momentum) or its "exp_avg" then "exp_avg_sq"
 * (Adam); none for plain SGD or SGD without momentum. The tensors belong to
 * the optimizer: read them to save, write into them to load. They only hold
 * state when @ref Optimizer::step > 0 (see the file's description).
 */
int optim_state(Optimizer *opt, OptimStateRef *out, int cap);

/**
 * @brief Set the step count after the buffers were loaded (`load_state_dict`).
 *
 * @p step is the saved @ref Optimizer::step (>= 0; ::ERR_ARG otherwise). With
 * 0 the next step starts afresh, as a new optimizer would.
 */
WB_MUST_CHECK int optim_restore(Optimizer *opt, int64_t step);

/**
 * @brief `torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)` (2-norm).
 *
 * Computes the norm of all gradients together, total = sqrt(sum of g^2
 * over every gradient), and when clip_coef = max_norm / (total + 1e-6) is
 * below 1 multiplies every gradient by it. *@p total_norm receives the norm
 * before clipping: inf or NaN when a gradient is, and inf when the sum of
 * the squares passes float's range, as PyTorch's float32 norm gives it
 * (with PyTorch's default error_if_nonfinite=False an inf norm then scales
 * the gradients by 0, a NaN one makes them NaN, which a GradScaler's
 * skipped step tolerates).
 * @p max_norm must be positive (inf: measure without clipping, unless the
 * norm is inf too).
 *
 * On the CPU this is clip_grad_norm_scale(), Lesson 05's exercise. On a GPU
 * the norm is a deterministic reduction on the device (the same bits on
 * every run), one launch per gradient tensor, one to finish and one per
 * tensor to scale; the scaling reads the norm on the device, so the only
 * sync is reading *@p total_norm back: pass NULL to skip it (no sync at all;
 * capturable in a CUDA Graph once the device's scratch memory exists).
 * All gradients must be on one device.
 */
WB_MUST_CHECK int clip_grad_norm(Module *model, float max_norm, float *total_norm);


#endif /* WB_OPTIM_H */
