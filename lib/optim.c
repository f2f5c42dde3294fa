/* optim.c: SGD around the exercise kernel. */
#include "optim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "err.h"

Optimizer *optim_sgd_new(Module *model, float lr)
{
    if (!(lr > 0.0f) || !isfinite(lr)) {
        err_set(ERR_ARG, "SGD: learning rate %g must be a positive finite number (try 0.01)",
                (double)lr);
        return NULL;
    }
    Optimizer *opt = calloc(1, sizeof *opt);
    int n = module_parameters(model, NULL, 0);
    if (opt) opt->params = malloc((size_t)(n ? n : 1) * sizeof *opt->params);
    if (!opt || !opt->params) {
        optim_free(opt);
        err_set(ERR_NOMEM, "SGD: out of memory");
        return NULL;
    }
    opt->n_params = module_parameters(model, opt->params, n);
    opt->lr = lr;
    return opt;
}

void optim_free(Optimizer *opt)
{
    if (!opt) return;
    free(opt->params);
    free(opt);
}

void optim_zero_grad(Optimizer *opt)
{
    for (int i = 0; i < opt->n_params; i++) {
        Tensor *g = opt->params[i].param->grad;
        size_t bytes = (size_t)g->numel * dtype_size(g->dtype);
        if (g->device.kind == DEVICE_CPU)
            memset(g->data, 0, bytes);
        else
            backend_zero(g->device, g->data, bytes);
    }
}

int optim_step(Optimizer *opt)
{
    for (int i = 0; i < opt->n_params; i++) {
        Param *p = opt->params[i].param;
        if (p->value->device.kind == DEVICE_CUDA) {
            TRY(backend_sgd_step(p->value->device, tensor_f32(p->value), tensor_f32(p->grad),
                                 p->value->numel, opt->lr));
            continue;
        }
        EXERCISE("01.8", sgd_step, tensor_f32(p->value), tensor_f32(p->grad), p->value->numel,
                 opt->lr);
    }
    return ERR_OK;
}
