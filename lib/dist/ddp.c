/* ddp.c: DistributedDataParallel, a module around a model that averages its gradients. */
#define _POSIX_C_SOURCE 200809L
#include "lib/dist/ddp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/core/callable.h"
#include "lib/core/err.h"

typedef struct Ddp {
    ProcessGroup *pg;
    DdpOptions o;
    Bucket *buckets;
    int n_buckets;
    Param **params; /* every parameter, with the bucket it is in */
    int *bucket_of;
    int n_params;
    Callable ready;   /* the backward hook (overlap) */
    bool has_hook;
    bool in_backward; /* the hook counts only during the wrapper's own backward */
    int next_start;   /* overlap: the next bucket to start (buckets start in order) */
    DdpStats stats;
} Ddp;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The time now, after the device has finished, when the times must be the device's. */
static int mark(const Ddp *d, double *t)
{
    if (d->o.sync_timing) TRY(device_synchronize(d->pg->device));
    *t = now_s();
    return ERR_OK;
}

static int ddp_forward(Module *self, const Tensor *x, const Tensor **y)
{
    Ddp *d = self->impl;
    double t0, t1;
    TRY(mark(d, &t0));
    self->input = x;
    TRY(module_call(self->children[0], x, y));
    TRY(mark(d, &t1));
    d->stats.forward_s += t1 - t0;
    return ERR_OK;
}

/* Overlap: flatten bucket i and start its sum. */
static int start_bucket(Ddp *d, int i)
{
    Bucket *b = &d->buckets[i];
    EXERCISE("06.2", bucket_flatten, b);
    return dist_all_reduce_start(d->pg, b->flat, &b->work);
}

/* Overlap: start the buckets that are ready, in order (every rank starts them in the same
 * order: collectives must match), and let those in flight progress. */
static int start_ready(Ddp *d)
{
    while (d->next_start < d->n_buckets && d->buckets[d->next_start].pending == 0)
        TRY(start_bucket(d, d->next_start++));
    for (int i = 0; i < d->next_start; i++) {
        bool done;
        TRY(dist_test(d->buckets[i].work, &done));
    }
    return ERR_OK;
}

/* The backward hook: module m's gradients are final; its buckets may be ready. */
static int ready_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    Ddp *d = state;
    Module *m = args[0].as.p;
    *out = value_none();
    if (!d->in_backward) return ERR_OK;
    for (int k = 0; k < m->n_params; k++)
        for (int i = 0; i < d->n_params; i++)
            if (d->params[i] == &m->params[k]) d->buckets[d->bucket_of[i]].pending--;
    return start_ready(d);
}

static const CallableClass ready_class = {"DDPGradientsReady", 1, ready_call, NULL};

/* Overlap: the rest after backward: start what is left, wait, average, unflatten. */
static int finish_overlapped(Ddp *d)
{
    while (d->next_start < d->n_buckets) TRY(start_bucket(d, d->next_start++));
    for (int i = 0; i < d->n_buckets; i++) {
        Bucket *b = &d->buckets[i];
        DistWork *w = b->work;
        b->work = NULL;
        TRY(dist_wait(w));
        TRY(dist_scale(b->flat, 1.0f / (float)d->pg->world));
        EXERCISE("06.2", bucket_unflatten, b);
    }
    return ERR_OK;
}

static int ddp_backward(Module *self, const Tensor *dy, const Tensor **dx)
{
    Ddp *d = self->impl;
    double t0, t1, t2;
    if (d->o.overlap) {
        for (int i = 0; i < d->n_buckets; i++) d->buckets[i].pending = d->buckets[i].n_entries;
        d->next_start = 0;
    }
    TRY(mark(d, &t0));
    d->in_backward = true;
    int rc = module_backward(self->children[0], dy, dx);
    d->in_backward = false;
    TRY(rc);
    TRY(mark(d, &t1));
    if (d->o.overlap)
        TRY(finish_overlapped(d));
    else
        TRY(buckets_reduce(d->pg, d->buckets, d->n_buckets));
    TRY(mark(d, &t2));
    d->stats.steps++;
    d->stats.backward_s += t1 - t0;
    d->stats.comm_s += t2 - t1;
    return ERR_OK;
}

static void ddp_extra_repr(const Module *self, char *buf, size_t size)
{
    const Ddp *d = self->impl;
    snprintf(buf, size, "world_size=%d, buckets=%d, bucket_cap_mb=%g%s", d->pg->world,
             d->n_buckets, d->o.bucket_mb, d->o.overlap ? ", overlap=True" : "");
}

static void ddp_destroy(Module *self)
{
    Ddp *d = self->impl;
    if (!d) return;
    buckets_free(d->buckets, d->n_buckets);
    if (d->has_hook) callable_release(d->ready);
    free(d->params);
    free(d->bucket_of);
    free(d);
    self->impl = NULL;
}

static const ModuleOps ddp_ops = {
    .kind = "DistributedDataParallel",
    .forward = ddp_forward,
    .backward = ddp_backward,
    .extra_repr = ddp_extra_repr,
    .destroy = ddp_destroy,
};

/* Overlap: a backward hook on every module that has parameters of its own. */
static int hook_leaves(Ddp *d, Module *m)
{
    if (m->n_params > 0) TRY(module_register_backward_hook(m, d->ready, NULL));
    for (int i = 0; i < m->n_children; i++) TRY(hook_leaves(d, m->children[i]));
    return ERR_OK;
}

static int ddp_setup(Module *self, Ddp *d, Module *model)
{
    EXERCISE("06.4", dist_broadcast_parameters, d->pg, model, 0);
    double mb = d->o.bucket_mb > 0 ? d->o.bucket_mb : 25.0;
    size_t cap = (size_t)(mb * 1024.0 * 1024.0);
    TRY(buckets_make(model, cap ? cap : sizeof(float), &d->buckets, &d->n_buckets));
    int n = 0;
    for (int i = 0; i < d->n_buckets; i++) n += d->buckets[i].n_entries;
    d->params = malloc(sizeof *d->params * (size_t)(n ? n : 1));
    d->bucket_of = malloc(sizeof *d->bucket_of * (size_t)(n ? n : 1));
    if (!d->params || !d->bucket_of) return err_set(ERR_NOMEM, "DistributedDataParallel: out of memory");
    for (int i = 0; i < d->n_buckets; i++)
        for (int k = 0; k < d->buckets[i].n_entries; k++) {
            d->params[d->n_params] = d->buckets[i].entries[k].param;
            d->bucket_of[d->n_params++] = i;
            d->stats.bytes += d->buckets[i].entries[k].param->grad->numel * (int64_t)sizeof(float);
        }
    d->stats.buckets = d->n_buckets;
    if (d->o.overlap) {
        TRY(callable_new(&ready_class, d, &d->ready));
        d->has_hook = true;
        TRY(hook_leaves(d, model));
    }
    self->training = model->training;
    return ERR_OK;
}

Module *ddp_new(ProcessGroup *pg, Module *model, const DdpOptions *o)
{
    if (!pg || !model) {
        module_free(model);
        err_set(ERR_ARG, "DistributedDataParallel: a process group and a model are needed");
        return NULL;
    }
    Module *self = module_alloc(&ddp_ops, "");
    Ddp *d = calloc(1, sizeof *d);
    Module **kids = malloc(sizeof *kids);
    if (!self || !d || !kids) {
        module_free(self);
        module_free(model);
        free(d);
        free(kids);
        err_set(ERR_NOMEM, "DistributedDataParallel: out of memory");
        return NULL;
    }
    /* The wrapped model is the child called "module", as in PyTorch. */
    snprintf(model->name, sizeof model->name, "module");
    snprintf(model->label, sizeof model->label, "%s %s", model->ops->kind, model->name);
    kids[0] = model;
    self->children = kids;
    self->n_children = 1;
    d->pg = pg;
    if (o) d->o = *o;
    if (!(d->o.bucket_mb > 0)) d->o.bucket_mb = 25.0;
    self->impl = d;
    if (ddp_setup(self, d, model) != ERR_OK) {
        int code = err_context("DistributedDataParallel on rank %d", pg->rank);
        char why[512];
        snprintf(why, sizeof why, "%s", err_message());
        module_free(self); /* the model with it: it was given to the wrapper */
        err_set((ErrCode)code, "%s", why);
        return NULL;
    }
    return self;
}

bool ddp_is(const Module *m)
{
    return m && m->ops == &ddp_ops;
}

Module *ddp_module(const Module *m)
{
    return ddp_is(m) ? m->children[0] : NULL;
}

DdpStats ddp_stats(const Module *m)
{
    DdpStats none = {0};
    return ddp_is(m) ? ((const Ddp *)m->impl)->stats : none;
}

void ddp_reset_stats(Module *m)
{
    if (!ddp_is(m)) return;
    Ddp *d = m->impl;
    DdpStats kept = {0};
    kept.bytes = d->stats.bytes;
    kept.buckets = d->stats.buckets;
    d->stats = kept;
}

const Bucket *ddp_buckets(const Module *m, int *n)
{
    *n = 0;
    if (!ddp_is(m)) return NULL;
    const Ddp *d = m->impl;
    *n = d->n_buckets;
    return d->buckets;
}
