/*
 * check_races.h: the race check's step at each access of a word (or byte),
 * inline because access.cpp takes it for every shared and global access of
 * a checked kernel; the rest of the race check is in check_races.cpp (within
 * a block) and check_races_blocks.cpp (between blocks).
 */
#ifndef CUDASIM_CHECK_RACES_H
#define CUDASIM_CHECK_RACES_H

#include "../internal.h"

namespace cudasim {
namespace internal {

enum Race { RAW, WAR, WAW };

/* A race between the running thread's access at pc and thread `other`'s at
 * other_code, on the word at a. */
__attribute__((noinline, cold)) void report_race(Race kind, bool shared, uintptr_t a, size_t n,
                                                 int other, uint16_t other_wsync,
                                                 const void *other_code, const void *pc);

/* "(x,y,z)": thread tid of the running launch's blocks. */
std::string thread_text(int tid);

/* Whether an access by thread tid (at its warp synchronization wsync) in
 * this epoch is unordered with the running thread's. */
inline bool unordered(uint16_t tid, uint16_t wsync)
{
    return tid != (uint16_t)g_launch.tid &&
           !((tid >> 5) == (g_launch.tid >> 5) && (int16_t)(uint16_t)(g_launch.wsync - wsync) > 0);
}

inline void race_cell(Cell &c, bool write, const void *pc, bool shared, uintptr_t a, size_t n)
{
    const uint64_t s = g_launch.stamp;
    if (write) {
        if (c.w_stamp == s && unordered(c.w_tid, c.w_wsync))
            report_race(WAW, shared, a, n, c.w_tid, c.w_wsync, c.w_pc, pc);
        else if (c.r_stamp == s) {
            if (unordered(c.r_tid, c.r_wsync))
                report_race(WAR, shared, a, n, c.r_tid, c.r_wsync, c.r_pc, pc);
            else if (c.r2_tid != kNone && unordered(c.r2_tid, c.r2_wsync))
                report_race(WAR, shared, a, n, c.r2_tid, c.r2_wsync, c.r2_pc, pc);
        }
        c.w_stamp = s;
        c.w_pc = pc;
        c.w_tid = (uint16_t)g_launch.tid;
        c.w_wsync = g_launch.wsync;
    } else {
        if (c.w_stamp == s && unordered(c.w_tid, c.w_wsync))
            report_race(RAW, shared, a, n, c.w_tid, c.w_wsync, c.w_pc, pc);
        if (c.r_stamp != s) {
            c.r_stamp = s;
            c.r_pc = pc;
            c.r_tid = (uint16_t)g_launch.tid;
            c.r_wsync = g_launch.wsync;
            c.r2_tid = kNone;
        } else if (c.r_tid == (uint16_t)g_launch.tid) {
            c.r_wsync = g_launch.wsync;
        } else if (c.r2_tid == kNone || c.r2_tid == (uint16_t)g_launch.tid) {
            c.r2_pc = pc;
            c.r2_tid = (uint16_t)g_launch.tid;
            c.r2_wsync = g_launch.wsync;
        }
    }
}

/* ---- global memory: the cells of a launch, and the order between blocks --- */

/* A word (or byte) of global memory or of a __device__ variable, in the
 * launch that runs: the race cell of the threads of a block (c: its last
 * write and its reads, whichever block made them), and what another block's
 * access is compared with: the release epoch of c's write and of c's first
 * read (check_races_blocks.cpp), the word as it was before the block of c's
 * write first wrote it, and the last atomic on it. */
struct GlobalCell {
    uintptr_t word;
    unsigned long long tag; /* the launch (or block) whose cells are in use */
    Cell c;
    const void *a_pc;             /* the last atomic: its code, */
    unsigned long long a_block;   /* its block (block_serial; 0: none), */
    uint16_t a_tid, a_epoch;      /* its thread and release epoch */
    uint16_t w_epoch, r_epoch;
    uint32_t prev;
};
/* The cell of a word (word: the address / 4, or a byte's address with bit 63
 * set), or NULL when the launch touched too many to keep. */
GlobalCell *global_cell(uintptr_t word);
/* Whether this launch's cells hold what earlier blocks did (past
 * kLaunchWordsMax words a launch is checked a block at a time). */
extern bool g_between_blocks;
/* A grid sync: the cells of the launch start empty (check_races.cpp). */
void global_cells_forget();

/* The running block's place in the order between blocks: blocks are ordered
 * only by a block's release (a __threadfence, then an atomic or volatile
 * store: epoch counts them) and another's acquire of it (an atomic or
 * volatile load of the same address). */
struct BlockOrder {
    unsigned long long block; /* the block (block_serial) this is about */
    uint16_t epoch;           /* releases the block made so far */
    bool fenced;              /* a __threadfence since the block last wrote global memory */
    bool acquired;            /* it has acquired some block's release */
};
extern BlockOrder g_order;
void order_new_block();
/* Whether another block's access in its release epoch e happened before the
 * running block's accesses now (by a chain of releases and acquires). */
bool ordered_before(unsigned long long block, uint16_t e);
/* (race_between_blocks words its report by this order) */
enum BlockRace { B_RAW, B_WAR, B_WAW, B_ATOMIC, B_PLAIN_AFTER_ATOMIC };
__attribute__((noinline, cold)) void race_between_blocks(BlockRace kind, GlobalCell &g,
                                                         uintptr_t a, size_t n, const void *pc,
                                                         bool whole);

/* A read that races with another block's write is given the word as it was
 * before that block wrote it, as if it had run first (a lost update shows in
 * the results, as on a GPU): the word now in memory is put back at the next
 * access of any thread, and when the launch ends. */
struct Replay {
    uint32_t *word;
    uint32_t now;
};
extern Replay g_replay[4];
extern int g_replay_n;
void replay_restore();

/* An atomic or volatile access of global memory: never a race with its kind,
 * an acquire or a release between blocks. */
void strong_access(uintptr_t a, size_t n, AccessKind kind, const void *pc);

inline bool unordered_block(unsigned long long block, uint16_t e)
{
    return !(g_order.acquired && ordered_before(block, e));
}

/* The step of a plain access of a global word (whole: a cell per 4-byte
 * word, a the word; else a byte's cell): between blocks, then within. */
inline void race_global(GlobalCell &g, bool write, const void *pc, uintptr_t a, size_t n,
                        bool whole)
{
    Cell &c = g.c;
    if (g_between_blocks) {
        const unsigned long long mine = g_launch.block_serial, wb = c.w_stamp >> 24;
        if (wb != mine) {
            if (wb && unordered_block(wb, g.w_epoch))
                race_between_blocks(write ? B_WAW : B_RAW, g, a, n, pc, whole);
            if (write && whole) g.prev = *(const uint32_t *)a;
        }
        if (write) {
            const unsigned long long rb = c.r_stamp >> 24;
            if (rb && rb != mine && unordered_block(rb, g.r_epoch))
                race_between_blocks(B_WAR, g, a, n, pc, whole);
            if (g.a_block && g.a_block != mine && unordered_block(g.a_block, g.a_epoch))
                race_between_blocks(B_PLAIN_AFTER_ATOMIC, g, a, n, pc, whole);
            g.w_epoch = g_order.epoch;
            g_order.fenced = false;
        } else if (c.r_stamp != g_launch.stamp) {
            g.r_epoch = g_order.epoch; /* race_cell keeps this read */
        }
    }
    race_cell(c, write, pc, false, a, n);
}

} // namespace internal
} // namespace cudasim

#endif /* CUDASIM_CHECK_RACES_H */
