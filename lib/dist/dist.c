/* dist.c: a process group's collectives, each sent to where its tensor lives:
 * host memory to the group's engine (MPI), GPU memory to the device's own
 * engine (NCCL) or staged through host memory. No MPI here (dist_mpi.c). */
#include "lib/dist/dist.h"

#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/device/backend.h"
#include "lib/dist/dist_engine.h"

struct DistWork {
    ProcessGroup *pg;
    Tensor *t;
    void *req;     /* the engine's request, NULL once finished */
    float *staged; /* a host copy of a device tensor, copied back at the end (or NULL) */
    bool queued;   /* on the device's engine (NCCL): finished by comm_wait */
};

/* What dist_counts() reports: kept here, never reset, so a caller compares two readings. */
static DistCounts counts;

DistCounts dist_counts(void)
{
    return counts;
}

/* An all-reduce of @p t is about to be sent. */
static void count_all_reduce(const Tensor *t)
{
    counts.all_reduces++;
    counts.floats_reduced += (uint64_t)t->numel;
    counts.last_reduced = t->data;
}

static int group_ok(const ProcessGroup *pg, const char *op)
{
    if (!pg || !pg->ops) return err_set(ERR_ARG, "%s: no process group (dist_init first)", op);
    return ERR_OK;
}

/* Whether @p t goes to the device's own engine (NCCL) rather than to MPI. */
static bool device_engine(const ProcessGroup *pg, const Tensor *t)
{
    return pg->device_comm && !device_is_host(t->device) && device_equal(t->device, pg->device);
}

/* The group's host buffer for staging @p bytes of device memory. */
static int stage(ProcessGroup *pg, size_t bytes)
{
    if (bytes <= pg->stage_bytes) return ERR_OK;
    float *p = realloc(pg->stage, bytes);
    if (!p) return err_set(ERR_NOMEM, "dist: out of memory for %zu bytes of staging", bytes);
    pg->stage = p;
    pg->stage_bytes = bytes;
    return ERR_OK;
}

int dist_barrier(ProcessGroup *pg)
{
    TRY(group_ok(pg, "dist_barrier"));
    return pg->ops->barrier(pg);
}

int dist_broadcast(ProcessGroup *pg, Tensor *t, int root)
{
    TRY(group_ok(pg, "dist_broadcast"));
    if (!t) return err_set(ERR_ARG, "dist_broadcast: NULL tensor");
    if (root < 0 || root >= pg->world)
        return err_set(ERR_ARG, "dist_broadcast: root %d, but the ranks are 0 to %d", root,
                       pg->world - 1);
    size_t bytes = (size_t)t->numel * dtype_size(t->dtype);
    if (bytes == 0) return ERR_OK;
    if (device_is_host(t->device)) return pg->ops->broadcast(pg, t->data, bytes, root);
    const BackendOps *ops = tensor_ops(t);
    if (device_engine(pg, t)) {
        TRY(ops->comm_broadcast(pg->device_comm, t->device, t->data, bytes, root));
        return ops->comm_wait(t->device);
    }
    TRY(stage(pg, bytes));
    TRY(device_copy(pg->stage, device_cpu(), t->data, t->device, bytes));
    TRY(pg->ops->broadcast(pg, pg->stage, bytes, root));
    return device_copy(t->data, t->device, pg->stage, device_cpu(), bytes);
}

static int check_f32(const Tensor *t, const char *op)
{
    if (!t) return err_set(ERR_ARG, "%s: NULL tensor", op);
    if (t->dtype != DTYPE_F32)
        return err_set(ERR_SHAPE, "%s: the tensor is %s; the sum is of float32 tensors", op,
                       dtype_name(t->dtype));
    return ERR_OK;
}

int dist_all_reduce_sum(ProcessGroup *pg, Tensor *t)
{
    TRY(group_ok(pg, "dist_all_reduce_sum"));
    TRY(check_f32(t, "dist_all_reduce_sum"));
    count_all_reduce(t);
    if (t->numel == 0) return ERR_OK;
    if (device_is_host(t->device)) return pg->ops->all_reduce(pg, tensor_f32(t), t->numel);
    const BackendOps *ops = tensor_ops(t);
    if (device_engine(pg, t)) {
        TRY(ops->comm_all_reduce(pg->device_comm, t->device, tensor_f32(t), t->numel));
        return ops->comm_wait(t->device);
    }
    size_t bytes = (size_t)t->numel * sizeof(float);
    TRY(stage(pg, bytes));
    TRY(device_copy(pg->stage, device_cpu(), t->data, t->device, bytes));
    TRY(pg->ops->all_reduce(pg, pg->stage, t->numel));
    return device_copy(t->data, t->device, pg->stage, device_cpu(), bytes);
}

int dist_all_reduce_start(ProcessGroup *pg, Tensor *t, DistWork **work)
{
    *work = NULL;
    TRY(group_ok(pg, "dist_all_reduce_start"));
    TRY(check_f32(t, "dist_all_reduce_start"));
    count_all_reduce(t);
    DistWork *w = calloc(1, sizeof *w);
    if (!w) return err_set(ERR_NOMEM, "dist_all_reduce_start: out of memory");
    w->pg = pg;
    w->t = t;
    int rc = ERR_OK;
    size_t bytes = (size_t)t->numel * sizeof(float);
    if (t->numel == 0) {
        /* nothing to send */
    } else if (device_is_host(t->device)) {
        TRY_OR_DONE(pg->ops->all_reduce_start(pg, tensor_f32(t), t->numel, &w->req));
    } else if (device_engine(pg, t)) {
        TRY_OR_DONE(tensor_ops(t)->comm_all_reduce(pg->device_comm, t->device, tensor_f32(t),
                                                   t->numel));
        w->queued = true;
    } else {
        if (!(w->staged = malloc(bytes)))
            TRY_OR_DONE(err_set(ERR_NOMEM, "dist: out of memory for %zu bytes of staging",
                                bytes));
        TRY_OR_DONE(device_copy(w->staged, device_cpu(), t->data, t->device, bytes));
        TRY_OR_DONE(pg->ops->all_reduce_start(pg, w->staged, t->numel, &w->req));
    }
done:
    if (rc) {
        free(w->staged);
        free(w);
        return rc;
    }
    *work = w;
    return ERR_OK;
}

int dist_test(DistWork *w, bool *done)
{
    *done = true;
    if (!w || !w->req) return ERR_OK;
    TRY(w->pg->ops->test(w->req, done));
    if (*done) w->req = NULL;
    return ERR_OK;
}

int dist_wait(DistWork *w)
{
    if (!w) return ERR_OK;
    int rc = ERR_OK;
    if (w->req) TRY_OR_DONE(w->pg->ops->wait(w->req));
    w->req = NULL;
    if (w->queued) TRY_OR_DONE(tensor_ops(w->t)->comm_wait(w->t->device));
    if (w->staged)
        TRY_OR_DONE(device_copy(w->t->data, w->t->device, w->staged, device_cpu(),
                                (size_t)w->t->numel * sizeof(float)));
done:
    free(w->staged);
    free(w);
    return rc;
}

int dist_reduce_f64(ProcessGroup *pg, double *v, int n, DistOp op)
{
    TRY(group_ok(pg, "dist_reduce_f64"));
    if (n <= 0) return ERR_OK;
    return pg->ops->reduce_f64(pg, v, n, op);
}

int dist_all_gather(ProcessGroup *pg, const void *mine, size_t bytes, void *all)
{
    TRY(group_ok(pg, "dist_all_gather"));
    return pg->ops->all_gather(pg, mine, bytes, all);
}

int dist_scale(Tensor *t, float f)
{
    TRY(check_f32(t, "dist_scale"));
    if (t->numel == 0) return ERR_OK;
    return tensor_ops(t)->scale(t->device, tensor_f32(t), t->numel, f);
}
