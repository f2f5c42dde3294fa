/**
 * @file ddp.h
 * @brief `DistributedDataParallel`: a module that wraps a model and averages its gradients.
 *
 * `model = DDP(model)` in PyTorch, ddp_new() here. The wrapper is a module
 * like any other (module.h): calling it (module_call()) calls the wrapped
 * model, so a training loop, the trainer of Lesson 05 included, runs it
 * unchanged. That is the `__call__` story of Lesson 04 once more: code that
 * calls `model(x)` does not care what the model does around its forward.
 * What the wrapper adds happens at two moments:
 *
 * - when it is made: every rank's parameters become rank 0's (exercise 06.4),
 *   so all ranks start from the same weights;
 * - after backward, before the optimizer step: every rank's gradients become
 *   the mean over the ranks, bucket by bucket (bucket.h, exercises 06.2 and
 *   06.3). Each rank computed them on its own shard of the batch, so the mean
 *   is the gradient of the whole global batch, and the identical optimizer
 *   steps keep the ranks' weights identical.
 *
 * Its backward is the wrapped model's backward followed by the averaging; with
 * overlap, each bucket's all-reduce starts as soon as backward has finished
 * its parameters (module_register_backward_hook()), while backward goes on
 * through the layers before them: PyTorch's way of hiding communication.
 *
 * Parameters are named as in PyTorch, "module." and the wrapped model's names
 * ("module.fc1.weight"): wrap on every world size, 1 included, and a
 * checkpoint of one run loads into another.
 */
#ifndef WB_DDP_H
#define WB_DDP_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/dist/bucket.h"
#include "lib/dist/dist.h"
#include "lib/nn/module.h"

/** How the wrapper exchanges gradients. */
typedef struct DdpOptions {
    double bucket_mb;  /**< the most mebibytes of gradients per bucket (PyTorch's bucket_cap_mb, 25) */
    bool overlap;      /**< start each bucket's all-reduce during backward, once it is ready */
    bool sync_timing;  /**< wait for the device at each phase, so that DdpStats are its times */
} DdpOptions;

/** Where a wrapper's time went, summed over the backward passes since the last reset. */
typedef struct DdpStats {
    long steps;        /**< backward passes */
    double forward_s;  /**< in the wrapped model's forward */
    double backward_s; /**< in its backward (with overlap: the all-reduces started in it too) */
    double comm_s;     /**< after backward until the gradients are averaged: the exchange
                            (with overlap: what was left of it) */
    int64_t bytes;     /**< gradient bytes averaged per pass */
    int buckets;       /**< buckets per pass */
} DdpStats;

/**
 * @brief `DistributedDataParallel(model)`: wrap @p model for the ranks of @p pg.
 *
 * Takes ownership of @p model (also when it fails: it is freed then), which
 * must already be on the rank's device, and broadcasts rank 0's parameters to
 * every rank (exercise 06.4): every rank calls it, with the same model.
 * @p o may be NULL for 25 MiB buckets (PyTorch's default bucket_cap_mb) without
 * overlap. (PyTorch's DDP always starts a bucket's all-reduce during backward; here
 * that is DdpOptions.overlap, off by default so that the lesson can time both.)
 * Returns NULL with the error set on failure.
 */
Module *ddp_new(ProcessGroup *pg, Module *model, const DdpOptions *o);

/** @brief Whether @p m is a wrapper made by ddp_new(). */
bool ddp_is(const Module *m);

/** @brief The wrapped model (`ddp.module`), or NULL when @p m is not a wrapper. */
Module *ddp_module(const Module *m);

/** @brief The wrapper's times and sizes (zero when @p m is not a wrapper). */
DdpStats ddp_stats(const Module *m);

/** @brief Start the wrapper's times again from zero. */
void ddp_reset_stats(Module *m);

/** @brief The wrapper's buckets (@p *n of them), or NULL when @p m is not a wrapper. */
const Bucket *ddp_buckets(const Module *m, int *n);

#endif /* WB_DDP_H */
