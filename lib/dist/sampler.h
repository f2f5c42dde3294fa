/**
 * @file sampler.h
 * @brief PyTorch's `DistributedSampler`: each rank its own shard of every epoch.
 *
 * Every rank holds the whole dataset and the same sampler settings. In epoch
 * e all of them shuffle the n rows the same way (the order comes from the
 * shared seed and e alone: loader_order(), the order a shuffling loader with
 * that seed uses), make the order a multiple of the world size (PyTorch's
 * rules: repeat rows from its start, or with drop_last cut its tail), and
 * rank r takes every world-th row from position r. So the shards of an epoch
 * are disjoint, they cover the epoch, and every rank has the same number of
 * rows and therefore takes the same number of steps (a rank with one step
 * more would wait alone in its all-reduce).
 *
 * With batch b per rank, step k of rank r uses positions r, r + world, ... of
 * the order's slice [k b world, (k + 1) b world): together the ranks train on
 * exactly the rows one process with batch b x world would, which is why two
 * ranks with batch B are the same training as one with 2B (Lesson 06).
 */
#ifndef WB_SAMPLER_H
#define WB_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/train/loader.h"

/** A DistributedSampler's settings and its epoch. */
typedef struct DistSampler {
    int64_t n;        /**< rows of the dataset */
    int world;        /**< how many ranks share it (`num_replicas`) */
    int rank;         /**< which of them this is */
    bool shuffle;     /**< a new order each epoch (false: 0, 1, ..., n - 1) */
    uint64_t seed;    /**< the order of epoch e comes from (seed, e): the same on every rank */
    bool drop_last;   /**< cut the order's tail instead of repeating its start */
    long epoch;       /**< set by dist_sampler_set_epoch() */
    int32_t *order;   /**< the epoch's whole order (n rows), scratch */
} DistSampler;

/**
 * @brief `DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle, seed, drop_last)`.
 *
 * Errors: n below 0 or at 2^31 and beyond, world below 1, rank outside 0 ..
 * world - 1 (::ERR_ARG); release with dist_sampler_free().
 */
WB_MUST_CHECK int dist_sampler_init(DistSampler *s, int64_t n, int world, int rank, bool shuffle,
                                    uint64_t seed, bool drop_last);

/** @brief Release what dist_sampler_init() allocated; a zeroed sampler is allowed. */
void dist_sampler_free(DistSampler *s);

/**
 * @brief Rows per rank and epoch (`len(sampler)`, PyTorch's `num_samples`): ceil(n / world),
 *        or with drop_last floor(n / world).
 */
int64_t dist_shard_len(int64_t n, int world, bool drop_last);

/** @brief dist_shard_len() of @p s's settings. */
int64_t dist_sampler_len(const DistSampler *s);

/**
 * @brief `sampler.set_epoch(epoch)`: the epoch whose order dist_sampler_rows() gives.
 *
 * Forgetting it in PyTorch gives every epoch the first epoch's order; a loader
 * made with dist_sampler_loader() passes its epoch itself.
 */
void dist_sampler_set_epoch(DistSampler *s, long epoch);

/** @brief The whole order of epoch @p epoch (@p n rows), the same on every rank. */
void dist_sampler_order(const DistSampler *s, long epoch, int32_t *order);

/**
 * @brief `list(iter(sampler))`: this rank's rows of the epoch set last, dist_sampler_len()
 *        of them, into @p rows (through exercise 06.1).
 */
WB_MUST_CHECK int dist_sampler_rows(DistSampler *s, int32_t *rows);

/**
 * @brief `DataLoader(dataset, batch_size, sampler=sampler)`: a loader over @p x and @p y
 *        whose epoch e is @p s's shard of epoch e (loader_new_sampled()).
 *
 * @p o->shuffle must be false (the sampler shuffles); @p s must outlive the loader.
 */
WB_MUST_CHECK int dist_sampler_loader(DistSampler *s, const Tensor *x, const Tensor *y,
                                      Device device, const LoaderOptions *o, Loader **out);

/* ---- Exercise of Lesson 06 (lessons/06_data_parallel/exercises.c) --------------------- */

/**
 * @brief Exercise 06.1: rank @p rank's shard of an epoch whose order is @p order (@p n rows).
 *
 * PyTorch's DistributedSampler.__iter__ after the shuffle. With
 * len = dist_shard_len(n, world, drop_last) and total = len x world: without
 * drop_last the order is made total long by repeating it from its start
 * (position i of the long order is order[i % n], as often as needed); with
 * drop_last it is cut to its first total rows. The shard is then positions
 * rank, rank + world, rank + 2 world, ... of that order: len rows, written to
 * @p shard. n = 0 gives an empty shard. Errors (::ERR_ARG): n < 0, world < 1,
 * rank < 0 or rank >= world. Returns 0.
 */
WB_MUST_CHECK int dist_shard(const int32_t *order, int64_t n, int world, int rank, bool drop_last,
                             int32_t *shard);

#endif /* WB_SAMPLER_H */
