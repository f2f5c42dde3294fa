/*
 * cooperative.cpp: a cooperative launch (cudaLaunchCooperativeKernel), whose
 * threads may wait at a grid sync (cooperative_groups' this_grid().sync())
 * for every thread of every block. Its grid must fit on the device at once
 * (the occupancy calculator's blocks per multiprocessor times the
 * multiprocessors), which a launch checks when it is issued.
 *
 * The simulator runs a grid's blocks one after another. In a cooperative
 * launch each block runs as before (its threads are fibers, fibers.cpp) until
 * it ends or every one of its threads waits at a grid sync; then the block is
 * put aside with what is its own (its threads and their stacks, its shared
 * memory's bytes, its index, number and barrier epoch), and the next block
 * runs. When every block waits, the sync is released: each block in turn is
 * brought back and runs on to its next grid sync or its end. A block that
 * ends while others wait at a grid sync, or threads of a block that wait at
 * different kinds of barrier, are reported, and the launch fails.
 *
 * A grid sync is a barrier of the block too (its epoch advances), and of the
 * whole grid for racecheck (check_races_blocks.cpp's races_grid_sync): what
 * any block did before it is ordered before what any block does after it.
 */
#include <cstring>

#include "../internal.h"
#include "../profile/profile.h"

namespace cudasim {
namespace internal {

namespace {

/* A block of the running cooperative launch, while another runs. */
struct BlockContext {
    uint3 idx;
    unsigned long long serial = 0; /* its block_serial */
    uint64_t stamp = 0;            /* its barrier epoch (Launch::stamp) */
    std::vector<Thread> threads;   /* its threads (Launch::threads while it runs) */
    std::vector<uint16_t> warp_sync;
    std::vector<char> shared; /* its shared memory's bytes, [0, used) of the arena */
    size_t shared_used = 0;
    bool waiting = false; /* at a grid sync (else done) */
    const char *file = nullptr; /* where its first thread waits */
    int line = 0;
};
std::vector<BlockContext> g_blocks;
unsigned long long g_last_serial = 0; /* the launch's last block's block_serial */

/* "0-31, 64" (as fibers.cpp's reports write threads) */
std::string ranges(const std::vector<int> &ids)
{
    std::string s;
    char buf[32];
    for (size_t i = 0; i < ids.size();) {
        size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) j++;
        if (j > i) snprintf(buf, sizeof buf, "%s%d-%d", s.empty() ? "" : ", ", ids[i], ids[j]);
        else snprintf(buf, sizeof buf, "%s%d", s.empty() ? "" : ", ", ids[i]);
        s += buf;
        if (s.size() > 160) return s + ", ...";
        i = j + 1;
    }
    return s;
}

const char *state_text(State s)
{
    switch (s) {
    case AT_BARRIER: return "a __syncthreads (or a block's sync)";
    case AT_WARP: return "a warp operation";
    case AT_AWAIT: return "a cuda::barrier";
    default: return "another barrier";
    }
}

/* Block b of the launch runs now: its threads, shared memory and numbers. */
void load(size_t b)
{
    BlockContext &c = g_blocks[b];
    cudasim_block_idx = c.idx;
    g_launch.block_serial = c.serial;
    g_launch.stamp = c.stamp + 1; /* past the grid sync: a new epoch of the block */
    g_launch.stack_first = (int)b * g_launch.nthreads;
    g_launch.threads.swap(c.threads);
    g_launch.warp_sync.swap(c.warp_sync);
    memcpy(g_arena, c.shared.data(), c.shared_used);
    if (g_arena_used > c.shared_used) /* variables placed since, by other blocks */
        memset(g_arena + c.shared_used, 0xff, g_arena_used - c.shared_used);
}

/* Block b stopped (at a grid sync, or its end): put it aside. */
void put_aside(size_t b)
{
    BlockContext &c = g_blocks[b];
    if (g_launch.profiling) profile_block_end();
    printf_flush();
    c.waiting = false;
    for (int i = 0; i < g_launch.nthreads; i++)
        if (g_launch.threads[i].state == AT_GRID) {
            c.waiting = true;
            c.file = g_launch.threads[i].file;
            c.line = g_launch.threads[i].line;
            break;
        }
    c.stamp = g_launch.stamp;
    g_launch.threads.swap(c.threads);
    g_launch.warp_sync.swap(c.warp_sync);
    if (c.waiting) {
        c.shared_used = g_arena_used;
        c.shared.assign(g_arena, g_arena + g_arena_used);
    }
}

std::string block_text(const uint3 &b)
{
    char buf[48];
    snprintf(buf, sizeof buf, "(%u,%u,%u)", b.x, b.y, b.z);
    return buf;
}

/* Every block has stopped: true when they all wait at a grid sync, false when all ended;
 * some of each is reported (those that wait would wait for ever), and the launch fails. */
bool all_wait()
{
    const BlockContext *waits = nullptr, *ended = nullptr;
    size_t n_ended = 0;
    for (const BlockContext &c : g_blocks) {
        if (c.waiting && !waits) waits = &c;
        if (!c.waiting) {
            if (!ended) ended = &c;
            n_ended++;
        }
    }
    if (!waits) return false;
    if (!ended) return true;
    report("kernel %s: block %s waits at the grid sync at %s:%d, but %s %s%s returned without "
           "reaching it: every thread of every block of a cooperative launch must reach every "
           "grid sync (on a GPU the waiting blocks would wait for ever)",
           g_launch.cfg->name, block_text(waits->idx).c_str(), waits->file, waits->line,
           n_ended == 1 ? "block" : "blocks", block_text(ended->idx).c_str(),
           n_ended == 1 ? "" : (" and " + std::to_string(n_ended - 1) + " more").c_str());
    abort_launch(cudaErrorLaunchFailure);
}

} // namespace

bool block_at_grid_sync()
{
    std::vector<int> at, done, other;
    const Thread *first = nullptr, *busy = nullptr;
    for (int i = 0; i < g_launch.nthreads; i++) {
        const Thread &t = g_launch.threads[i];
        if (t.state == AT_GRID) {
            at.push_back(i);
            if (!first) first = &t;
        } else if (t.state == DONE) {
            done.push_back(i);
        } else {
            other.push_back(i);
            if (!busy) busy = &t;
        }
    }
    if (!first) return false;
    const uint3 &b = cudasim_block_idx;
    if (!done.empty() && other.empty()) {
        report("kernel %s, block (%u,%u,%u): the grid sync at %s:%d was reached by threads %s of "
               "%d, but threads %s returned without reaching it: every thread of every block of a "
               "cooperative launch must reach every grid sync",
               g_launch.cfg->name, b.x, b.y, b.z, first->file, first->line, ranges(at).c_str(),
               g_launch.nthreads, ranges(done).c_str());
        abort_launch(cudaErrorLaunchFailure);
    }
    if (!other.empty()) {
        report("kernel %s, block (%u,%u,%u): threads %s wait at the grid sync at %s:%d, threads "
               "%s at %s at %s:%d: each waits for the others, and none can go on (a grid sync "
               "inside a branch that threads take differently?)",
               g_launch.cfg->name, b.x, b.y, b.z, ranges(at).c_str(), first->file, first->line,
               ranges(other).c_str(), state_text(busy->state), busy->file ? busy->file : "?",
               busy->line);
        abort_launch(cudaErrorLaunchFailure);
    }
    return true;
}

void run_grid_cooperative()
{
    const cudasim::LaunchConfig *cfg = g_launch.cfg;
    const dim3 &g = cfg->grid;
    size_t n = (size_t)g.x * g.y * g.z;
    g_blocks.resize(n);
    for (size_t b = 0; b < n; b++) {
        BlockContext &c = g_blocks[b];
        c.idx = uint3{(unsigned)(b % g.x), (unsigned)(b / g.x % g.y), (unsigned)(b / g.x / g.y)};
        c.threads = g_launch.threads; /* (their indices, set by run_grid) */
        c.warp_sync.clear();
        c.waiting = false;
        c.shared_used = 0;
    }
    /* Each block to its first grid sync, or its end. */
    for (size_t b = 0; b < n; b++) {
        BlockContext &c = g_blocks[b];
        cudasim_block_idx = c.idx;
        c.serial = ++g_launch.block_serial;
        g_last_serial = c.serial;
        g_launch.stamp = (uint64_t)c.serial << 24;
        g_launch.stack_first = (int)b * g_launch.nthreads;
        arena_block();
        g_launch.threads.swap(c.threads);
        g_launch.warp_sync.swap(c.warp_sync);
        run_block_fibers();
        put_aside(b);
    }
    /* Every block waits at a grid sync: each in turn on to its next, or its end. */
    while (all_wait()) {
        races_grid_sync();
        for (size_t b = 0; b < n; b++) {
            load(b);
            for (int i = 0; i < g_launch.nthreads; i++)
                if (g_launch.threads[i].state == AT_GRID) g_launch.threads[i].state = READY;
            run_block_fibers(true);
            put_aside(b);
        }
    }
}

void cooperative_end()
{
    if (g_last_serial > g_launch.block_serial) g_launch.block_serial = g_last_serial;
    g_launch.stack_first = 0;
}

cudaError_t cooperative_check(const cudasim::LaunchConfig *cfg)
{
    const dim3 &g = cfg->grid, &b = cfg->block;
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    /* (an empty or oversized configuration: check_config's report) */
    if (!threads || threads > (unsigned long long)kMaxThreadsPerBlock || !g.x || !g.y || !g.z)
        return cudaSuccess;
    int per_sm = 0, sms = 0, device = 0;
    cudaGetDevice(&device);
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cfg->fn, (int)threads,
                                                      cfg->shared_bytes) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
        return cudaSuccess; /* (a sticky error: the launch reports it) */
    if (per_sm == 0) return cudaSuccess; /* (a block that cannot run at all: check_config's) */
    unsigned long long blocks = (unsigned long long)g.x * g.y * g.z,
                       most = (unsigned long long)per_sm * sms;
    if (blocks <= most) return cudaSuccess;
    report("kernel %s: a cooperative launch of %llu blocks of %llu threads, but at most %llu such "
           "blocks are on the device at once (%d per multiprocessor, as "
           "cudaOccupancyMaxActiveBlocksPerMultiprocessor says, times %d multiprocessor%s), and "
           "every block of a cooperative launch must be: size the grid from those two numbers "
           "(CUDA reports: too many blocks in cooperative launch)",
           cfg->name, blocks, threads, most, per_sm, sms, sms == 1 ? "" : "s");
    return refuse(cfg->stream, cudaErrorCooperativeLaunchTooLarge);
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" void cudasim_grid_sync(const char *file, int line)
{
    if (!g_launch.in_kernel) return;
    if (!g_launch.cfg->cooperative) {
        char who[256];
        describe_thread(who, sizeof who);
        report("%s: a grid sync (cooperative_groups::this_grid().sync()) at %s:%d, in a launch that "
               "is not cooperative: only a kernel launched with cudaLaunchCooperativeKernel may "
               "sync its grid (on a GPU this_grid().is_valid() is false here, and the sync is "
               "undefined)",
               who, file, line);
        abort_launch(cudaErrorLaunchFailure);
    }
    fiber_grid_wait(file, line);
}

extern "C" int cudasim_grid_valid(void)
{
    return g_launch.in_kernel && g_launch.cfg && g_launch.cfg->cooperative;
}
