/**
 * @file loader.h
 * @brief Mini-batches for training: PyTorch's `DataLoader`, with shuffling, pinned memory
 *        and a background worker.
 *
 * A ::Loader cuts a dataset held on the CPU, x (n, d) and labels y (n),
 * into batches of batch_size rows (the last one shorter, or dropped with
 * drop_last) and hands each to the caller on the training device. With
 * shuffle, epoch e visits the rows in an order drawn from (seed, e) alone, so
 * the order of any epoch is the same on every run and on every machine, and
 * a run resumed at epoch e sees exactly the batches an uninterrupted run
 * would: the loader has no hidden state to checkpoint.
 *
 * Preparing a batch is a gather (the rows of a column-major matrix are
 * strided) into a staging buffer, then one copy to the device.
 * `num_workers = 1` prepares the next batch in a background thread while
 * the caller trains on this one (PyTorch's num_workers); `pin_memory` makes
 * the staging buffers pinned host memory, so the copy to a GPU goes by DMA
 * without a bounce buffer (PyTorch's pin_memory). Either way the batches and
 * their order are the same.
 */
#ifndef WB_LOADER_H
#define WB_LOADER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/device/tensor.h"

/** How a loader cuts and delivers batches. */
typedef struct LoaderOptions {
    int64_t batch_size; /**< rows per batch, at least 1 */
    bool shuffle;       /**< visit the rows in a new order each epoch */
    bool drop_last;     /**< drop a last batch shorter than batch_size */
    uint64_t seed;      /**< epoch e's order comes from (seed, e) */
    int num_workers;    /**< 0: batches are made when asked; 1: one ahead, in a thread */
    bool pin_memory;    /**< stage batches in pinned memory (only with a CUDA device) */
} LoaderOptions;

/**
 * What decides which rows an epoch visits, and in what order: PyTorch's `Sampler`.
 *
 * A loader made with one (loader_new_sampled()) visits in epoch e the rows
 * that rows(self, e, ...) gives, instead of all rows, shuffled or not, by
 * itself. Lesson 06's DistributedSampler (lib/dist/sampler.h) gives each
 * process its own shard of every epoch this way.
 */
typedef struct Sampler {
    void *self; /**< the sampler's state, handed to both functions */
    /** Rows per epoch (`len(sampler)`): the same for every epoch. */
    int64_t (*len)(const void *self);
    /** Epoch @p epoch's rows, in order, into @p rows (len() of them): `set_epoch`, then `iter`. */
    int (*rows)(void *self, long epoch, int32_t *rows);
} Sampler;

/** A batch: features (rows, d) f32 and labels (rows) i32 on the loader's device. */
typedef struct Batch {
    const Tensor *x; /**< features; valid until the next loader_next() */
    const Tensor *y; /**< labels */
    int64_t index;   /**< 0 for the first batch of the epoch */
} Batch;

/** A data loader (opaque). */
typedef struct Loader Loader;

/**
 * @brief Make a loader over @p x (n, d) f32 and @p y (n) i32, both on the CPU.
 *
 * The loader keeps pointers to @p x and @p y (they must outlive it) and
 * delivers batches on @p device. Errors: shapes that do not match, a batch
 * size below 1, num_workers other than 0 or 1, pin_memory without a CUDA
 * device.
 */
WB_MUST_CHECK int loader_new(const Tensor *x, const Tensor *y, Device device, const LoaderOptions *options,
               Loader **out);

/**
 * @brief loader_new() whose epochs visit the rows @p sampler gives (`DataLoader(...,
 *        sampler=...)`), batch_size at a time.
 *
 * The sampler outlives the loader. As in PyTorch a sampler and shuffle exclude
 * each other (::ERR_ARG); drop_last applies to the sampler's rows. A row
 * outside the dataset is an ::ERR_ARG of loader_begin().
 */
WB_MUST_CHECK int loader_new_sampled(const Tensor *x, const Tensor *y, Device device,
                                     const LoaderOptions *options, Sampler sampler,
                                     Loader **out);

/** @brief Stop the worker and release everything; NULL is allowed. */
void loader_free(Loader *loader);

/** @brief Batches per epoch. */
int64_t loader_batches(const Loader *loader);

/** @brief Rows per epoch (n, or fewer with drop_last). */
int64_t loader_rows(const Loader *loader);

/** @brief The seed the epochs' orders come from (what a checkpoint records of the loader). */
uint64_t loader_seed(const Loader *loader);

/**
 * @brief Start epoch @p epoch (from 1): fix its order and, with a worker, start preparing.
 *
 * An epoch may be abandoned before its last batch; the next loader_begin()
 * starts afresh.
 */
WB_MUST_CHECK int loader_begin(Loader *loader, long epoch);

/**
 * @brief The next batch of the epoch, on the device; @p *done is true when there is none.
 *
 * The tensors in @p batch belong to the loader and stay valid until the
 * next call.
 */
WB_MUST_CHECK int loader_next(Loader *loader, Batch *batch, bool *done);

/**
 * @brief The order of the rows in epoch @p epoch of a loader with these options: the
 *        permutation loader_begin() uses, written to @p order (n values).
 */
void loader_order(const LoaderOptions *options, int64_t n, long epoch, int32_t *order);

#endif /* WB_LOADER_H */
