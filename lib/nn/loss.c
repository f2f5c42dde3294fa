/* loss.c: mean cross-entropy around the exercise kernels, and accuracy. */
#include "lib/nn/loss.h"

#include <math.h>
#include <stdlib.h>

#include "lib/core/err.h"

Loss *loss_cross_entropy_new(void)
{
    Loss *loss = calloc(1, sizeof *loss);
    int64_t empty[2] = {0, 0};
    if (loss) {
        loss->probs = tensor_new(DTYPE_F32, device_cpu(), 2, empty);
        loss->grad = tensor_new(DTYPE_F32, device_cpu(), 2, empty);
    }
    if (!loss || !loss->probs || !loss->grad) {
        loss_free(loss);
        err_set(ERR_NOMEM, "cross_entropy: out of memory");
        return NULL;
    }
    return loss;
}

void loss_free(Loss *loss)
{
    if (!loss) return;
    tensor_free(loss->probs);
    tensor_free(loss->grad);
    tensor_free(loss->on_device);
    free(loss);
}

/* Keep the caches on the device of the logits (created on the CPU). */
static int caches_on(Loss *loss, Device d)
{
    if (device_equal(loss->probs->device, d) && loss->on_device) return ERR_OK;
    int64_t empty[2] = {0, 0}, one = 1;
    Tensor *p = tensor_new(DTYPE_F32, d, 2, empty), *g = tensor_new(DTYPE_F32, d, 2, empty);
    Tensor *v = tensor_new(DTYPE_F32, d, 1, &one);
    if (!p || !g || !v) {
        tensor_free(p);
        tensor_free(g);
        tensor_free(v);
        return err_code();
    }
    tensor_free(loss->probs);
    tensor_free(loss->grad);
    tensor_free(loss->on_device);
    loss->probs = p;
    loss->grad = g;
    loss->on_device = v;
    return ERR_OK;
}

static int check_targets(const Tensor *targets, int64_t n)
{
    if (!targets || targets->dtype != DTYPE_I32 || targets->ndim != 1 || targets->shape[0] != n) {
        char s[64] = "NULL";
        if (targets) tensor_shape_str(targets, s, sizeof s);
        return err_set(ERR_SHAPE, "cross_entropy: targets have shape %s and dtype %s, expected "
                                  "(%lld) int32 (one class index per row of the logits)",
                       s, targets ? dtype_name(targets->dtype) : "none", (long long)n);
    }
    return ERR_OK;
}

/* loss.item(): the value copied back, which waits for a GPU (on the CPU, it is there). */
static int read_value(Loss *loss)
{
    return device_copy(&loss->value, device_cpu(), tensor_f32(loss->on_device),
                       loss->on_device->device, sizeof(float));
}

int loss_forward(Loss *loss, const Tensor *logits, const Tensor *targets, float *value)
{
    TRY(tensor_check_2d(logits, DTYPE_F32, 0, 0, "cross_entropy", "logits"));
    int64_t n = logits->shape[0], c = logits->shape[1];
    if (n < 1 || c < 1)
        return err_set(ERR_SHAPE, "cross_entropy: logits of shape (%lld, %lld) are empty",
                       (long long)n, (long long)c);
    TRY(check_targets(targets, n));
    TRY(tensor_check_same_device("cross_entropy", logits, targets));
    TRY(caches_on(loss, logits->device));
    TRY(tensor_resize(loss->probs, 2, logits->shape));
    loss->ready = 0;
    TRY(tensor_ops(logits)->softmax_ce_forward(logits->device, tensor_f32(logits),
                                               tensor_i32(targets), tensor_f32(loss->probs),
                                               tensor_f32(loss->on_device), n, c));
    loss->targets = targets;
    loss->ready = 1;
    if (value) { /* loss.item() */
        TRY(read_value(loss));
        *value = loss->value;
    }
    return ERR_OK;
}

int loss_backward(Loss *loss, const Tensor **dlogits)
{
    if (!loss->ready) return err_set(ERR_ARG, "cross_entropy: backward called before forward");
    const Tensor *p = loss->probs;
    TRY(tensor_resize(loss->grad, 2, p->shape));
    TRY(tensor_ops(p)->softmax_ce_backward(p->device, tensor_f32(p), tensor_i32(loss->targets),
                                           tensor_f32(loss->grad), p->shape[0], p->shape[1]));
    *dlogits = loss->grad;
    return ERR_OK;
}

int loss_backward_scaled(Loss *loss, float weight, const Tensor **dlogits)
{
    if (!isfinite(weight))
        return err_set(ERR_ARG, "cross_entropy: the loss's weight is %g, must be finite",
                       (double)weight);
    TRY(loss_backward(loss, dlogits));
    if (weight == 1.0f) return ERR_OK;
    const Tensor *g = *dlogits;
    return tensor_ops(g)->scale(g->device, tensor_f32(g), g->numel, weight);
}

int loss_accuracy(const Tensor *logits, const Tensor *targets, float *accuracy)
{
    TRY(tensor_check_2d(logits, DTYPE_F32, 0, 0, "accuracy", "logits"));
    TRY(tensor_check_same_device("accuracy", logits, targets));
    int64_t n = logits->shape[0], c = logits->shape[1];
    TRY(check_targets(targets, n));
    if (!device_is_host(logits->device)) { /* count on the CPU: two copies, one sync */
        Tensor *z = NULL, *t = NULL;
        int rc = ERR_OK;
        TRY_OR_DONE(tensor_to(logits, device_cpu(), &z));
        TRY_OR_DONE(tensor_to(targets, device_cpu(), &t));
        TRY_OR_DONE(loss_accuracy(z, t, accuracy));
    done:
        tensor_free(z);
        tensor_free(t);
        return rc;
    }
    const float *z = tensor_f32(logits);
    const int32_t *t = tensor_i32(targets);
    int64_t right = 0;
    for (int64_t i = 0; i < n; i++) {
        if (t[i] < 0 || t[i] >= c)
            return err_set(ERR_ARG, "accuracy: target %d in row %lld is out of bounds (the logits "
                                    "have %lld classes, so labels must be 0..%lld)",
                           t[i], (long long)i, (long long)c, (long long)(c - 1));
        int64_t best = 0;
        for (int64_t j = 1; j < c; j++) /* z(i, j) is z[i + j * n] */
            if (z[i + j * n] > z[i + best * n]) best = j;
        right += best == t[i];
    }
    *accuracy = n ? (float)right / (float)n : 0.0f;
    return ERR_OK;
}

int loss_item(Loss *loss, float *value)
{
    if (!loss || !value || !loss->ready)
        return err_set(ERR_ARG, "loss_item: there is no loss yet (call loss_forward first)");
    TRY(read_value(loss));
    *value = loss->value;
    return ERR_OK;
}
