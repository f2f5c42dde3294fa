/*
 * Lesson 06 exercises: reference answers. Same functions as
 * lessons/06_data_parallel/exercises.c.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/core/err.h"
#include "lib/dist/bucket.h"
#include "lib/dist/dist.h"
#include "lib/dist/sampler.h"
#include "lib/nn/module.h"

/* ex06.1 The sampler's shard of an epoch ----------------------------------------- */

int dist_shard(const int32_t *order, int64_t n, int world, int rank, bool drop_last,
               int32_t *shard)
{
    if (n < 0 || world < 1 || rank < 0 || rank >= world)
        return err_set(ERR_ARG, "dist_shard: rank %d of %d over %lld rows", rank, world,
                       (long long)n);
    int64_t len = dist_shard_len(n, world, drop_last);
    /* Position i of the order made len * world long: order[i % n] (repeated from its
     * start without drop_last; with it, i stays below n). */
    for (int64_t k = 0; k < len; k++) shard[k] = order[(rank + k * world) % n];
    return ERR_OK;
}

/* ex06.2 Gradients into a bucket and back --------------------------------------- */

int bucket_flatten(Bucket *b)
{
    float *flat = tensor_f32(b->flat);
    for (int i = 0; i < b->n_entries; i++) {
        const Tensor *g = b->entries[i].param->grad;
        TRY(device_copy(flat + b->entries[i].offset, b->flat->device, tensor_f32(g), g->device,
                        sizeof(float) * (size_t)g->numel));
    }
    return ERR_OK;
}

int bucket_unflatten(const Bucket *b)
{
    const float *flat = tensor_f32(b->flat);
    for (int i = 0; i < b->n_entries; i++) {
        Tensor *g = b->entries[i].param->grad;
        TRY(device_copy(tensor_f32(g), g->device, flat + b->entries[i].offset, b->flat->device,
                        sizeof(float) * (size_t)g->numel));
    }
    return ERR_OK;
}

/* ex06.3 Averaging after the all-reduce ------------------------------------------- */

int bucket_average(ProcessGroup *pg, Bucket *b)
{
    TRY(dist_all_reduce_sum(pg, b->flat));               /* every rank: the sum */
    return dist_scale(b->flat, 1.0f / (float)pg->world); /* then the mean */
}

/* ex06.4 The broadcast at the start -------------------------------------------------- */

int dist_broadcast_parameters(ProcessGroup *pg, Module *model, int root)
{
    if (root < 0 || root >= pg->world)
        return err_set(ERR_ARG, "dist_broadcast_parameters: root %d, the ranks are 0 to %d",
                       root, pg->world - 1);
    int n = module_parameters(model, NULL, 0);
    ParamRef *refs = malloc(sizeof *refs * (size_t)(n ? n : 1));
    if (!refs) return err_set(ERR_NOMEM, "dist_broadcast_parameters: out of memory");
    module_parameters(model, refs, n);
    int rc = ERR_OK;
    for (int i = 0; i < n; i++) TRY_OR_DONE(dist_broadcast(pg, refs[i].param->value, root));
done:
    free(refs);
    return rc;
}
