/*
 * warp_collective.cpp: what the device side's libraries need of a warp and of
 * a launch: a collective that every lane of a warp must call (WMMA's
 * load_matrix_sync, mma_sync, store_matrix_sync), settled once when the 32
 * lanes are there, and the report of a mistake a library finds in the
 * program (a WMMA leading dimension, a barrier used before its init()).
 * Also the warp intrinsics built on the scheduler's warp operations: every
 * lane's value at once (__match_*_sync, __reduce_*_sync), and __activemask().
 */
#include <cstring>

#include "../internal.h"

namespace cudasim {
namespace internal {
namespace {

/* The lanes' contexts of the collectives under way, by thread of the block
 * (index in g_launch.threads), and per warp how many lanes have come; both
 * belong to the block of block_serial (another block's are stale). */
std::vector<void *> g_ctx;
std::vector<uint8_t> g_arrived;
unsigned long long g_block = 0;

/* Each thread's value given to a gather (by thread of the block of g_gather_block). */
std::vector<unsigned long long> g_gather;
unsigned long long g_gather_block = 0;

/* __activemask(): where each thread called it, and the mask it was given
 * (pending until the first of its lanes to resume settles them). */
struct Active {
    const char *file = nullptr;
    int line = 0;
    bool pending = false;
    unsigned mask = 0;
};
std::vector<Active> g_active;
unsigned long long g_active_block = 0;

/* The calling fiber's index in the block, after making the block's table t fit. */
template <typename T>
int fit(std::vector<T> &t, unsigned long long &block)
{
    if (block != g_launch.block_serial || t.size() < (size_t)g_launch.nthreads) {
        block = g_launch.block_serial;
        t.assign((size_t)g_launch.nthreads, T());
    }
    return (int)(g_launch.current - g_launch.threads.data());
}

} // namespace
} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" void cudasim_device_fault(int error, const char *what, const void *pc)
{
    char who[256];
    describe_thread(who, sizeof who);
    std::string line = at_line(pc);
    report("%s%s: %s", who, line.c_str(), what);
    abort_launch((cudaError_t)error);
}

extern "C" void cudasim_warp_collective(void *ctx, void (*settle)(void *const *ctxs),
                                        const char *file, int line)
{
    if (!g_launch.fibers || !g_launch.current) {
        /* Not a fiber: the warp operation below says so (and the launch is
         * run again with fibers when it can be). */
        cudasim_warp_op(cudasim::WARP_SYNC, 0xffffffffu, 0, 0, 32, file, line);
        return;
    }
    int i = (int)(g_launch.current - g_launch.threads.data());
    int base = i & ~31, lanes = g_launch.nthreads - base < 32 ? g_launch.nthreads - base : 32;
    if (lanes < 32) {
        char who[256];
        describe_thread(who, sizeof who);
        report("%s: the warp matrix function at %s:%d needs all 32 lanes of a warp, but warp %d of "
               "the block has only %d threads (%d in the block): make the block's size a "
               "multiple of 32",
               who, file, line, i / 32, lanes, g_launch.nthreads);
        abort_launch(cudaErrorLaunchFailure);
    }
    if (g_block != g_launch.block_serial || g_ctx.size() < (size_t)g_launch.nthreads) {
        g_block = g_launch.block_serial;
        g_ctx.assign((size_t)g_launch.nthreads, nullptr);
        g_arrived.assign((size_t)(g_launch.nthreads + 31) / 32, 0);
    }
    g_ctx[i] = ctx;
    if (++g_arrived[i / 32] == 32) { /* the last lane: all 32 wait (or are here) */
        g_arrived[i / 32] = 0;
        settle(&g_ctx[base]);
    }
    cudasim_warp_op(cudasim::WARP_SYNC, 0xffffffffu, 0, 0, 32, file, line);
}

/* Every lane of mask gives its value; values[l] is lane l's (for the lanes of mask that
 * the block has, which it returns).
 * Two warp operations of their own kind: after the first, every lane has written its
 * value; after the second, every lane has read them all, so none writes the next
 * before another has read this one. A lane missing from the mask, or one of the mask
 * that never comes, is reported as for any warp operation. */
extern "C" unsigned cudasim_warp_gather(unsigned mask, unsigned long long value,
                                        unsigned long long *values, const char *file, int line)
{
    if (!g_launch.fibers || !g_launch.current) { /* (asks for fibers) */
        cudasim_warp_op(cudasim::WARP_GATHER, mask, 0, 0, 32, file, line);
        return 0;
    }
    int i = fit(g_gather, g_gather_block), base = i & ~31;
    g_gather[i] = value;
    cudasim_warp_op(cudasim::WARP_GATHER, mask, 0, 0, 32, file, line);
    unsigned given = 0;
    for (int l = 0; l < 32; l++) {
        bool in = (mask >> l & 1) && base + l < g_launch.nthreads;
        values[l] = in ? g_gather[base + l] : 0;
        given |= (unsigned)in << l;
    }
    cudasim_warp_op(cudasim::WARP_GATHER, mask, 0, 0, 32, file, line);
    return given;
}

/* __activemask(): the lanes of the warp that reach this call together. The lane
 * waits (an operation of its own lane only) while the block's other threads run to
 * where they wait; the lanes that came to the same call meanwhile are the active
 * ones. A lane that took another branch, returned, or waits at another operation is
 * not. This waiting orders nothing for the race checks: it is not a synchronization. */
extern "C" unsigned cudasim_activemask(const char *file, int line)
{
    if (!g_launch.fibers || !g_launch.current) { /* (asks for fibers) */
        cudasim_warp_op(cudasim::WARP_SYNC, 0xffffffffu, 0, 0, 32, file, line);
        return 0xffffffffu;
    }
    int i = fit(g_active, g_active_block), base = i & ~31, lane = i & 31;
    g_active[i].file = file;
    g_active[i].line = line;
    g_active[i].pending = true;
    uint16_t wsync = g_launch.current->wsync;
    cudasim_warp_op(cudasim::WARP_ACTIVE, 1u << lane, 0, 0, 32, file, line);
    g_launch.current->wsync = wsync;
    g_launch.wsync = wsync;
    if (g_active[i].pending) { /* the first of its lanes back: the lanes that came */
        unsigned mask = 0;
        for (int l = 0; l < 32 && base + l < g_launch.nthreads; l++) {
            const Active &a = g_active[base + l];
            if (a.pending && a.line == line && (a.file == file || strcmp(a.file, file) == 0))
                mask |= 1u << l;
        }
        for (int l = 0; l < 32; l++)
            if (mask >> l & 1) {
                g_active[base + l].pending = false;
                g_active[base + l].mask = mask;
            }
    }
    return g_active[i].mask;
}
