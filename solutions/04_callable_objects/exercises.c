/*
 * Lesson 04 exercises: reference answers. Same functions as
 * lessons/04_callable_objects/exercises.c.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/nn/batcher.h"
#include "lib/core/callable.h"
#include "lib/core/err.h"
#include "lib/nn/module.h"

/* ex04.1 The Counter's __call__ ------------------------------------------------- */

int counter_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)args, (void)nargs;
    CounterState *c = state;
    c->count++; /* the state survives between calls: that is the point */
    *out = value_int(c->count);
    return 0;
}

/* ex04.2 functools.partial ---------------------------------------------------------- */

int partial_call(void *state, const Value *args, int nargs, Value *out)
{
    PartialState *p = state;
    if (p->nbound + nargs > CALLABLE_MAX_ARGS)
        return err_set(ERR_ARG, "%d bound and %d new arguments: at most %d in all", p->nbound,
                       nargs, CALLABLE_MAX_ARGS);
    Value all[CALLABLE_MAX_ARGS];
    /* bound first, then this call's (args may be NULL when nargs is 0) */
    for (int i = 0; i < p->nbound; i++) all[i] = p->bound[i];
    for (int i = 0; i < nargs; i++) all[p->nbound + i] = args[i];
    return callable_call(p->inner, all, p->nbound + nargs, out);
}

/* ex04.3 The module call protocol ------------------------------------------------------ */

/* A hook's result: None keeps the tensor, a pointer replaces it. */
static int take(const Value *r, const Tensor **t, const char *kind, int i, const Module *m)
{
    if (r->kind == VALUE_PTR && r->as.p) {
        *t = r->as.p;
        return 0;
    }
    if (r->kind == VALUE_NONE) return 0;
    return err_set(ERR_ARG, "%s %d of %s: returned a %s; a hook returns None or a tensor", kind,
                   i, m->label, value_kind_name(r->kind));
}

int module_call_hooks(Module *m, const Tensor *x, const Tensor **y)
{
    const Tensor *input = x, *output;
    for (int i = 0; i < m->n_pre_hooks; i++) {
        Value args[2] = {value_ptr(m), value_ptr((void *)input)}, r = value_none();
        if (callable_call(m->pre_hooks[i].fn, args, 2, &r) != 0)
            return err_context("forward pre-hook %d of %s", i + 1, m->label);
        TRY(take(&r, &input, "forward pre-hook", i + 1, m));
    }
    TRY(module_forward(m, input, &output));
    for (int i = 0; i < m->n_hooks; i++) {
        Value args[3] = {value_ptr(m), value_ptr((void *)input), value_ptr((void *)output)};
        Value r = value_none();
        if (callable_call(m->hooks[i].fn, args, 3, &r) != 0)
            return err_context("forward hook %d of %s", i + 1, m->label);
        TRY(take(&r, &output, "forward hook", i + 1, m));
    }
    *y = output;
    return 0;
}

/* ex04.4 The batching callable ----------------------------------------------------------- */

int batcher_forward(BatcherState *b, const Tensor *x, Tensor *out)
{
    int64_t n = x->shape[0];
    bool was = module_grad_enabled();
    module_set_grad_enabled(false); /* torch.no_grad(): keep nothing for backward */
    int rc = 0;
    for (int64_t start = 0; start < n && rc == 0; start += b->batch_size) {
        int64_t len = n - start < b->batch_size ? n - start : b->batch_size;
        Tensor *chunk = tensor_new_2d(len, b->in_features), *on = NULL, *back = NULL;
        const Tensor *y = NULL;
        rc = chunk ? tensor_copy_rows(x, start, len, chunk) : (int)err_code();
        if (rc == 0) rc = tensor_to(chunk, b->device, &on);    /* one copy per chunk */
        if (rc == 0) rc = module_call(b->model, on, &y);
        if (rc == 0) rc = tensor_to(y, device_cpu(), &back);
        if (rc == 0) rc = tensor_put_rows(out, start, back);     /* in order */
        tensor_free(chunk);
        tensor_free(on);
        tensor_free(back);
    }
    module_set_grad_enabled(was);
    return rc;
}
