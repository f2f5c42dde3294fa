/* train.c: the body of a training loop. */
#include "lib/train/train.h"

#include "lib/core/err.h"

int train_step(Module *model, Loss *loss, Optimizer *opt, const Tensor *x, const Tensor *y,
               float *loss_value)
{
    const Tensor *logits, *dlogits;
    TRY(module_forward(model, x, &logits));       // logits: (n, classes)
    TRY(loss_forward(loss, logits, y, loss_value));
    optim_zero_grad(opt);
    TRY(loss_backward(loss, &dlogits));           // dlogits: (n, classes)
    TRY(module_backward(model, dlogits, NULL));   // fills every param->grad
    return optim_step(opt);
}

int train_evaluate(Module *model, Loss *loss, const Tensor *x, const Tensor *y, float *loss_value,
                   float *accuracy)
{
    const Tensor *logits;
    float value;
    module_train(model, false);
    TRY(module_forward(model, x, &logits));
    if (loss_value) {
        TRY(loss_forward(loss, logits, y, &value));
        *loss_value = value;
    }
    if (accuracy) TRY(loss_accuracy(logits, y, accuracy));
    return ERR_OK;
}
