/*
 * Lesson 03 exercises: reference answers. Same functions as
 * lessons/03_why_gpu_slower/exercises.c.
 */
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/core/timer.h"
#include "lib/train/train.h"

/* ex03.1 Reading the loss back every N epochs ------------------------------------ */

int train_logged(Module *model, Loss *loss, Optimizer *opt, const Tensor *x, const Tensor *y,
                 long epochs, long log_every, float *logged, long *n_logged)
{
    if (epochs < 0 || log_every < 0)
        return err_set(ERR_ARG, "train_logged: epochs (%ld) and log_every (%ld) must not be "
                                "negative",
                       epochs, log_every);
    long k = 0;
    for (long e = 1; e <= epochs; e++) {
        int rc = train_step(model, loss, opt, x, y, NULL); /* the loss stays on the device */
        if (!rc && log_every > 0 && e % log_every == 0) rc = loss_item(loss, &logged[k++]);
        if (rc) {
            *n_logged = k;
            return err_context("train_logged, epoch %ld", e);
        }
    }
    *n_logged = k;
    return ERR_OK;
}

/* ex03.2 Chunked inference on the device ------------------------------------------- */

int predict_chunked(Module *model, const Tensor *x, int64_t chunk, Tensor *out)
{
    if (chunk < 1) return err_set(ERR_ARG, "predict_chunked: chunk is %lld, must be at least 1",
                                  (long long)chunk);
    int64_t n = x->shape[0], d = x->shape[1];
    if (n == 0) return ERR_OK;
    int64_t first = chunk < n ? chunk : n;
    int64_t shape[2] = {first, d};
    Tensor *buf = tensor_new(DTYPE_F32, x->device, 2, shape); /* once, not per chunk */
    if (!buf) return err_code();
    int rc = ERR_OK;
    for (int64_t start = 0; start < n && !rc; start += chunk) {
        shape[0] = n - start < chunk ? n - start : chunk;
        const Tensor *y;
        rc = tensor_resize(buf, 2, shape); /* only the last chunk shrinks it */
        if (!rc) rc = tensor_copy_rows(x, start, shape[0], buf);
        if (!rc) rc = module_call(model, buf, &y); /* model(buf): hooks run too */
        if (!rc) rc = tensor_put_rows(out, start, y);
    }
    tensor_free(buf);
    return rc;
}

/* ex03.3 Timing GPU work ---------------------------------------------------------- */

int time_on_device(Device d, int (*work)(void *ctx), void *ctx, long repeats, double *seconds)
{
    if (repeats < 1) return err_set(ERR_ARG, "time_on_device: repeats is %ld, must be at least 1",
                                    repeats);
    TRY(device_synchronize(d)); /* earlier work must not count */
    double t0 = timer_now();
    for (long i = 0; i < repeats; i++) TRY(work(ctx));
    TRY(device_synchronize(d)); /* this work must have finished */
    *seconds = (timer_now() - t0) / (double)repeats;
    return ERR_OK;
}
