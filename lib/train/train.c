/* train.c: the body of a training loop. */
#include "lib/train/train.h"

#include "lib/core/err.h"

/* The loss times the weight and the scale, in one multiplication of dlogits. */
static int scale_loss(const Tensor *dlogits, float f)
{
    if (f == 1.0f) return ERR_OK;
    return tensor_ops(dlogits)->scale(dlogits->device, tensor_f32(dlogits), dlogits->numel, f);
}

/* forward, loss, backward: under autocast when asked (the backward follows the
 * forward's choices), and back to float32 whatever happened. */
static int forward_backward(Module *model, Loss *loss, Optimizer *opt, const Tensor *x,
                            const Tensor *y, const StepOptions *o)
{
    const Tensor *logits, *dlogits;
    int rc = ERR_OK;
    TRY(amp_set_autocast(o ? o->autocast : DTYPE_F32));
    TRY_OR_DONE(module_call(model, x, &logits)); // outputs = model(x): (n, classes)
    TRY_OR_DONE(loss_forward(loss, logits, y, NULL));
    TRY_OR_DONE(optim_zero_grad(opt));
    TRY_OR_DONE(loss_backward(loss, &dlogits)); // dlogits: (n, classes)
    if (o) TRY_OR_DONE(scale_loss(dlogits, grad_scaler_factor(o->scaler) * o->loss_weight));
    TRY_OR_DONE(module_backward(model, dlogits, NULL)); // fills every param->grad
done:;
    int back = amp_set_autocast(DTYPE_F32);
    return rc ? rc : back;
}

int train_step_with(Module *model, Loss *loss, Optimizer *opt, const Tensor *x, const Tensor *y,
                    const StepOptions *o, float *loss_value, bool *stepped)
{
    if (stepped) *stepped = false;
    TRY(forward_backward(model, loss, opt, x, y, o));
    if (loss_value) TRY(loss_item(loss, loss_value)); /* loss.item(): a sync on a GPU */
    GradScaler *scaler = o ? o->scaler : NULL;
    if (scaler) TRY(grad_scaler_unscale(scaler, opt)); /* before clipping: the true norms */
    /* The norm is not read back: on a GPU it stays there, and so does the wait. */
    if (o && o->clip_norm > 0.0f && !(scaler && scaler->found_inf))
        TRY(clip_grad_norm(model, o->clip_norm, NULL));
    if (!scaler) {
        TRY(optim_step(opt));
        if (stepped) *stepped = true;
        return ERR_OK;
    }
    TRY(grad_scaler_step(scaler, opt, stepped));
    EXERCISE("05.1", grad_scaler_update, scaler);
    return ERR_OK;
}

int train_step(Module *model, Loss *loss, Optimizer *opt, const Tensor *x, const Tensor *y,
               float *loss_value)
{
    return train_step_with(model, loss, opt, x, y, NULL, loss_value, NULL);
}

int train_evaluate(Module *model, Loss *loss, const Tensor *x, const Tensor *y, float *loss_value,
                   float *accuracy)
{
    const Tensor *logits;
    float value;
    module_train(model, false);
    TRY(module_call(model, x, &logits)); /* model(x): its hooks see evaluation batches too */
    if (loss_value) {
        TRY(loss_forward(loss, logits, y, &value));
        *loss_value = value;
    }
    if (accuracy) TRY(loss_accuracy(logits, y, accuracy));
    return ERR_OK;
}
