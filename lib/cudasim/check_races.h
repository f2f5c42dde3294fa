/*
 * check_races.h: the race check's step at each access of a word (or byte),
 * inline because access.cpp takes it for every shared and global access of
 * a checked kernel; the rest of the race check is in check_races.cpp.
 */
#ifndef CUDASIM_CHECK_RACES_H
#define CUDASIM_CHECK_RACES_H

#include "internal.h"

namespace cudasim {
namespace internal {

enum Race { RAW, WAR, WAW };

/* A race between the running thread's access at pc and thread `other`'s at
 * other_code, on the word at a. */
__attribute__((noinline, cold)) void report_race(Race kind, bool shared, uintptr_t a, size_t n,
                                                 int other, uint16_t other_wsync,
                                                 const void *other_code, const void *pc);

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

} // namespace internal
} // namespace cudasim

#endif /* CUDASIM_CHECK_RACES_H */
