/*
 * Lesson 05 exercises: reference answers. Same functions as
 * lessons/05_trainer/exercises.c.
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
#include "lib/train/trainer.h"

/* ex05.1 GradScaler's update ------------------------------------------------------ */

int grad_scaler_update(GradScaler *s)
{
    if (!s->enabled) return ERR_OK;
    if (s->found_inf) {
        s->scale *= s->backoff_factor; /* the step was skipped: try a smaller scale */
        s->growth_tracker = 0;
    } else if (++s->growth_tracker == s->growth_interval) {
        float grown = s->scale * s->growth_factor;
        if (isfinite(grown)) s->scale = grown; /* never grow into inf */
        s->growth_tracker = 0;
    }
    s->found_inf = false;
    s->unscaled = false;
    return ERR_OK;
}

/* ex05.3 Early stopping ------------------------------------------------------------ */

int early_stopping_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    EarlyStopping *e = state;
    Trainer *t = args[0].as.p;
    if (t->hist.n == 0)
        return err_set(ERR_ARG, "early stopping: the trainer has no epoch in its history yet");
    float v = t->hist.val_loss[t->hist.n - 1];
    *out = value_none();
    if (v < e->best - e->min_delta) { /* NaN is never an improvement */
        e->best = v;
        e->wait = 0;
        return ERR_OK;
    }
    if (++e->wait >= e->patience) {
        t->stop = true;
        e->stopped_epoch = t->hist.n;
        /* Its own best, reached wait epochs ago (not the trainer's best_epoch, which the
           trainer counts with its own opts.min_delta, maybe another than this one). */
        snprintf(t->stop_reason, sizeof t->stop_reason,
                 "no improvement in %d epochs (best %.4f at epoch %ld)", e->wait, (double)e->best,
                 t->hist.n - e->wait);
    }
    return ERR_OK;
}

/* ex05.4 The epoch loop ------------------------------------------------------------ */

int trainer_run_epochs(Trainer *t, long upto)
{
    long target = upto ? upto : t->opts.epochs;
    if (target > t->opts.epochs)
        return err_set(ERR_ARG, "trainer_call(t, %ld): the trainer is configured for %ld epochs",
                       upto, t->opts.epochs);
    for (long e = t->epoch + 1; e <= target && !t->stop; e++) {
        EpochStats s;
        TRY(trainer_train_epoch(t, e, &s));
        TRY(trainer_validate(t, &s));
        TRY(trainer_end_epoch(t, e, &s));
        t->epoch = e; /* only a finished epoch counts: a resume starts after it */
    }
    return ERR_OK;
}

/* ex05.2 Clipping by global norm ------------------------------------------------------ */

int clip_grad_norm_scale(float *const *grads, const int64_t *sizes, int n, float max_norm,
                         float *total_norm)
{
    double sum = 0.0; /* in double no small square is lost, whatever the order */
    for (int i = 0; i < n; i++)
        for (int64_t k = 0; k < sizes[i]; k++) sum += (double)grads[i][k] * grads[i][k];
    float total = sqrtf((float)sum); /* float's range, as PyTorch's float32 sum: inf past it */
    *total_norm = total;
    float coef = max_norm / (total + 1e-6f);
    if (coef < 1.0f || isnan(coef)) /* PyTorch multiplies by clamp(coef, max=1), NaN and all */
        for (int i = 0; i < n; i++)
            for (int64_t k = 0; k < sizes[i]; k++) grads[i][k] *= coef;
    return ERR_OK;
}

/* ex05.5 Checking a checkpoint before loading it ----------------------------------------- */

int checkpoint_validate(const SafeTensors *st, Module *model, const char *path)
{
    const char *format = safetensors_meta(st, "wb.format");
    if (!format || (strcmp(format, CHECKPOINT_FORMAT) && strcmp(format, CHECKPOINT_WEIGHTS_FORMAT))) {
        if (!format) return err_set(ERR_FORMAT, "%s: not a checkpoint of this workbook (no wb.format)", path);
        return err_set(ERR_FORMAT, "%s: not a checkpoint of this workbook (wb.format is \"%s\")",
                       path, format);
    }
    const char *version = safetensors_meta(st, "wb.version");
    char mine[16];
    snprintf(mine, sizeof mine, "%d", CHECKPOINT_VERSION);
    if (!version || strcmp(version, mine) != 0)
        return err_set(ERR_FORMAT, "%s: checkpoint format version %s; this build reads version %d",
                       path, version ? version : "(missing)", CHECKPOINT_VERSION);
    ParamRef p[64];
    int n = module_parameters(model, p, 64);
    for (int i = 0; i < n && i < 64; i++) {
        char name[ST_NAME_MAX], a[96], b[96];
        if (snprintf(name, sizeof name, "model.%s", p[i].name) >= (int)sizeof name)
            return err_set(ERR_ARG, "%s: the parameter name %s is too long", path, p[i].name);
        const StTensor *f = safetensors_find(st, name);
        const Tensor *v = p[i].param->value;
        if (!f)
            return err_set(ERR_FORMAT, "%s: missing tensor \"%s\": the checkpoint is of another "
                                       "model", path, name);
        if (f->dtype != DTYPE_F32)
            return err_set(ERR_FORMAT, "%s: tensor \"%s\" has dtype %s, expected F32", path, name,
                           safetensors_dtype_name(f->dtype));
        bool same = f->ndim == v->ndim;
        for (int k = 0; same && k < f->ndim; k++) same = f->shape[k] == v->shape[k];
        if (!same)
            return err_set(ERR_FORMAT, "%s: tensor \"%s\" has shape %s; this model's is %s: the "
                                       "checkpoint is of another model",
                           path, name, safetensors_shape_str(f->ndim, f->shape, a, sizeof a),
                           safetensors_shape_str(v->ndim, v->shape, b, sizeof b));
    }
    for (int i = 0; i < safetensors_count(st); i++) { /* and nothing the model lacks */
        const char *name = safetensors_get(st, i)->name;
        if (strncmp(name, "model.", 6) == 0 && !module_find_param(model, name + 6))
            return err_set(ERR_FORMAT, "%s: tensor \"%s\" is not a parameter of this model", path,
                           name);
    }
    return ERR_OK;
}

/* ex05.6 Gradient accumulation ----------------------------------------------------------- */
#include "lib/train/train.h"

int train_step_accumulated(Module *model, Loss *loss, Optimizer *opt, const Tensor *const *xs,
                           const Tensor *const *ys, int k, float *loss_value)
{
    if (k < 1) return err_set(ERR_ARG, "train_step_accumulated: %d micro-batches, need at least 1", k);
    int64_t total = 0;
    for (int i = 0; i < k; i++) {
        if (xs[i]->shape[0] < 1)
            return err_set(ERR_ARG, "train_step_accumulated: micro-batch %d has no rows", i);
        total += xs[i]->shape[0];
    }
    TRY(optim_zero_grad(opt)); /* once: the micro-batches add to the same gradients */
    double sum = 0;
    for (int i = 0; i < k; i++) {
        const Tensor *logits, *dlogits;
        float v = 0;
        float share = (float)((double)xs[i]->shape[0] / (double)total); /* n_i / N */
        TRY(module_call(model, xs[i], &logits));
        TRY(loss_forward(loss, logits, ys[i], loss_value ? &v : NULL));
        TRY(loss_backward_scaled(loss, share, &dlogits));
        TRY(module_backward(model, dlogits, NULL));
        sum += (double)share * (double)v;
    }
    TRY(optim_step(opt)); /* one step for the whole batch */
    if (loss_value) *loss_value = (float)sum;
    return ERR_OK;
}
