/**
 * @file dist.h
 * @brief A process group: the processes of one training run and what they say to each other.
 *
 * PyTorch's `torch.distributed` in C, on existing engines: MPI (Open MPI)
 * between processes and machines, NCCL between GPUs. A program is started
 * several times at once by a launcher (`mpirun -np 2 prog`, or PyTorch's
 * `torchrun`); each copy is a *rank*, 0 to world - 1, and dist_init() makes
 * the group they form (`dist.init_process_group()`). A *collective* is a call
 * that every rank of the group makes, in the same order, with the same sizes:
 * a broadcast copies rank 0's tensor to every rank, an all-reduce leaves the
 * sum of every rank's tensor on every rank. A rank that skips one leaves the
 * others waiting in it for ever, which is why a launcher needs a time limit
 * (launch.h).
 *
 * Where the tensors live decides the engine: host memory goes to MPI
 * (`MPI_Allreduce`); GPU memory goes to the device's own engine when the
 * backend table has one (NCCL's `ncclAllReduce`, backend.h), and otherwise is
 * staged through host memory to MPI (the CUDA simulator, whose device memory
 * the host may not read, and a GPU build without NCCL): the same sums, and
 * ProcessGroup::staged says so. A build without MPI has a group of one
 * process, in which every collective leaves its tensor as it is.
 */
#ifndef WB_DIST_H
#define WB_DIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/device/tensor.h"
#include "lib/nn/module.h"

/** The engine of a process group (dist_engine.h): MPI, or one process alone. */
typedef struct DistEngine DistEngine;

/** The processes of one run, as this process sees them (`torch.distributed`'s default group). */
typedef struct ProcessGroup {
    int rank;             /**< this process, 0 .. world - 1 (`dist.get_rank()`) */
    int world;            /**< how many processes (`dist.get_world_size()`) */
    int local_rank;       /**< this process among those on its machine (`LOCAL_RANK`) */
    int local_world;      /**< how many of them run on this machine */
    Device device;        /**< where this rank trains: the CPU, or its own GPU */
    char host[64];        /**< the machine's name */
    char engine[160];     /**< what carries the collectives, in words */
    bool staged;          /**< device memory goes through host copies to MPI (no NCCL) */
    const DistEngine *ops; /**< the engine (internal) */
    void *impl;           /**< the engine's state (internal) */
    void *device_comm;    /**< the device engine's communicator (an ncclComm_t), or NULL */
    float *stage;         /**< host memory for staged collectives (internal) */
    size_t stage_bytes;   /**< its size */
} ProcessGroup;

/** An all-reduce started by dist_all_reduce_start() and not yet waited for. */
typedef struct DistWork DistWork;

/** How dist_reduce_f64() combines the ranks' values. */
typedef enum DistOp {
    DIST_SUM, /**< the sum */
    DIST_MAX, /**< the largest */
    DIST_MIN  /**< the smallest */
} DistOp;

/** @brief Whether this build talks MPI (false: every group is one process). */
bool dist_mpi_built(void);

/**
 * @brief `dist.init_process_group()`: join the group of the processes a launcher started.
 *
 * @p device is where this rank trains: "cpu", "cuda" (the GPU of the rank's
 * local rank among the visible ones, as `torch.cuda.set_device(local_rank)`
 * does) or "cuda:N". A process started without a launcher is a group of one.
 * On a GPU with a collective engine (NCCL) the ranks make its communicator
 * here. Call it once per process; dist_finalize() ends the group. Errors: a
 * second call, a device this machine lacks, MPI's and NCCL's own failures.
 */
WB_MUST_CHECK int dist_init(const char *device, ProcessGroup **out);

/**
 * @brief `dist.destroy_process_group()`: leave the group and release @p pg; NULL is allowed.
 *
 * Every rank calls it, after its last collective.
 */
void dist_finalize(ProcessGroup *pg);

/** @brief Wait until every rank of @p pg has called it (`dist.barrier()`). */
WB_MUST_CHECK int dist_barrier(ProcessGroup *pg);

/**
 * @brief `dist.broadcast(t, src=root)`: every rank's @p t gets rank @p root's values.
 *
 * Any dtype; every rank passes a tensor of the same size. On a GPU it is
 * queued (NCCL) or staged through the host.
 */
WB_MUST_CHECK int dist_broadcast(ProcessGroup *pg, Tensor *t, int root);

/**
 * @brief `dist.all_reduce(t)`: every rank's f32 tensor @p t becomes the sum over the ranks.
 *
 * The sum's order is the engine's (MPI's and NCCL's reduction trees), the same
 * on every rank, so every rank gets the same bits.
 */
WB_MUST_CHECK int dist_all_reduce_sum(ProcessGroup *pg, Tensor *t);

/**
 * @brief dist_all_reduce_sum() without waiting (`dist.all_reduce(t, async_op=True)`).
 *
 * Returns at once with @p *work; @p t must stay untouched until dist_wait().
 * On the CPU, MPI moves the data when the rank calls into it (dist_test() or
 * dist_wait()); on a GPU, NCCL's stream does, beside the compute.
 */
WB_MUST_CHECK int dist_all_reduce_start(ProcessGroup *pg, Tensor *t, DistWork **work);

/** @brief Let a started all-reduce make progress; @p *done says whether it finished. */
WB_MUST_CHECK int dist_test(DistWork *work, bool *done);

/**
 * @brief Finish a started all-reduce (`work.wait()`) and release @p work; NULL is allowed.
 *
 * On a GPU, work queued afterwards waits for the sum.
 */
WB_MUST_CHECK int dist_wait(DistWork *work);

/** @brief Combine @p n doubles of host memory over the ranks, in place (timings, checksums). */
WB_MUST_CHECK int dist_reduce_f64(ProcessGroup *pg, double *v, int n, DistOp op);

/**
 * @brief `dist.all_gather_object()` for bytes: every rank's @p bytes at @p mine, in rank
 *        order, into @p all (world x @p bytes) on every rank.
 */
WB_MUST_CHECK int dist_all_gather(ProcessGroup *pg, const void *mine, size_t bytes, void *all);

/** How many all-reduces this process made (dist_counts()). */
typedef struct DistCounts {
    uint64_t all_reduces;     /**< dist_all_reduce_sum() and dist_all_reduce_start() calls */
    uint64_t floats_reduced;  /**< the floats of their tensors, all together */
    const void *last_reduced; /**< the data of the last tensor all-reduced, or NULL */
} DistCounts;

/**
 * @brief The all-reduces this process has made since it started (of tensors that passed
 *        the calls' checks).
 *
 * Never reset: compare two readings. Like the counters of counters.h, it
 * makes communication visible (one all-reduce per bucket per step, not one
 * per parameter), and lets tests check it.
 */
DistCounts dist_counts(void);

/** @brief `t.mul_(f)` for an f32 tensor on its device (the division after an all-reduce). */
WB_MUST_CHECK int dist_scale(Tensor *t, float f);

/* ---- Exercise of Lesson 06 (lessons/06_data_parallel/exercises.c) --------------------- */

/**
 * @brief Exercise 06.4: the same start everywhere: rank @p root's parameters on every rank.
 *
 * Broadcasts the value of every parameter of @p model (module_parameters(),
 * in that order, which is the same on every rank because every rank built the
 * same model) from rank @p root with dist_broadcast(). Gradients are not
 * sent. What DistributedDataParallel's constructor does, so that training
 * starts from one set of weights even where each rank drew its own. Every
 * rank calls it. A @p root < 0 or >= the world size is an ::ERR_ARG.
 */
WB_MUST_CHECK int dist_broadcast_parameters(ProcessGroup *pg, Module *model, int root);

#endif /* WB_DIST_H */
