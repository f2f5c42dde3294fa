/*
 * barriers.cpp: cuda::barrier<thread_scope_block> (libcu++, include/cuda/barrier)
 * as a barrier of the block's fibers. Its state is the program's own object
 * (in shared memory, usually): the count of arrivals it expects per phase,
 * those still missing in the phase under way, the phase, and the block that
 * initialized it. A thread that waits for a phase that has not completed
 * yields (AT_AWAIT) until the phase completes; the arrival that completes it
 * lands the asynchronous copies bound to it (async_copy.cpp), orders the
 * block's accesses before it with those after it for the race check (as a
 * __syncthreads does), and wakes the waiting threads. A block whose threads
 * all wait, for phases that cannot complete, is reported (explain_await).
 */
#include <cstring>

#include "../internal.h"

namespace cudasim {
namespace internal {
namespace {

/* The barrier as its 16 bytes hold it (include/cudasim_libcu.h sizes it). */
struct BarrierState {
    uint32_t block;    /* the low bits of the block_serial of the block that init()ed it */
    uint32_t expected; /* arrivals per phase */
    uint32_t pending;  /* arrivals still missing in the phase under way */
    uint32_t phase;    /* phases completed */
};
static_assert(sizeof(BarrierState) == 16, "cuda::barrier's state is 16 bytes");

[[noreturn]] void fault(const char *what, const void *pc, cudaError_t e = cudaErrorLaunchFailure)
{
    cudasim_device_fault(e, what, pc);
}

/* The barrier's state, checked: memcheck sees the access (an atomic, never a
 * race), and a barrier this block has not initialized is the program's bug. */
BarrierState *state_of(void *bar, const char *call, const void *pc)
{
    cudasim_library_access(bar, sizeof(BarrierState), ATOMIC, CUDASIM_ACCESS_UNCOUNTED, pc);
    BarrierState *s = (BarrierState *)bar;
    if (s->block != (uint32_t)g_launch.block_serial) {
        char what[400];
        snprintf(what, sizeof what,
                 "%s on a cuda::barrier that this block has not initialized: one thread calls "
                 "init(&bar, count), then __syncthreads(), before any thread uses it (CUDA: the "
                 "behavior is undefined)",
                 call);
        fault(what, pc);
    }
    return s;
}

void complete_phase(BarrierState *s, void *bar)
{
    unsigned done = s->phase;
    async_copies_land(bar, done);
    s->phase = done + 1;
    s->pending = s->expected;
    g_launch.stamp++; /* what the block did before the phase is ordered before what follows */
    for (int i = 0; i < g_launch.nthreads && g_launch.fibers; i++) {
        Thread &t = g_launch.threads[i];
        if (t.state == AT_AWAIT && t.awaits == bar) t.state = READY;
    }
}

bool done_with(const BarrierState *s, unsigned phase, int parity)
{
    return parity ? (s->phase & 1) != (phase & 1) : s->phase != phase;
}

void range_text(const std::vector<int> &ids, std::string &out)
{
    for (size_t i = 0; i < ids.size();) {
        size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) j++;
        if (!out.empty()) out += ", ";
        out += std::to_string(ids[i]);
        if (j > i) out += "-" + std::to_string(ids[j]);
        i = j + 1;
        if (out.size() > 200) {
            out += ", ...";
            break;
        }
    }
}

} // namespace

bool explain_await(char *buf, size_t n)
{
    const Thread *first = nullptr;
    std::vector<int> waiting, done, at_sync, at_warp;
    for (int i = 0; i < g_launch.nthreads; i++) {
        const Thread &t = g_launch.threads[i];
        if (t.state == AT_AWAIT) {
            if (!first) first = &t;
            if (t.awaits == first->awaits) waiting.push_back(i);
        } else if (t.state == DONE) {
            done.push_back(i);
        } else if (t.state == AT_BARRIER) {
            at_sync.push_back(i);
        } else if (t.state == AT_WARP) {
            at_warp.push_back(i);
        }
    }
    if (!first) return false;
    const BarrierState *s = (const BarrierState *)first->awaits;
    std::string w, others;
    range_text(waiting, w);
    if (!done.empty()) {
        std::string d;
        range_text(done, d);
        others += "; threads " + d + " returned";
    }
    if (!at_sync.empty()) {
        std::string d;
        range_text(at_sync, d);
        const Thread &b = g_launch.threads[at_sync[0]];
        others += "; threads " + d + " wait at the __syncthreads at " + b.file + ":" +
                  std::to_string(b.line);
    }
    if (!at_warp.empty()) {
        std::string d;
        range_text(at_warp, d);
        others += "; threads " + d + " wait at a warp operation";
    }
    std::string where = source_line(first->await_pc);
    snprintf(buf, n,
             "threads %s wait at the cuda::barrier wait at %s, for phase %u, which has %u of the "
             "%u arrivals it expects and can get no more%s (every thread the barrier counts "
             "must arrive in every phase: init(&bar, count) with the number of threads that do)",
             w.c_str(), where.empty() ? "?" : where.c_str(), s->phase, s->expected - s->pending,
             s->expected, others.c_str());
    return true;
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" void cudasim_barrier_init(void *bar, long long expected, const void *pc)
{
    cudasim_library_access(bar, sizeof(BarrierState), STORE, CUDASIM_ACCESS_UNCOUNTED, pc);
    if (expected < 0 || expected > 0x7fffffffLL) {
        char what[200];
        snprintf(what, sizeof what,
                 "init() of a cuda::barrier with %lld expected arrivals (it takes 0 up to "
                 "barrier::max())",
                 expected);
        fault(what, pc);
    }
    BarrierState *s = (BarrierState *)bar;
    s->block = (uint32_t)g_launch.block_serial;
    s->expected = s->pending = (uint32_t)expected;
    s->phase = 0;
}

extern "C" unsigned cudasim_barrier_arrive(void *bar, long long update, int drop, int *completed,
                                           const void *pc)
{
    const char *call = drop ? "arrive_and_drop()" : "arrive()";
    BarrierState *s = state_of(bar, call, pc);
    *completed = 0;
    if (update <= 0 || (unsigned long long)update > s->pending) {
        char what[400];
        if (update <= 0)
            snprintf(what, sizeof what, "cuda::barrier::arrive(%lld): the update must be positive",
                     update);
        else
            snprintf(what, sizeof what,
                     "cuda::barrier::%s: phase %u of the barrier has had %u of the %u arrivals "
                     "init() gave it, and this one adds %lld (a thread arrives twice in a phase, or "
                     "the count given to init() is too small; CUDA: the behavior is undefined)",
                     call, s->phase, s->expected - s->pending, s->expected, update);
        fault(what, pc);
    }
    unsigned phase = s->phase;
    if (drop) s->expected--;
    s->pending -= (uint32_t)update;
    if (s->pending == 0) {
        complete_phase(s, bar);
        *completed = 1;
    }
    return phase;
}

extern "C" void cudasim_barrier_wait(void *bar, unsigned phase, int parity, const void *pc)
{
    BarrierState *s = state_of(bar, "wait()", pc);
    while (!done_with(s, phase, parity)) fiber_await(bar, pc);
}

extern "C" int cudasim_barrier_test(void *bar, unsigned phase, int parity, const void *pc)
{
    return done_with(state_of(bar, "try_wait()", pc), phase, parity);
}

extern "C" void cudasim_barrier_completion_ran(void *) { g_launch.stamp++; }
