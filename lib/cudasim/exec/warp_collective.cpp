/*
 * warp_collective.cpp: what the device side's libraries need of a warp and of
 * a launch: a collective that every lane of a warp must call (WMMA's
 * load_matrix_sync, mma_sync, store_matrix_sync), settled once when the 32
 * lanes are there, and the report of a mistake a library finds in the
 * program (a WMMA leading dimension, a barrier used before its init()).
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
