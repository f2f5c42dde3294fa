/**
 * @file module.h
 * @brief The module protocol: layers with forward and backward, and containers.
 *
 * A ::Module is what `torch.nn.Module` is in PyTorch: state (parameters and
 * their gradients, cached activations) plus functions (::ModuleOps). Every
 * layer of the workbook is a module, a Sequential container is a module
 * whose children run in order (sequential_new()), and the same calls drive them all:
 * module_forward(), module_backward(), module_zero_grad(), module_parameters().
 *
 * Memory: a module owns its output and its input gradient. The tensor a
 * forward or backward call hands back stays valid until the next call of the
 * same kind on that module, so a training loop allocates nothing once it has
 * seen its batch size (llm.c's "allocate activations once" idea). A module
 * keeps a pointer to its last input for backward: keep the input alive until
 * backward has run.
 */
#ifndef WB_MODULE_H
#define WB_MODULE_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/core/err.h"
#include "lib/core/callable.h"
#include "lib/device/tensor.h"

/** Most parameters one module (not counting its children) may own. */
#define MODULE_MAX_PARAMS 4
/** Longest module or parameter name, including the terminating zero. */
#define MODULE_NAME_MAX 32

/** A layer or a container of layers; see struct Module below. */
typedef struct Module Module;

/** A hook registered on a module: a callable, and the id its handle names. */
typedef struct ModuleHook {
    uint32_t id;   /**< unique among the module's hooks */
    Callable fn;   /**< the hook (not owned by the module) */
} ModuleHook;

/** What module_register_forward_hook() returns: pass it to module_remove_hook(). */
typedef struct HookHandle {
    Module *module; /**< the module the hook is on */
    uint32_t id;    /**< which hook */
} HookHandle;

/** A learnable tensor and its gradient (same shape), like `nn.Parameter`. */
typedef struct Param {
    char name[MODULE_NAME_MAX]; /**< local name: "weight", "bias" */
    Tensor *value;              /**< the values the optimizer updates */
    Tensor *grad;               /**< dLoss/dvalue, accumulated by backward */
} Param;

/** A parameter with its full dotted name, as in `model.named_parameters()`. */
typedef struct ParamRef {
    char name[2 * MODULE_NAME_MAX + 1]; /**< "fc1.weight" */
    Param *param;                       /**< the parameter itself */
} ParamRef;

/** The functions that make a kind of module (its "class"). */
typedef struct ModuleOps {
    /** Class name as PyTorch prints it: "Linear", "ReLU", "Sequential". */
    const char *kind;
    /** Compute the output of @p x; set @p *y to the module's output tensor. */
    int (*forward)(Module *self, const Tensor *x, const Tensor **y);
    /**
     * Given dLoss/dy, accumulate parameter gradients and, when @p dx is not
     * NULL, set @p *dx to dLoss/dx (the module's grad_input tensor).
     */
    int (*backward)(Module *self, const Tensor *dy, const Tensor **dx);
    /** Write the constructor arguments, "in_features=4, out_features=10, bias=True". */
    void (*extra_repr)(const Module *self, char *buf, size_t size);
    /** Free what @ref Module::impl holds (may be NULL). */
    void (*destroy)(Module *self);
} ModuleOps;

/** A module: its class, its name, its parameters, its children and its caches. */
struct Module {
    const ModuleOps *ops;            /**< the module's class */
    char name[MODULE_NAME_MAX];      /**< attribute name in its parent: "fc1" */
    char label[2 * MODULE_NAME_MAX]; /**< class and name for messages: "Linear fc1" */
    bool training;                   /**< train() or eval() mode */
    Param params[MODULE_MAX_PARAMS]; /**< own parameters */
    int n_params;                    /**< number of own parameters */
    Module **children;               /**< sub-modules, in call order */
    int n_children;                  /**< number of children */
    const Tensor *input;             /**< last forward input (borrowed) */
    Tensor *output;                  /**< last forward output (owned) */
    Tensor *grad_input;              /**< last dLoss/dinput (owned) */
    ModuleHook *pre_hooks;           /**< forward pre-hooks, in registration order */
    int n_pre_hooks;                 /**< how many */
    ModuleHook *hooks;               /**< forward hooks, in registration order */
    int n_hooks;                     /**< how many */
    ModuleHook *backward_hooks;      /**< backward hooks, in registration order */
    int n_backward_hooks;            /**< how many */
    uint32_t next_hook_id;           /**< the id the next registered hook gets */
    void *impl;                      /**< class-specific state */
};

/**
 * @brief Allocate a module of class @p ops named @p name, with its caches.
 *
 * Used by layer constructors such as linear_new(). Returns NULL and sets the
 * error on failure.
 */
Module *module_alloc(const ModuleOps *ops, const char *name);

/**
 * @brief Give @p m a parameter of shape @p shape (and a zero gradient).
 *
 * Returns the new ::Param, or NULL with the error set.
 */
Param *module_add_param(Module *m, const char *name, int ndim, const int64_t *shape);

/** @brief Release a module, its parameters, caches and children; NULL is allowed. */
void module_free(Module *m);

/**
 * @brief Run the forward pass of @p m on @p x; @p *y receives the output.
 *
 * This is `model.forward(x)` in PyTorch. The output belongs to @p m and stays
 * valid until the next forward call on it. Errors carry the module's name.
 */
WB_MUST_CHECK int module_forward(Module *m, const Tensor *x, const Tensor **y);

/**
 * @brief Back-propagate dLoss/dy through @p m, accumulating parameter gradients.
 *
 * Gradients add up across calls, as `loss.backward()` does in PyTorch; clear
 * them with module_zero_grad(). Pass @p dx as NULL when dLoss/dinput is not
 * needed (the first layer of a network): the module then skips computing it.
 */
WB_MUST_CHECK int module_backward(Module *m, const Tensor *dy, const Tensor **dx);

/**
 * @brief Register a forward pre-hook: a callable run before @p m's forward.
 *
 * module_call() calls it with two VALUE_PTR arguments, the module and its
 * input tensor. It returns None to keep the input, or a VALUE_PTR to a tensor
 * that replaces it (and that must outlive the call). Hooks run in the order
 * they were registered; the module does not own them.
 */
WB_MUST_CHECK int module_register_forward_pre_hook(Module *m, Callable hook, HookHandle *handle);

/**
 * @brief Register a forward hook: a callable run after @p m's forward.
 *
 * Called with three VALUE_PTR arguments, the module, its input and its
 * output; returns None to keep the output or a VALUE_PTR to a tensor that
 * replaces it. Order and ownership as for pre-hooks.
 */
WB_MUST_CHECK int module_register_forward_hook(Module *m, Callable hook, HookHandle *handle);

/**
 * @brief Register a backward hook: a callable run when @p m's backward has finished.
 *
 * module_backward() calls it with one VALUE_PTR argument, the module, once
 * the module's backward (and its children's) has accumulated every gradient
 * of its parameters: from then on this backward pass no longer touches them.
 * It returns None. This is the moment PyTorch's DistributedDataParallel
 * waits for to start a bucket's all-reduce while backward goes on through
 * the layers before it (Lesson 06); PyTorch calls the like of it a
 * post-accumulate-grad hook. Order and ownership as for forward hooks; an
 * error from a hook stops the backward pass with it.
 */
WB_MUST_CHECK int module_register_backward_hook(Module *m, Callable hook, HookHandle *handle);

/** @brief Remove a hook (`handle.remove()`); removing it twice is an ::ERR_ARG. */
int module_remove_hook(HookHandle handle);

/**
 * @brief `model(x)`, PyTorch's `nn.Module.__call__`: hooks, then forward, then hooks.
 *
 * Without hooks it is module_forward() (PyTorch takes the same fast path);
 * with hooks it is module_call_hooks(), Lesson 04's exercise. Containers call
 * their children through it, so hooks on any layer run when the model is
 * called; calling module_forward() directly skips them, silently.
 */
WB_MUST_CHECK int module_call(Module *m, const Tensor *x, const Tensor **y);

/**
 * @brief Exercise 04.3: the module call protocol, for a module with hooks.
 *
 * Runs @p m's forward pre-hooks in registration order (each called with the
 * module and the current input; each may replace the input), then
 * module_forward() on the (possibly replaced) input, then the forward hooks
 * in order (each called with the module, the input the forward saw, and the
 * current output; each may replace the output), and sets @p *y to the final
 * output. A hook that fails stops the call with an error naming it and the
 * module: `"forward pre-hook 2 of Linear fc1: <the hook's message>"` for a
 * pre-hook, `"forward hook 2 of Linear fc1: <the hook's message>"` for a
 * forward hook. A hook that returns anything but None or a pointer gets the
 * same prefix and, instead of a hook's message, `"returned a str; a hook
 * returns None or a tensor"` (with the kind it returned: value_kind_name()).
 * Pre-hooks and forward hooks are each numbered from 1 in registration
 * order. Returns 0.
 */
WB_MUST_CHECK int module_call_hooks(Module *m, const Tensor *x, const Tensor **y);

/**
 * @brief `torch.set_grad_enabled`: with false, forward keeps no activations for backward.
 *
 * Inference mode (`torch.no_grad()`): modules forget their inputs after each
 * forward, so a backward afterwards is an error instead of using stale data.
 */
void module_set_grad_enabled(bool enabled);

/** @brief Whether forward keeps what backward needs (true unless disabled). */
bool module_grad_enabled(void);

/** @brief Set every parameter gradient of @p m and its children to zero. */
WB_MUST_CHECK int module_zero_grad(Module *m);

/**
 * @brief `model.to(device)`: move every parameter, gradient and cache of @p m.
 *
 * All or nothing: the new tensors are all allocated before the old ones are
 * released, so on failure (out of memory on the GPU, say) the model is left
 * where it was. Moving to where it already is does nothing.
 */
WB_MUST_CHECK int module_to(Module *m, Device device);

/** @brief The device of @p m's first parameter (the CPU for a module without any). */
Device module_device(const Module *m);

/** @brief Switch @p m and its children to training (true) or evaluation (false) mode. */
void module_train(Module *m, bool training);

/**
 * @brief List the parameters of @p m and its children with dotted names.
 *
 * Writes at most @p cap entries to @p out (which may be NULL when @p cap is 0)
 * and returns how many parameters there are in all, in the order
 * `model.named_parameters()` gives.
 */
int module_parameters(Module *m, ParamRef *out, int cap);

/** @brief The parameter called @p name ("fc1.weight"), or NULL. */
Param *module_find_param(Module *m, const char *name);

/** @brief The number of learnable scalars in @p m and its children. */
int64_t module_num_scalars(Module *m);

/** @brief Print @p m as PyTorch's `print(model)` does. */
void module_print(const Module *m, FILE *out);

/**
 * @brief A container that calls its children in order (`nn.Sequential`).
 *
 * Takes ownership of the @p n modules in @p children, also when it fails (they
 * are freed then). Backward runs the children in reverse.
 */
Module *sequential_new(const char *name, int n, Module **children);

#endif /* WB_MODULE_H */
