/* optim.c: SGD (plain, with momentum and weight decay), Adam, and clipping by
 * global norm, on the CPU here and on a GPU through the backend.
 *
 * The CPU updates repeat PyTorch's CPU operations in order: `x.add(y,
 * alpha=a)` is a fused multiply-add there (fmaf here), `mul_` rounds its
 * product before the next `add_`, and the scalars (bias corrections, step
 * size) are Python floats, that is doubles rounded to float where they meet
 * a tensor. kernels/optim.cu does the same on the GPU. */
#include "lib/nn/optim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"

/* PyTorch's names of each kind's per-parameter state, in optim_state()'s order. */
static const char *const STATE_NAMES[][2] = {
    [OPTIM_SGD] = {NULL, NULL},
    [OPTIM_SGD_MOMENTUM] = {"momentum_buffer", NULL},
    [OPTIM_ADAM] = {"exp_avg", "exp_avg_sq"},
};


/* ::ERR_ARG unless @p lr is positive and finite; @p hint is a usual value. */
static int check_lr(const char *name, float lr, const char *hint)
{
    if (lr > 0.0f && isfinite(lr)) return ERR_OK;
    return err_set(ERR_ARG, "%s: learning rate %g must be a positive finite number (try %s)",
                   name, (double)lr, hint);
}

/* ::ERR_ARG unless @p x is finite and at least 0. */
static int check_nonnegative(const char *name, const char *what, float x)
{
    if (x >= 0.0f && isfinite(x)) return ERR_OK;
    return err_set(ERR_ARG, "%s: %s %g must be a finite number, 0 or more", name, what, (double)x);
}

/* An optimizer over @p model with @p per zeroed state buffers per parameter,
 * each on its parameter's device; NULL with the error set on failure. */
static Optimizer *optim_alloc(Module *model, const char *name, float lr, OptimKind kind,
                              int per)
{
    Optimizer *opt = calloc(1, sizeof *opt);
    int n = module_parameters(model, NULL, 0);
    if (opt) opt->params = malloc((size_t)(n ? n : 1) * sizeof *opt->params);
    if (opt && per) opt->state = calloc((size_t)(n ? n * per : 1), sizeof *opt->state);
    if (!opt || !opt->params || (per && !opt->state)) {
        optim_free(opt);
        err_set(ERR_NOMEM, "%s: out of memory", name);
        return NULL;
    }
    opt->n_params = module_parameters(model, opt->params, n);
    opt->lr = lr;
    opt->kind = kind;
    opt->state_per_param = per;
    for (int i = 0; i < n * per; i++) {
        const Tensor *p = opt->params[i / per].param->value;
        opt->state[i] = tensor_new(DTYPE_F32, p->device, p->ndim, p->shape);
        if (!opt->state[i]) {
            err_context("%s: the state of %s", name, opt->params[i / per].name);
            optim_free(opt);
            return NULL;
        }
    }
    return opt;
}

Optimizer *optim_sgd_new(Module *model, float lr)
{
    if (check_lr("SGD", lr, "0.01")) return NULL;
    return optim_alloc(model, "SGD", lr, OPTIM_SGD, 0);
}

Optimizer *optim_sgd_momentum_new(Module *model, float lr, float momentum, float weight_decay,
                                  bool nesterov)
{
    if (check_lr("SGD", lr, "0.01") || check_nonnegative("SGD", "momentum", momentum) ||
        check_nonnegative("SGD", "weight_decay", weight_decay))
        return NULL;
    if (nesterov && momentum == 0.0f) {
        err_set(ERR_ARG, "SGD: Nesterov momentum needs a momentum above 0 (PyTorch: \"Nesterov "
                         "momentum requires a momentum and zero dampening\"); try 0.9");
        return NULL;
    }
    if (momentum == 0.0f && weight_decay == 0.0f) return optim_sgd_new(model, lr);
    Optimizer *opt = optim_alloc(model, "SGD", lr, OPTIM_SGD_MOMENTUM, momentum != 0.0f ? 1 : 0);
    if (!opt) return NULL;
    opt->momentum = momentum;
    opt->weight_decay = weight_decay;
    opt->nesterov = nesterov;
    return opt;
}

Optimizer *optim_adam_new(Module *model, float lr, double beta1, double beta2, float eps,
                          float weight_decay)
{
    if (check_lr("Adam", lr, "0.001")) return NULL;
    const double betas[2] = {beta1, beta2};
    for (int i = 0; i < 2; i++) {
        if (!(betas[i] >= 0.0 && betas[i] < 1.0)) {
            err_set(ERR_ARG, "Adam: beta%d %g must be in [0, 1) (usual: 0.9 and 0.999)", i + 1,
                    betas[i]);
            return NULL;
        }
    }
    if (check_nonnegative("Adam", "eps", eps) ||
        check_nonnegative("Adam", "weight_decay", weight_decay))
        return NULL;
    Optimizer *opt = optim_alloc(model, "Adam", lr, OPTIM_ADAM, 2);
    if (!opt) return NULL;
    opt->beta1 = beta1;
    opt->beta2 = beta2;
    opt->eps = eps;
    opt->weight_decay = weight_decay;
    return opt;
}

void optim_free(Optimizer *opt)
{
    if (!opt) return;
    if (opt->state)
        for (int i = 0; i < opt->n_params * opt->state_per_param; i++) tensor_free(opt->state[i]);
    free(opt->state);
    free(opt->params);
    free(opt);
}

const char *optim_name(const Optimizer *opt) { return opt->kind == OPTIM_ADAM ? "Adam" : "SGD"; }

int optim_zero_grad(Optimizer *opt)
{
    for (int i = 0; i < opt->n_params; i++) TRY(tensor_zero(opt->params[i].param->grad));
    return ERR_OK;
}

/* Adam's scalars at step t, as _single_tensor_adam computes them in Python floats (the
 * betas are doubles; each scalar is rounded to float where it meets a tensor). */
static AdamStep adam_scalars(const Optimizer *opt, int64_t t)
{
    double bias_correction1 = 1.0 - pow(opt->beta1, (double)t);
    double bias_correction2 = 1.0 - pow(opt->beta2, (double)t);
    AdamStep a = {
        .beta1 = (float)opt->beta1,
        .beta2 = (float)opt->beta2,
        .one_minus_beta1 = (float)(1.0 - opt->beta1),
        .one_minus_beta2 = (float)(1.0 - opt->beta2),
        .neg_step_size = (float)(-((double)opt->lr / bias_correction1)),
        .bias_correction2_sqrt = (float)sqrt(bias_correction2),
        .eps = opt->eps,
        .weight_decay = opt->weight_decay,
    };
    return a;
}

/* Parameter @p i with its state: all f32 and on one device, or an error saying what to do. */
static int check_param(const Optimizer *opt, int i)
{
    const Param *p = opt->params[i].param;
    if (p->value->dtype != DTYPE_F32 || p->grad->dtype != DTYPE_F32)
        return err_set(ERR_SHAPE, "%s: parameter %s is %s; the optimizers update float32 "
                                  "parameters",
                       optim_name(opt), opt->params[i].name, dtype_name(p->value->dtype));
    for (int j = 0; j < opt->state_per_param; j++) {
        const Tensor *s = opt->state[i * opt->state_per_param + j];
        if (!device_equal(s->device, p->value->device)) {
            char a[16], b[16];
            return err_set(ERR_DEVICE, "%s: the state of %s is on %s but the parameter is on %s: "
                                       "call optim_to(opt, device) after module_to()",
                           optim_name(opt), opt->params[i].name,
                           device_str(s->device, a, sizeof a),
                           device_str(p->value->device, b, sizeof b));
        }
    }
    return ERR_OK;
}

int optim_step(Optimizer *opt)
{
    if (opt->kind == OPTIM_SGD) {
        for (int i = 0; i < opt->n_params; i++) {
            Param *p = opt->params[i].param;
            TRY(tensor_ops(p->value)->sgd_step(p->value->device, tensor_f32(p->value),
                                               tensor_f32(p->grad), p->value->numel, opt->lr));
        }
        opt->step++;
        return ERR_OK;
    }
    /* A graph keeps the numbers this step works out on the CPU (the first step's
     * buffer creation, Adam's bias corrections): each replay would repeat them. */
    if (opt->n_params > 0 &&
        tensor_ops(opt->params[0].param->value)->capturing(opt->params[0].param->value->device))
        return err_set(ERR_ARG, "optim_step: %s cannot be recorded in a CUDA Graph: the graph "
                                "would replay this step's %s on every launch; record plain SGD, "
                                "or run the optimizer step outside the graph",
                       opt->kind == OPTIM_ADAM ? "Adam" : "SGD with momentum",
                       opt->kind == OPTIM_ADAM ? "bias corrections" : "step count");
    for (int i = 0; i < opt->n_params; i++) TRY(check_param(opt, i));
    bool first = opt->step == 0; /* PyTorch creates the momentum buffer now */
    opt->step++;
    AdamStep a = adam_scalars(opt, opt->step);
    for (int i = 0; i < opt->n_params; i++) {
        Param *p = opt->params[i].param;
        Tensor **st = opt->state ? opt->state + i * opt->state_per_param : NULL;
        float *value = tensor_f32(p->value), *grad = tensor_f32(p->grad);
        float *s0 = st ? tensor_f32(st[0]) : NULL;
        int64_t n = p->value->numel;
        Device d = p->value->device;
        const BackendOps *ops = tensor_ops(p->value);
        if (opt->kind == OPTIM_SGD_MOMENTUM)
            TRY(ops->sgd_momentum_step(d, value, grad, s0, n, opt->lr, opt->momentum,
                                       opt->weight_decay, opt->nesterov, first));
        else
            TRY(ops->adam_step(d, value, grad, s0, tensor_f32(st[1]), n, &a));
    }
    return ERR_OK;
}

int optim_set_lr(Optimizer *opt, float lr)
{
    if (!(lr >= 0.0f) || !isfinite(lr))
        return err_set(ERR_ARG, "%s: learning rate %g must be a finite number, 0 or more",
                       optim_name(opt), (double)lr);
    opt->lr = lr;
    return ERR_OK;
}

int optim_to(Optimizer *opt, Device device)
{
    int n = opt->n_params * opt->state_per_param;
    if (n == 0) return ERR_OK;
    Tensor **moved = calloc((size_t)n, sizeof *moved);
    if (!moved) return err_set(ERR_NOMEM, "optim_to: out of memory");
    int rc = ERR_OK;
    for (int i = 0; i < n && rc == ERR_OK; i++)
        if (!device_equal(opt->state[i]->device, device))
            rc = tensor_to(opt->state[i], device, &moved[i]);
    if (rc != ERR_OK) {
        char name[16];
        err_context("moving the %s state to %s", optim_name(opt),
                    device_str(device, name, sizeof name));
    }
    for (int i = 0; i < n; i++) {
        if (!moved[i]) continue;
        if (rc == ERR_OK) {
            tensor_free(opt->state[i]);
            opt->state[i] = moved[i];
        } else {
            tensor_free(moved[i]);
        }
    }
    free(moved);
    return rc;
}

int optim_state(Optimizer *opt, OptimStateRef *out, int cap)
{
    int per = opt->state_per_param, count = opt->n_params * per;
    for (int k = 0; k < count && k < cap; k++) {
        out[k].param = k / per;
        out[k].name = STATE_NAMES[opt->kind][k % per];
        out[k].tensor = opt->state[k];
    }
    return count;
}

int optim_restore(Optimizer *opt, int64_t step)
{
    if (step < 0)
        return err_set(ERR_ARG, "%s: a step count of %lld cannot be restored (0 or more)",
                       optim_name(opt), (long long)step);
    opt->step = step;
    return ERR_OK;
}

int clip_grad_norm(Module *model, float max_norm, float *total_norm)
{
    if (!(max_norm > 0.0f))
        return err_set(ERR_ARG, "clip_grad_norm: max_norm %g must be positive (inf measures the "
                                "norm without clipping)",
                       (double)max_norm);
    int n = module_parameters(model, NULL, 0);
    if (n == 0) {
        if (total_norm) *total_norm = 0.0f;
        return ERR_OK;
    }
    ParamRef *refs = malloc((size_t)n * sizeof *refs);
    float **grads = malloc((size_t)n * sizeof *grads);
    int64_t *sizes = malloc((size_t)n * sizeof *sizes);
    int rc = refs && grads && sizes ? ERR_OK : err_set(ERR_NOMEM, "clip_grad_norm: out of memory");
    if (rc == ERR_OK) module_parameters(model, refs, n);
    Device d = rc == ERR_OK ? refs[0].param->grad->device : device_cpu();
    for (int i = 0; i < n && rc == ERR_OK; i++) {
        const Tensor *g = refs[i].param->grad;
        grads[i] = tensor_f32(g);
        sizes[i] = g->numel;
        char a[16], b[16];
        if (g->dtype != DTYPE_F32)
            rc = err_set(ERR_SHAPE, "clip_grad_norm: the gradient of %s is %s, not float32",
                         refs[i].name, dtype_name(g->dtype));
        else if (!device_equal(g->device, d))
            rc = err_set(ERR_DEVICE, "clip_grad_norm: the gradient of %s is on %s but that of %s "
                                     "is on %s: move the whole model with module_to()",
                         refs[i].name, device_str(g->device, a, sizeof a), refs[0].name,
                         device_str(d, b, sizeof b));
    }
    if (rc == ERR_OK) rc = backend_of(d)->clip_grad_norm(d, grads, sizes, n, max_norm, total_norm);
    free(refs);
    free(grads);
    free(sizes);
    return rc;
}
