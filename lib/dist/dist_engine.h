/**
 * @file dist_engine.h
 * @brief What carries a process group's collectives on host memory: MPI, or one process.
 *
 * dist.c is written once over this table; dist_mpi.c fills it with MPI's calls
 * (or, in a build without MPI, with those of a group of one process) and is the
 * only file of lib that includes `mpi.h`. So a program that never starts a
 * group (dist_init()) never links MPI, and the exercises, which call dist.c's
 * collectives, link everywhere.
 */
#ifndef WB_DIST_ENGINE_H
#define WB_DIST_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/dist/dist.h"

/** The host-memory operations of an engine; every one returns an ::ErrCode. */
struct DistEngine {
    /** Wait for every rank. */
    int (*barrier)(ProcessGroup *pg);
    /** Copy @p bytes at @p p from rank @p root to every rank. */
    int (*broadcast)(ProcessGroup *pg, void *p, size_t bytes, int root);
    /** Sum @p n floats at @p p over the ranks, in place. */
    int (*all_reduce)(ProcessGroup *pg, float *p, int64_t n);
    /** Start that sum; @p *req is what test and wait take. */
    int (*all_reduce_start)(ProcessGroup *pg, float *p, int64_t n, void **req);
    /** Let a started sum progress; @p *done when it has finished (then @p req is released). */
    int (*test)(void *req, bool *done);
    /** Finish a started sum and release @p req. */
    int (*wait)(void *req);
    /** Combine @p n doubles over the ranks, in place. */
    int (*reduce_f64)(ProcessGroup *pg, double *v, int n, DistOp op);
    /** Every rank's @p bytes at @p mine into @p all, in rank order. */
    int (*all_gather)(ProcessGroup *pg, const void *mine, size_t bytes, void *all);
    /** Leave the group. */
    void (*finalize)(ProcessGroup *pg);
};

#endif /* WB_DIST_ENGINE_H */
