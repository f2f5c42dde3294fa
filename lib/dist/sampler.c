/* sampler.c: PyTorch's DistributedSampler over lib's per-epoch orders. */
#include "lib/dist/sampler.h"

#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"

int64_t dist_shard_len(int64_t n, int world, bool drop_last)
{
    if (n <= 0 || world < 1) return 0;
    return drop_last ? n / world : (n + world - 1) / world;
}

int dist_sampler_init(DistSampler *s, int64_t n, int world, int rank, bool shuffle,
                      uint64_t seed, bool drop_last)
{
    memset(s, 0, sizeof *s);
    if (n < 0 || n > INT32_MAX)
        return err_set(ERR_ARG, "DistributedSampler: a dataset of %lld rows (0 to 2^31 - 1 "
                                "allowed)",
                       (long long)n);
    if (world < 1 || rank < 0 || rank >= world)
        return err_set(ERR_ARG, "DistributedSampler: rank %d of %d; the ranks are 0 to "
                                "num_replicas - 1",
                       rank, world);
    s->order = malloc(sizeof *s->order * (size_t)(n ? n : 1));
    if (!s->order) return err_set(ERR_NOMEM, "DistributedSampler: out of memory");
    s->n = n, s->world = world, s->rank = rank, s->shuffle = shuffle, s->seed = seed;
    s->drop_last = drop_last;
    s->epoch = 1;
    return ERR_OK;
}

void dist_sampler_free(DistSampler *s)
{
    if (!s) return;
    free(s->order);
    s->order = NULL;
}

int64_t dist_sampler_len(const DistSampler *s)
{
    return dist_shard_len(s->n, s->world, s->drop_last);
}

void dist_sampler_set_epoch(DistSampler *s, long epoch)
{
    s->epoch = epoch;
}

void dist_sampler_order(const DistSampler *s, long epoch, int32_t *order)
{
    LoaderOptions o = {.batch_size = 1, .shuffle = s->shuffle, .seed = s->seed};
    loader_order(&o, s->n, epoch, order);
}

int dist_sampler_rows(DistSampler *s, int32_t *rows)
{
    dist_sampler_order(s, s->epoch, s->order);
    EXERCISE("06.1", dist_shard, s->order, s->n, s->world, s->rank, s->drop_last, rows);
    return ERR_OK;
}

/* The loader's view of the sampler (loader.h's Sampler). */
static int64_t as_len(const void *self)
{
    return dist_sampler_len(self);
}

static int as_rows(void *self, long epoch, int32_t *rows)
{
    dist_sampler_set_epoch(self, epoch); /* what PyTorch leaves to the training loop */
    return dist_sampler_rows(self, rows);
}

int dist_sampler_loader(DistSampler *s, const Tensor *x, const Tensor *y, Device device,
                        const LoaderOptions *o, Loader **out)
{
    *out = NULL;
    if (x && x->ndim >= 1 && x->shape[0] != s->n)
        return err_set(ERR_SHAPE, "DistributedSampler: made for %lld rows, the dataset has %lld",
                       (long long)s->n, (long long)x->shape[0]);
    Sampler view = {s, as_len, as_rows};
    return loader_new_sampled(x, y, device, o, view, out);
}
