/* amp.c: the autocast mode and GradScaler's unscale and step. */
#include "lib/nn/amp.h"

#include <math.h>

#include "lib/device/backend.h"
#include "lib/core/err.h"

static DType g_autocast = DTYPE_F32;

int amp_set_autocast(DType dtype)
{
    if (dtype != DTYPE_F32 && dtype != DTYPE_F16 && dtype != DTYPE_BF16)
        return err_set(ERR_ARG, "autocast takes float16 or bfloat16 (or float32 for off), not %s",
                       dtype_name(dtype));
    g_autocast = dtype;
    return ERR_OK;
}

DType amp_autocast(void) { return g_autocast; }

static AmpStats g_stats;

AmpStats amp_stats(void) { return g_stats; }

void amp_stats_reset(void)
{
    AmpStats zero = {0, 0};
    g_stats = zero;
}

void amp_stats_add(int64_t rounded, int64_t underflowed)
{
    g_stats.rounded += rounded;
    g_stats.underflowed += underflowed;
}

void grad_scaler_init(GradScaler *s, bool enabled)
{
    GradScaler d = {enabled, 65536.0f, 2.0f, 0.5f, 2000, 0, false, false, 0};
    *s = d;
}

float grad_scaler_factor(const GradScaler *s) { return s->enabled ? s->scale : 1.0f; }

int grad_scaler_unscale(GradScaler *s, Optimizer *opt)
{
    if (!s->enabled) return ERR_OK;
    if (s->unscaled)
        return err_set(ERR_ARG, "unscale was already called since the last update (PyTorch: "
                                "\"unscale_() has already been called on this optimizer since "
                                "the last update()\")");
    /* PyTorch multiplies by the reciprocal, computed in double and stored as float. */
    float inv = (float)(1.0 / (double)s->scale);
    /* A kernel per tensor on a GPU, one flag for all; one read of the flag per device:
     * a sync, as in PyTorch's scaler.step. */
    bool found = false;
    Device seen[4];
    int n_seen = 0;
    for (int i = 0; i < opt->n_params; i++) {
        Tensor *g = opt->params[i].param->grad;
        TRY(tensor_ops(g)->unscale(g->device, tensor_f32(g), g->numel, inv));
        bool known = false;
        for (int k = 0; k < n_seen; k++) known |= device_equal(seen[k], g->device);
        if (!known && n_seen < 4) seen[n_seen++] = g->device;
    }
    for (int k = 0; k < n_seen; k++) {
        bool f = false;
        TRY(backend_of(seen[k])->unscale_result(seen[k], &f));
        found |= f;
    }
    s->found_inf = found;
    s->unscaled = true;
    return ERR_OK;
}

int grad_scaler_step(GradScaler *s, Optimizer *opt, bool *stepped)
{
    if (stepped) *stepped = false;
    if (s->enabled && !s->unscaled) TRY(grad_scaler_unscale(s, opt));
    if (s->enabled && s->found_inf) { /* the gradients are garbage: keep the weights */
        s->skipped++;
        return ERR_OK;
    }
    TRY(optim_step(opt));
    if (stepped) *stepped = true;
    return ERR_OK;
}
