/*
 * trace_check.h: a kernel's recorded accesses, checked and costed where no
 * student code runs (the JUDGE halves of exercise 03.4, ex03_4_transpose.c).
 *
 * The simulator's counters live in the runner's process, which the student's
 * code shares and can write; a counter the runner reports is no better than a
 * number the student typed. So the runner sends the trace instead: every load
 * and store the kernel made, in the order it made them, with its thread, its
 * code, its address and the value read or written (cudasim_trace_start(),
 * lib/cudasim/cudasim.h). The judge believes none of it until it holds
 * together:
 *  - replayed in order on memory the judge sets up itself (the drawn input,
 *    the output's fill), each load must read what memory held then, and the
 *    output the stores leave must be the right transpose and the output the
 *    runner copied back;
 *  - each value a thread stores it must have loaded before (a value moves
 *    from thread to thread only through memory the trace records);
 *  - nothing outside the input and the output, and nothing into the input;
 *  - no read of shared memory that no thread of the block has written, and no
 *    element of the output written by two blocks (on a GPU blocks run in any
 *    order, so which value stays would be luck).
 * Only then does the judge group the accesses into warp instructions (warp,
 * code, the n-th time the thread reached it) and cost them with the same
 * rules as the simulator's profiler (lib/cudasim/profile/warp_access.h). A forged
 * trace that passes must be a correct transpose, staged between threads
 * through shared memory with coalesced global accesses: the exercise itself,
 * written out access by access, which is more work than writing the kernel.
 * (A kernel that moves values between threads with warp shuffles, which the
 * trace does not see, fails the second rule: this exercise is the shared tile.)
 */
#ifndef WB_GRADED_TRACE_CHECK_H
#define WB_GRADED_TRACE_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cudasim/profile/warp_access.h"

#define TRACE_WORDS 12 /* per access: lib/cudasim/cudasim.h, CUDASIM_TRACE_WORDS */

typedef struct TraceAccess {
    uint32_t launch, block, tid;
    uint64_t code;                     /* the instruction's number << 16 | the piece of it */
    unsigned kind, shared, size;       /* kind: 0 load, 1 store, 2 atomic */
    uint64_t addr;                     /* shared: from the block's shared memory */
    uint8_t value[16];
    uint32_t order;                    /* its place in the trace */
    uint32_t instance;                 /* the n-th time its thread reached its code */
} TraceAccess;

/* A device buffer the kernel may touch, and the judge's copy of its contents. */
typedef struct TraceBuffer {
    const char *name;  /* "in", "out" */
    uint64_t base;     /* its address in the runner */
    int64_t floats;    /* how many floats the kernel may touch */
    int writable;
    uint8_t *now;      /* its bytes as the replay has them (floats * 4) */
    uint64_t *writer;  /* per float, or NULL: who last wrote it, (launch << 32 | block) + 1 */
} TraceBuffer;

/* What the warp instructions cost, and the first of each kind that is not ideal. */
typedef struct TraceCost {
    unsigned long long ld_req, ld_sec, ld_ideal, st_req, st_sec, st_ideal;
    unsigned long long sh_ld, sh_ld_wf, sh_ld_ideal, sh_st, sh_st_wf, sh_st_ideal, atomics;
    /* lanes 0 and 1 (or the first two) of the first costly instruction of each kind */
    uint64_t bad_ld[2], bad_st[2], bad_sh_ld[2], bad_sh_st[2];
    unsigned bad_ld_n, bad_st_n, bad_sh_ld_n, bad_sh_st_n;
} TraceCost;

/* The accesses of n words of a trace (a multiple of TRACE_WORDS); NULL if malformed. */
static inline TraceAccess *trace_parse(const uint32_t *w, size_t nwords, size_t *n)
{
    *n = 0;
    if (nwords % TRACE_WORDS) return NULL;
    size_t count = nwords / TRACE_WORDS;
    TraceAccess *a = calloc(count ? count : 1, sizeof *a);
    if (!a) return NULL;
    for (size_t i = 0; i < count; i++, w += TRACE_WORDS) {
        TraceAccess *t = &a[i];
        t->launch = w[0];
        t->block = w[1];
        t->tid = w[2];
        t->kind = w[4] & 0xf;
        t->shared = (w[4] >> 4) & 1;
        t->size = (w[4] >> 8) & 0xff;
        t->code = (uint64_t)w[3] << 16 | (w[4] >> 16);
        t->addr = (uint64_t)w[5] | (uint64_t)w[6] << 32;
        memcpy(t->value, &w[8], 16);
        t->order = (uint32_t)i;
        if (t->kind > 2 || t->size == 0 || t->size > 16 || t->tid >= 1024) {
            free(a);
            return NULL;
        }
    }
    *n = count;
    return a;
}

/* ---- the replay ------------------------------------------------------------------ */

static inline TraceBuffer *trace_buffer(TraceBuffer *b, int nb, const TraceAccess *t,
                                        uint64_t *offset)
{
    for (int i = 0; i < nb; i++)
        if (t->addr >= b[i].base && t->addr + t->size <= b[i].base + (uint64_t)b[i].floats * 4) {
            *offset = t->addr - b[i].base;
            return &b[i];
        }
    return NULL;
}

/* Accesses of one thread together (qsort's order of a before b): launch, block, thread. */
static inline int trace_cmp_thread(const TraceAccess *a, const TraceAccess *b)
{
    if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
    if (a->block != b->block) return a->block < b->block ? -1 : 1;
    if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
    return 0;
}

/* ... and in each thread, in the order it made them. */
static inline int trace_by_thread(const void *x, const void *y)
{
    const TraceAccess *a = *(const TraceAccess *const *)x, *b = *(const TraceAccess *const *)y;
    int c = trace_cmp_thread(a, b);
    return c ? c : a->order < b->order ? -1 : a->order > b->order;
}

/* Replay the trace on the buffers (their `now` set up by the caller as the memory
 * was before the kernel ran). Returns 0, or -1 with the first inconsistency in why. */
static inline int trace_replay(TraceAccess *a, size_t n, TraceBuffer *bufs, int nb, char *why,
                               size_t size)
{
    /* Memory, in trace order. Shared memory starts unknown in each block. */
    size_t sh_cap = 0;
    uint8_t *sh = NULL, *sh_set = NULL;
    uint32_t cur_launch = UINT32_MAX, cur_block = UINT32_MAX;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        TraceAccess *t = &a[i];
        uint8_t *mem, *set = NULL;
        if (t->shared) {
            if (t->launch != cur_launch || t->block != cur_block) {
                cur_launch = t->launch, cur_block = t->block;
                if (sh_set) memset(sh_set, 0, sh_cap);
            }
            if (t->addr + t->size > sh_cap) {
                size_t cap = (size_t)(t->addr + t->size) * 2;
                if (cap > ((size_t)1 << 24)) {
                    snprintf(why, size, "a shared access %llu bytes into shared memory, more "
                             "than a block has", (unsigned long long)t->addr);
                    rc = -1;
                    break;
                }
                uint8_t *s2 = realloc(sh, cap), *f2 = s2 ? realloc(sh_set, cap) : NULL;
                if (!s2 || !f2) {
                    snprintf(why, size, "out of memory replaying the trace");
                    sh = s2 ? s2 : sh;
                    rc = -1;
                    break;
                }
                memset(f2 + sh_cap, 0, cap - sh_cap);
                sh = s2, sh_set = f2, sh_cap = cap;
            }
            mem = sh + t->addr;
            set = sh_set + t->addr;
        } else {
            uint64_t off;
            TraceBuffer *b = trace_buffer(bufs, nb, t, &off);
            if (!b) {
                snprintf(why, size, "thread %u of block %u touched global memory outside the "
                         "input and the output", t->tid, t->block);
                rc = -1;
                break;
            }
            if (t->kind != 0 && !b->writable) {
                snprintf(why, size, "thread %u of block %u wrote into %s, which it must only read",
                         t->tid, t->block, b->name);
                rc = -1;
                break;
            }
            if (t->kind != 0 && b->writer) {
                uint64_t *wr = &b->writer[off / 4], me = ((uint64_t)t->launch << 32 | t->block) + 1;
                if (*wr && *wr != me && (*wr - 1) >> 32 == t->launch) {
                    snprintf(why, size, "blocks %u and %u both write %s[%llu]: on a GPU blocks run "
                             "in any order, so which value stays is luck (does a loop run one "
                             "element past its tile?)",
                             (unsigned)(*wr - 1), t->block, b->name, (unsigned long long)(off / 4));
                    rc = -1;
                    break;
                }
                *wr = me;
            }
            mem = b->now + off;
        }
        if (t->kind == 0 && set)
            for (unsigned k = 0; k < t->size && !rc; k++)
                if (!set[k]) {
                    snprintf(why, size, "thread %u of block %u reads shared memory that no thread "
                             "of its block has written (whatever was there: a tile read past "
                             "what was loaded into it?)",
                             t->tid, t->block);
                    rc = -1;
                }
        if (rc) break;
        if (t->kind == 0) {
            for (unsigned k = 0; k < t->size; k++)
                if ((!set || set[k]) && mem[k] != t->value[k]) {
                    snprintf(why, size, "the trace does not hold together: thread %u of block %u "
                             "is recorded reading a value that memory did not hold then",
                             t->tid, t->block);
                    rc = -1;
                    break;
                }
        } else {
            memcpy(mem, t->value, t->size);
            if (set) memset(set, 1, t->size);
        }
    }
    free(sh);
    free(sh_set);
    if (rc) return rc;
    /* Each thread stores only words it loaded before. */
    TraceAccess **by = malloc((n ? n : 1) * sizeof *by);
    uint32_t *seen = malloc(sizeof *seen * 64);
    size_t seen_cap = 64;
    if (!by || !seen) {
        free(by), free(seen);
        snprintf(why, size, "out of memory checking the trace");
        return -1;
    }
    for (size_t i = 0; i < n; i++) by[i] = &a[i];
    qsort(by, n, sizeof *by, trace_by_thread);
    size_t n_seen = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const TraceAccess *t = by[i];
        if (i == 0 || trace_cmp_thread(by[i - 1], t) != 0) n_seen = 0; /* another thread */
        for (unsigned k = 0; k + 4 <= t->size; k += 4) {
            uint32_t word;
            memcpy(&word, t->value + k, 4);
            if (t->kind == 0) {
                if (n_seen == seen_cap) {
                    uint32_t *s2 = realloc(seen, sizeof *seen * seen_cap * 2);
                    if (!s2) break;
                    seen = s2, seen_cap *= 2;
                }
                seen[n_seen++] = word;
                continue;
            }
            size_t j = 0;
            while (j < n_seen && seen[j] != word) j++;
            if (j == n_seen) {
                snprintf(why, size, "thread %u of block %u stores a value it never loaded: "
                         "values may pass from thread to thread only through memory (the "
                         "shared tile), which the grader follows", t->tid, t->block);
                rc = -1;
                break;
            }
        }
    }
    free(by);
    free(seen);
    return rc;
}

/* ---- the cost of each warp instruction ------------------------------------------- */

/* Each thread's accesses by code, then in order: its visits to each code, counted. */
static inline int trace_by_code(const void *x, const void *y)
{
    const TraceAccess *a = *(const TraceAccess *const *)x, *b = *(const TraceAccess *const *)y;
    int c = trace_cmp_thread(a, b);
    if (c) return c;
    if (a->code != b->code) return a->code < b->code ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static inline int trace_by_warp(const void *x, const void *y)
{
    const TraceAccess *a = *(const TraceAccess *const *)x, *b = *(const TraceAccess *const *)y;
    if (a->launch != b->launch) return a->launch < b->launch ? -1 : 1;
    if (a->block != b->block) return a->block < b->block ? -1 : 1;
    if (a->tid / WARP_LANES != b->tid / WARP_LANES) return a->tid < b->tid ? -1 : 1;
    if (a->code != b->code) return a->code < b->code ? -1 : 1;
    if (a->instance != b->instance) return a->instance < b->instance ? -1 : 1;
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static inline void trace_note_bad(uint64_t bad[2], unsigned *bad_n, const WarpLane *l, unsigned n)
{
    if (*bad_n) return;
    bad[0] = l[0].addr;
    bad[1] = n > 1 ? l[1].addr : l[0].addr;
    *bad_n = n;
}

/* Group the accesses into warp instructions, as a GPU executes them, and cost each. */
static inline int trace_cost(TraceAccess *a, size_t n, TraceCost *c)
{
    memset(c, 0, sizeof *c);
    TraceAccess **by = malloc((n ? n : 1) * sizeof *by);
    if (!by) return -1;
    for (size_t i = 0; i < n; i++) by[i] = &a[i];
    qsort(by, n, sizeof *by, trace_by_code);
    for (size_t i = 0; i < n; i++) { /* the n-th time a thread reached the code */
        const TraceAccess *p = i ? by[i - 1] : NULL, *t = by[i];
        bool again = p && trace_cmp_thread(p, t) == 0 && p->code == t->code;
        by[i]->instance = again ? p->instance + 1 : 0;
    }
    qsort(by, n, sizeof *by, trace_by_warp);
    for (size_t i = 0; i < n;) {
        const TraceAccess *t = by[i];
        WarpLane lanes[WARP_LANES];
        unsigned m = 0;
        size_t j = i;
        for (; j < n && by[j]->launch == t->launch && by[j]->block == t->block &&
               by[j]->tid / WARP_LANES == t->tid / WARP_LANES && by[j]->code == t->code &&
               by[j]->instance == t->instance;
             j++)
            if (m < WARP_LANES) {
                lanes[m].addr = by[j]->addr;
                lanes[m].lane = by[j]->tid % WARP_LANES;
                m++;
            }
        if (t->kind == 2) {
            c->atomics++;
        } else if (t->shared) {
            WarpCost w = warp_shared_cost(lanes, m, t->size);
            if (t->kind == 0) {
                c->sh_ld++, c->sh_ld_wf += w.actual, c->sh_ld_ideal += w.ideal;
                if (w.actual > w.ideal) trace_note_bad(c->bad_sh_ld, &c->bad_sh_ld_n, lanes, m);
            } else {
                c->sh_st++, c->sh_st_wf += w.actual, c->sh_st_ideal += w.ideal;
                if (w.actual > w.ideal) trace_note_bad(c->bad_sh_st, &c->bad_sh_st_n, lanes, m);
            }
        } else {
            WarpCost w = warp_global_cost(lanes, m, t->size, NULL, NULL);
            if (t->kind == 0) {
                c->ld_req++, c->ld_sec += w.actual, c->ld_ideal += w.ideal;
                if (w.actual > w.ideal) trace_note_bad(c->bad_ld, &c->bad_ld_n, lanes, m);
            } else {
                c->st_req++, c->st_sec += w.actual, c->st_ideal += w.ideal;
                if (w.actual > w.ideal) trace_note_bad(c->bad_st, &c->bad_st_n, lanes, m);
            }
        }
        i = j;
    }
    free(by);
    return 0;
}

#endif
