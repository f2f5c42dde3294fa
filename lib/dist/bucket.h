/**
 * @file bucket.h
 * @brief Gradient buckets: many small all-reduces made into a few large ones.
 *
 * An all-reduce costs a fixed time per call (latency: the ranks meet, the
 * engine sets up) plus a time per byte. A model's gradients are many tensors,
 * some tiny (a bias of 10 floats); one all-reduce each would pay the fixed
 * cost again and again. PyTorch's DistributedDataParallel copies them into a
 * few flat *buckets* of at most `bucket_cap_mb` megabytes, all-reduces each
 * bucket once, and copies the sums back: Lesson 03's fixed-cost argument,
 * now for communication.
 *
 * buckets_make() assigns the parameters as PyTorch does: in the reverse of
 * module_parameters() order (backward produces the last layer's gradients
 * first, so the first bucket is ready first), a parameter whole in one bucket,
 * a new bucket when the next one would not fit (a parameter larger than the
 * cap gets a bucket of its own). Each bucket's flat tensor lives on the
 * parameters' device.
 */
#ifndef WB_BUCKET_H
#define WB_BUCKET_H

#include <stddef.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/dist/dist.h"
#include "lib/nn/module.h"

/** One parameter's place in a bucket. */
typedef struct BucketEntry {
    Param *param;   /**< whose gradient (param->grad, numel floats) */
    int64_t offset; /**< where it starts in the bucket's flat tensor, in floats */
} BucketEntry;

/** A bucket: some parameters' gradients, side by side in one flat tensor. */
typedef struct Bucket {
    BucketEntry *entries; /**< its parameters, in the order they were assigned */
    int n_entries;        /**< how many */
    int64_t numel;        /**< floats in @ref flat */
    Tensor *flat;         /**< (numel) f32, on the parameters' device */
    int pending;          /**< overlap: parameters whose gradients are not final yet */
    DistWork *work;       /**< overlap: its all-reduce in flight, or NULL */
} Bucket;

/**
 * @brief Assign @p model's parameters to buckets of at most @p cap_bytes of gradients.
 *
 * @p *out gets @p *n buckets (free them with buckets_free()). A model without
 * parameters gets none. A cap of 0 is an ::ERR_ARG.
 */
WB_MUST_CHECK int buckets_make(Module *model, size_t cap_bytes, Bucket **out, int *n);

/** @brief Release @p n buckets from buckets_make(); NULL is allowed. */
void buckets_free(Bucket *b, int n);

/**
 * @brief After backward: every bucket flattened, averaged over the ranks and unflattened,
 *        one after the other (exercises 06.2 and 06.3), so that every rank holds the mean
 *        of the ranks' gradients.
 */
WB_MUST_CHECK int buckets_reduce(ProcessGroup *pg, Bucket *b, int n);

/* ---- Exercises of Lesson 06 (lessons/06_data_parallel/exercises.c) -------------------- */

/**
 * @brief Exercise 06.2: copy each entry's gradient into the bucket's flat tensor.
 *
 * For every entry e of @p b: the e.param->grad->numel floats of e.param->grad
 * go to b->flat at float e.offset, with device_copy() (the gradients and the
 * flat tensor may be GPU memory, which the CPU must not touch). Floats of the
 * flat tensor that no entry covers are left as they are; the gradients are
 * only read. Returns 0.
 */
WB_MUST_CHECK int bucket_flatten(Bucket *b);

/**
 * @brief Exercise 06.2: the way back: each entry's floats of the flat tensor into its
 *        gradient (overwriting it), with device_copy(). The flat tensor is only read.
 *        Returns 0.
 */
WB_MUST_CHECK int bucket_unflatten(const Bucket *b);

/**
 * @brief Exercise 06.3: average the bucket over the ranks: b->flat becomes the sum over
 *        the ranks (dist_all_reduce_sum()), then that sum divided by the world size
 *        (dist_scale()), so that every rank holds the mean of the ranks' flat tensors.
 *
 * Every rank calls it for the same buckets in the same order: one that does
 * not leaves the others waiting in the all-reduce. Returns 0.
 */
WB_MUST_CHECK int bucket_average(ProcessGroup *pg, Bucket *b);

#endif /* WB_BUCKET_H */
