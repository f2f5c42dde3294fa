/* batcher.c: the batching callable around its exercise, and row copies. */
#include "lib/nn/batcher.h"

#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"

static int batcher_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    BatcherState *b = state;
    if (args[0].kind != VALUE_PTR || !args[0].as.p)
        return err_set(ERR_ARG, "the input is a %s, not a tensor", value_kind_name(args[0].kind));
    const Tensor *x = args[0].as.p;
    TRY(tensor_check_2d(x, DTYPE_F32, 0, b->in_features, "", "the input"));
    if (!device_is_host(x->device))
        return err_set(ERR_DEVICE, "the input must be on the CPU: the batcher moves it");
    Tensor *y = tensor_new_2d(x->shape[0], b->out_features);
    if (!y) return err_code();
    int rc = exercise_result(batcher_forward(b, x, y), "04.4", "batcher_forward");
    if (rc != ERR_OK) {
        tensor_free(y);
        return rc;
    }
    *out = value_ptr(y);
    return ERR_OK;
}

static const CallableClass batcher_class = {"Batcher", 1, batcher_call, free};

int batcher_new(Module *model, Device device, int64_t batch_size, int64_t in_features,
                int64_t out_features, Callable *out)
{
    out->slot = UINT32_MAX;
    if (!model || batch_size < 1 || in_features < 1 || out_features < 1)
        return err_set(ERR_ARG, "Batcher: a model, a batch size of at least 1 and the widths "
                                "are needed (batch size %lld)",
                       (long long)batch_size);
    TRY(module_to(model, device)); /* model.eval().to(device) */
    module_train(model, false);
    BatcherState *b = malloc(sizeof *b);
    if (!b) return err_set(ERR_NOMEM, "Batcher: out of memory");
    b->model = model;
    b->device = device;
    b->batch_size = batch_size;
    b->in_features = in_features;
    b->out_features = out_features;
    return callable_new(&batcher_class, b, out);
}
