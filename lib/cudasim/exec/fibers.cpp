/*
 * fibers.cpp: a block's threads. A kernel that never waits for other threads
 * runs each thread as a plain call, one after another. One that does
 * (__syncthreads, warp operations) runs each thread as a fiber, with its own
 * stack, that stops at every barrier and warp operation: the block advances
 * in lock-step from barrier to barrier, as on a GPU. A pass runs each ready
 * thread in turn, each handing over to the next with one switch and the last
 * back to the scheduler, which settles warp operations when every lane of their mask has
 * arrived, releases a barrier when every thread has reached it, and reports
 * the barriers and warp operations that cannot be settled.
 *
 * Its functions read the thread's launch state (g_launch, one per thread that
 * runs blocks: parallel.cpp) once, into L, as they run at every barrier.
 */
#include <cstring>

#include "../internal.h"

namespace cudasim {
namespace internal {

#if CUDASIM_ASAN
const void *g_main_stack_bottom = nullptr;
size_t g_main_stack_size = 0;
#endif

namespace {

const size_t kStackBytes = CUDASIM_ASAN ? (512 << 10) : (128 << 10);

/* Fibers switch with a few instructions on x86-64 (saving the callee-saved
 * registers and the FP control words, as a function call would) and with
 * ucontext elsewhere (correct, but each switch makes a system call). */
#if defined(__x86_64__)
#define CUDASIM_FAST_SWITCH 1
extern "C" void cudasim_switch(void **save_sp, void *new_sp);
__asm__(".text\n"
        ".globl cudasim_switch\n"
        ".type cudasim_switch,@function\n"
        "cudasim_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size cudasim_switch,.-cudasim_switch\n");
#else
#define CUDASIM_FAST_SWITCH 0
#endif

/* AddressSanitizer must be told about every switch between stacks. */
#if CUDASIM_ASAN
void *g_main_fake_stack = nullptr;
#endif

/* The stacks of the fibers, kept from block to block: each thread that runs blocks
 * has its own (exec/parallel.cpp). */
thread_local std::vector<char *> *t_stack_pool = nullptr;

char *stack_for(int i)
{
    if (!t_stack_pool) t_stack_pool = new std::vector<char *>;
    std::vector<char *> &pool = *t_stack_pool;
    while ((int)pool.size() <= i) {
        char *s = (char *)mmap(nullptr, kStackBytes + g_page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (s == MAP_FAILED) return nullptr;
        mprotect(s, g_page, PROT_NONE); /* a stack overflow faults */
        pool.push_back(s + g_page);
    }
    return pool[i];
}

void set_coordinates(const Thread &t)
{
    Launch &L = g_launch;
    cudasim_thread_idx = t.idx;
    L.tid = (int)(&t - L.threads.data());
    L.wsync = t.wsync;
}

/* The pass under way (run_pass): the block's threads in turn, last to first in odd
 * blocks (run_block_fibers says why); g_launch.turn is the running fiber's. */
inline int thread_of_turn(const Launch &L, int k)
{
    return (L.block_serial & 1) ? L.nthreads - 1 - k : k;
}

/* The first turn after k whose thread is ready, or -1. */
int next_ready(int k)
{
    Launch &L = g_launch;
    for (k++; k < L.nthreads; k++)
        if (L.threads[thread_of_turn(L, k)].state == READY) return k;
    return -1;
}

void fiber_main();

/* Thread i, about to run: the running one, with its stack made on its first run. */
void prepare_fiber(Thread &t, int i)
{
    Launch &L = g_launch;
    L.current = &t;
    set_coordinates(t);
    if (t.started) return;
    t.started = true;
    t.stack = stack_for(L.stack_first + i); /* (cooperative: the grid's threads') */
    if (!t.stack) {
        report("kernel %s: out of memory for the simulator's thread stacks", L.cfg->name);
        abort_launch(cudaErrorLaunchOutOfResources);
    }
#if CUDASIM_ASAN
    /* A reused stack still carries the poison of its last fiber's frames. */
    __asan_unpoison_memory_region(t.stack, kStackBytes);
#endif
#if CUDASIM_FAST_SWITCH
    /* A frame that cudasim_switch "returns" into fiber_main from:
     * [fp control words][r15 r14 r13 r12 rbx rbp][fiber_main][0] */
    /* Each stack's top a cache line further down than the one before, so that
     * the tops of a block's fibers, which every barrier visits in turn, do not
     * all fall into the same sets of the CPU's cache. */
    uint64_t *top = (uint64_t *)(t.stack + kStackBytes - (size_t)(i % 64) * 64);
    top -= 2;
    top[1] = 0; /* fiber_main's return address: never used */
    top[0] = (uint64_t)(uintptr_t)fiber_main;
    top -= 6;
    for (int r = 0; r < 6; r++) top[r] = 0;
    top -= 1;
    top[0] = 0x1f80 | ((uint64_t)0x037f << 32); /* default MXCSR and x87 control word */
    t.sp = top;
#else
    getcontext(&t.ctx);
    t.ctx.uc_stack.ss_sp = t.stack;
    t.ctx.uc_stack.ss_size = kStackBytes;
    t.ctx.uc_link = nullptr;
    makecontext(&t.ctx, fiber_main, 0);
#endif
}

/* The running fiber stops (its state says why: a barrier, a warp operation, its
 * end) and hands over to the pass's next ready thread directly, one switch, or to
 * the scheduler when the pass is over. `from` is null when the fiber ended (it
 * never runs again). Returns when the fiber runs again. */
void hand_over(Thread *from)
{
    Launch &L = g_launch;
    int k = next_ready(L.turn);
    Thread *to = nullptr;
    if (k >= 0) {
        L.turn = k;
        int i = thread_of_turn(L, k);
        to = &L.threads[i];
        prepare_fiber(*to, i);
    }
#if CUDASIM_ASAN
    L.from_scheduler = false;
    __sanitizer_start_switch_fiber(from ? &from->asan_fake_stack : nullptr,
                                   to ? to->stack : g_main_stack_bottom,
                                   to ? kStackBytes : g_main_stack_size);
#endif
    if (!to) L.on_fiber = false;
#if CUDASIM_FAST_SWITCH
    void *dead;
    cudasim_switch(from ? &from->sp : &dead, to ? to->sp : L.scheduler_sp);
#else
    ucontext_t *next = to ? &to->ctx : &L.scheduler;
    if (!from) setcontext(next); /* (nothing of an ended fiber to keep) */
    swapcontext(&from->ctx, next);
#endif
    /* (a fiber that ended never comes back here) */
    L.on_fiber = true;
#if CUDASIM_ASAN
    __sanitizer_finish_switch_fiber(from->asan_fake_stack, nullptr, nullptr);
#endif
}

void fiber_main()
{
#if CUDASIM_ASAN
    {
        const void *bottom;
        size_t size;
        __sanitizer_finish_switch_fiber(nullptr, &bottom, &size);
        if (g_launch.from_scheduler) { /* the main stack's bounds, for the way back */
            g_main_stack_bottom = bottom;
            g_main_stack_size = size;
        }
    }
#endif
    g_launch.on_fiber = true;
    run_thread();
    g_launch.current->state = DONE;
    hand_over(nullptr);
    __builtin_unreachable();
}

/* From the scheduler (on the main stack) into the pass's first ready thread, i;
 * back when the pass is over. */
void run_fiber(Thread &t, int i)
{
    Launch &L = g_launch;
    prepare_fiber(t, i);
#if CUDASIM_ASAN
    L.from_scheduler = true;
    __sanitizer_start_switch_fiber(&g_main_fake_stack, t.stack, kStackBytes);
#endif
#if CUDASIM_FAST_SWITCH
    cudasim_switch(&L.scheduler_sp, t.sp);
#else
    swapcontext(&L.scheduler, &t.ctx);
#endif
    L.on_fiber = false;
#if CUDASIM_ASAN
    __sanitizer_finish_switch_fiber(g_main_fake_stack, nullptr, nullptr);
#endif
}

/* One pass over the block: each ready thread in turn runs to its next barrier,
 * warp operation or end, and hands over to the next. False when none was ready. */
bool run_pass()
{
    Launch &L = g_launch;
    int k = next_ready(-1);
    if (k < 0) return false;
    L.turn = k;
    int i = thread_of_turn(L, k);
    run_fiber(L.threads[i], i);
    return true;
}

void range_text(const std::vector<int> &ids, char *buf, size_t n)
{
    /* "0-31, 64" */
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < ids.size() && used < n;) {
        size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) j++;
        used += snprintf(buf + used, n - used, "%s%d", used ? ", " : "", ids[i]);
        if (j > i && used < n) used += snprintf(buf + used, n - used, "-%d", ids[j]);
        i = j + 1;
        if (used > n - 40) {
            snprintf(buf + used, n - used, ", ...");
            break;
        }
    }
}

/* Settle the warp operations whose lanes have all arrived. Lanes of one warp
 * may wait in separate groups (half-warp masks, say): each group, the lanes
 * named in a waiting lane's mask, goes on when all of them wait at an
 * operation with that same mask. A lane of the group that returned or waits
 * at __syncthreads can never come: that is reported (and the launch fails). */
bool resolve_warps()
{
    bool progress = false;
    int n = g_launch.nthreads;
    for (int w = 0; w * 32 < n; w++) {
        int base = w * 32, lanes = n - base < 32 ? n - base : 32;
        for (int first = 0; first < lanes; first++) {
            Thread &lead = g_launch.threads[base + first];
            if (lead.state != AT_WARP) continue;
            unsigned mask = lead.mask;
            bool ready = true;
            for (int l = 0; l < lanes && ready; l++) {
                if (!(mask >> l & 1)) continue;
                Thread &t = g_launch.threads[base + l];
                if (t.state == DONE || t.state == AT_BARRIER) {
                    report("kernel %s, block (%u,%u,%u): lane %d of warp %d %s, but the warp "
                           "operation at %s:%d waits for it (mask 0x%08x): a warp operation "
                           "inside a branch that not every lane of its mask takes",
                           g_launch.cfg->name, cudasim_block_idx.x, cudasim_block_idx.y,
                           cudasim_block_idx.z, l, w,
                           t.state == DONE ? "returned" : "waits at __syncthreads", lead.file,
                           lead.line, mask);
                    abort_launch(cudaErrorLaunchFailure);
                }
                ready = t.state == AT_WARP && t.mask == mask && t.op == lead.op;
            }
            if (!ready) continue;
            uint16_t sync = ++g_launch.warp_sync[w]; /* these lanes are now ordered (race checks) */
            unsigned long long vote = 0;
            bool any = false, all = true;
            for (int l = 0; l < lanes; l++)
                if (mask >> l & 1) {
                    Thread &t = g_launch.threads[base + l];
                    vote |= (unsigned long long)(t.value != 0) << l;
                    any = any || t.value != 0;
                    all = all && t.value != 0;
                }
            for (int l = 0; l < lanes; l++) {
                if (!(mask >> l & 1)) continue;
                Thread &t = g_launch.threads[base + l];
                int width = t.width, seg = l & ~(width - 1), src = l;
                switch (t.op) {
                case cudasim::SHFL_IDX: src = seg + (t.arg & (width - 1)); break;
                case cudasim::SHFL_UP: src = l - t.arg >= seg ? l - t.arg : l; break;
                case cudasim::SHFL_DOWN: src = l + t.arg < seg + width ? l + t.arg : l; break;
                case cudasim::SHFL_XOR:
                    src = (l ^ t.arg) < seg + width ? (l ^ t.arg) : l;
                    break;
                default: break;
                }
                if (src >= lanes) src = l;
                switch (t.op) {
                case cudasim::BALLOT: t.result = vote; break;
                case cudasim::ANY: t.result = any; break;
                case cudasim::ALL: t.result = all; break;
                case cudasim::WARP_SYNC: t.result = 0; break;
                default: t.result = g_launch.threads[base + src].value; break;
                }
                t.wsync = sync;
                t.state = READY;
            }
            progress = true;
        }
    }
    return progress;
}

/* Why nothing can go on: two lanes of a warp whose operations wait for each
 * other (different masks or operations), for the report. */
void explain_stuck(char *buf, size_t size)
{
    snprintf(buf, size, "the threads wait for one another and none can go on");
    if (explain_await(buf, size)) return; /* a cuda::barrier's phase that cannot complete */
    for (int i = 0; i < g_launch.nthreads; i++) {
        const Thread &a = g_launch.threads[i];
        if (a.state != AT_WARP) continue;
        int base = i - i % 32;
        for (int l = 0; l < 32 && base + l < g_launch.nthreads; l++) {
            const Thread &b = g_launch.threads[base + l];
            if ((a.mask >> l & 1) && b.state == AT_WARP && (b.mask != a.mask || b.op != a.op)) {
                snprintf(buf, size,
                         "lane %d of warp %d waits at the warp operation at %s:%d with mask "
                         "0x%08x, which names lane %d, and lane %d waits at the one at %s:%d "
                         "with mask 0x%08x: every lane named in a mask must reach the same "
                         "operation",
                         i % 32, i / 32, a.file, a.line, a.mask, l, l, b.file, b.line, b.mask);
                return;
            }
        }
    }
}

/* Every thread of the block, waiting at one barrier, goes on; count: those whose
 * predicate held. __syncthreads_count, _and, _or: every thread gets the block's answer. */
void release_barrier(int op, unsigned long long count)
{
    Launch &L = g_launch;
    unsigned long long n = (unsigned long long)L.nthreads;
    unsigned long long result = op == cudasim::SYNC_COUNT ? count
                                : op == cudasim::SYNC_AND ? count == n
                                : op == cudasim::SYNC_OR  ? count != 0
                                                          : 0;
    for (int i = 0; i < L.nthreads; i++) {
        L.threads[i].result = result;
        L.threads[i].state = READY;
    }
    L.stamp++; /* a new epoch: what came before is ordered with what comes after */
    printf_flush();
}

/* Release a barrier that every live thread of the block has reached; returns
 * false when there is none, and reports a barrier that cannot be released
 * (1 in *bad; the caller aborts, after the vectors here are gone). */
bool resolve_barrier(int *bad)
{
    Launch &L = g_launch;
    *bad = 0;
    /* Most often every thread waits at one and the same __syncthreads: released
     * in one look at each thread. */
    {
        const Thread &f = L.threads[0];
        unsigned long long count = 0;
        int i = 0;
        for (; i < L.nthreads; i++) {
            const Thread &t = L.threads[i];
            if (t.state != AT_BARRIER || t.line != f.line || t.file != f.file || t.op != f.op)
                break;
            count += t.value != 0;
        }
        if (i == L.nthreads) {
            release_barrier(f.op, count);
            return true;
        }
    }
    /* kept: no allocation per barrier (and never destroyed, like every static of the
     * simulator's functions: a program may call CUDA from its own destructors) */
    static thread_local auto &waiting = *new std::vector<int>, &done = *new std::vector<int>,
                             &elsewhere = *new std::vector<int>;
    waiting.clear();
    done.clear();
    elsewhere.clear();
    /* The lanes of a warp must wait at the same __syncthreads; different warps
     * may wait at different ones, which a GPU since Volta takes as one barrier
     * (PTX's bar.sync 0 counts the block's threads, whichever instruction they
     * reached: warp-specialized kernels, siboehm's double buffering, rely on it). */
    const Thread *first = nullptr, *warp_first = nullptr;
    for (int i = 0; i < L.nthreads; i++) {
        Thread &t = L.threads[i];
        if (i % 32 == 0) warp_first = nullptr;
        if (t.state == AT_BARRIER) {
            if (!first) first = &t;
            if (!warp_first) warp_first = &t;
            if (t.line != warp_first->line || t.op != first->op ||
                (t.file != warp_first->file && strcmp(t.file, warp_first->file) != 0))
                elsewhere.push_back(i);
            else
                waiting.push_back(i);
        } else if (t.state == DONE) {
            done.push_back(i);
        } else {
            return false; /* someone is still at a warp operation */
        }
    }
    if (!first) return false;
    char a[200], b[200];
    if (!done.empty()) {
        range_text(waiting, a, sizeof a);
        range_text(done, b, sizeof b);
        report("kernel %s, block (%u,%u,%u): the __syncthreads at %s:%d was reached by threads "
               "%s of %d, but threads %s returned without reaching it: every thread of a block "
               "must reach every __syncthreads (do not put one inside a branch, or return "
               "early, for some threads only)",
               L.cfg->name, cudasim_block_idx.x, cudasim_block_idx.y, cudasim_block_idx.z,
               first->file, first->line, a, L.nthreads, b);
        *bad = 1;
        return false;
    }
    if (!elsewhere.empty()) {
        /* The warp of the first thread elsewhere: its lanes at its first lane's barrier
         * (a), and those at another (b). */
        const Thread &o = L.threads[elsewhere[0]];
        int w = elsewhere[0] / 32;
        std::vector<int> here, there;
        const Thread *lead = nullptr;
        for (int i = w * 32; i < L.nthreads && i < w * 32 + 32; i++) {
            const Thread &t = L.threads[i];
            if (t.state != AT_BARRIER) continue;
            if (!lead) lead = &t;
            bool same = t.line == lead->line &&
                        (t.file == lead->file || strcmp(t.file, lead->file) == 0);
            (same ? here : there).push_back(i);
        }
        if (there.empty()) { /* the same place, another operation (_count, _and, _or) */
            lead = &L.threads[waiting.empty() ? elsewhere[0] : waiting[0]];
            here = waiting;
            there = elsewhere;
        }
        range_text(here, a, sizeof a);
        range_text(there, b, sizeof b);
        report("kernel %s, block (%u,%u,%u): threads %s wait at the __syncthreads at %s:%d, "
               "threads %s at the one at %s:%d: a barrier inside a branch that threads take "
               "differently (the lanes of a warp must reach the same __syncthreads, and every "
               "thread the same kind: plain, _count, _and or _or)",
               L.cfg->name, cudasim_block_idx.x, cudasim_block_idx.y, cudasim_block_idx.z, a,
               lead->file, lead->line, b, o.file, o.line);
        *bad = 1;
        return false;
    }
    unsigned long long count = 0;
    for (int i : waiting) count += L.threads[i].value != 0;
    release_barrier(first->op, count); /* (waiting: every thread of the block) */
    return true;
}

} // namespace


void run_block_fibers(bool resume)
{
    Launch &L = g_launch;
    if (!resume) {
        for (int i = 0; i < L.nthreads; i++) {
            Thread &t = L.threads[i];
            t.state = READY;
            t.started = false;
            t.wsync = 0;
        }
        L.warp_sync.assign((size_t)(L.nthreads + 31) / 32, 0);
    }
    /* Each pass runs the ready threads in turn (run_pass). Odd blocks run them
     * last to first: a missing barrier then shows whichever neighbour a thread
     * reads (a thread runs before the one whose value it needs, and finds the
     * shared memory's NaN fill). */
    for (;;) {
        bool ran = run_pass();
        bool all_done = true, at_warp = false;
        for (int i = 0; i < L.nthreads; i++) {
            State s = L.threads[i].state;
            all_done &= s == DONE;
            at_warp |= s == AT_WARP;
        }
        if (all_done) return;
        if (at_warp && resolve_warps()) continue;
        int bad;
        if (resolve_barrier(&bad)) continue;
        if (bad) abort_launch(cudaErrorLaunchFailure);
        if (!ran) {
            if (L.cfg->cooperative && block_at_grid_sync()) return; /* cooperative.cpp */
            char why[512];
            explain_stuck(why, sizeof why);
            report("kernel %s, block (%u,%u,%u): %s", L.cfg->name, cudasim_block_idx.x,
                   cudasim_block_idx.y, cudasim_block_idx.z, why);
            abort_launch(cudaErrorLaunchFailure);
        }
    }
}

/* A kernel without barriers: its threads are plain calls, one after another (from
 * turn `from` on, after a thread faulted). */
void run_block_plain(unsigned from)
{
    const dim3 &b = g_launch.cfg->block;
    g_launch.current = nullptr;
    bool reverse = g_launch.block_serial & 1; /* as in run_block_fibers */
    unsigned count = b.x * b.y * b.z;
    g_launch.wsync = 0;
    if (from == 0) g_launch.plain_done = 0;
    for (unsigned k = from; k < count; k++) {
        g_launch.plain_k = k;
        unsigned i = reverse ? count - 1 - k : k;
        cudasim_thread_idx = uint3{i % b.x, i / b.x % b.y, i / (b.x * b.y)};
        g_launch.tid = (int)i;
        run_thread();
        g_launch.plain_done++;
    }
}

/* A thread faulted (it is the current one, and will not run again): the others run as
 * far as they can, to their end or to a barrier or warp operation, which is not
 * released (the faulted thread will never reach it). Their own faults are counted. */
void finish_block_fibers()
{
    if (g_launch.current) g_launch.current->state = DONE;
    while (run_pass()) {
    }
}

namespace {
/* A kernel run without fibers reached a barrier or a warp operation: if no
 * thread has finished yet, run_kernel starts it again with fibers; if some
 * have, say so. */
[[noreturn]] void needs_fibers(const char *what, const char *file, int line)
{
    g_launch.need_fibers = true;
    if (!(g_launch.block_serial == g_launch.first_block && g_launch.plain_done == 0))
        report("kernel %s: %s at %s:%d, but the kernel was run without fibers (the translator did "
               "not see it, and some threads had finished: call it from the kernel or a "
               "__device__ function of the same file)",
               g_launch.cfg->name, what, file, line);
    abort_launch(cudaErrorLaunchFailure);
}

int block_barrier(int op, int predicate, const char *file, int line)
{
    Launch &L = g_launch;
    if (!L.fibers) needs_fibers("__syncthreads", file, line);
    Thread *t = L.current;
    t->state = AT_BARRIER;
    t->op = op;
    t->value = predicate != 0;
    t->file = file;
    t->line = line;
    hand_over(t);
    return (int)t->result;
}
} // namespace

/* A grid sync: the thread waits until cooperative.cpp resumes its block. */
void fiber_grid_wait(const char *file, int line)
{
    Thread *t = g_launch.current;
    t->state = AT_GRID;
    t->file = file;
    t->line = line;
    hand_over(t);
}

void fiber_await(const void *bar, const void *pc)
{
    if (!g_launch.fibers) {
        std::string at = source_line(pc); /* "file:line" */
        size_t colon = at.rfind(':');
        needs_fibers("a cuda::barrier wait", at.substr(0, colon).c_str(),
                     colon == std::string::npos ? 0 : atoi(at.c_str() + colon + 1));
    }
    Thread *t = g_launch.current;
    t->state = AT_AWAIT;
    t->awaits = bar;
    t->await_pc = pc;
    hand_over(t);
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" void cudasim_syncthreads(const char *file, int line)
{
    block_barrier(cudasim::SYNC_PLAIN, 0, file, line);
}

extern "C" int cudasim_syncthreads_op(int op, int predicate, const char *file, int line)
{
    return block_barrier(op, predicate, file, line);
}

extern "C" unsigned long long cudasim_warp_op(int op, unsigned mask, unsigned long long value,
                                              int arg, int width, const char *file, int line)
{
    if (!g_launch.fibers) needs_fibers("a warp operation", file, line);
    if (width <= 0 || width > 32 || (width & (width - 1))) {
        char who[256];
        describe_thread(who, sizeof who);
        report("%s: a shuffle width of %d at %s:%d; it must be a power of 2 up to 32", who,
               width, file, line);
        abort_launch(cudaErrorLaunchFailure);
    }
    Thread *t = g_launch.current;
    int lane = (int)(t - g_launch.threads.data()) % 32;
    if (!(mask >> lane & 1)) {
        char who[256];
        describe_thread(who, sizeof who);
        report("%s: lane %d calls the warp operation at %s:%d with mask 0x%08x, which does not "
               "include it",
               who, lane, file, line, mask);
        abort_launch(cudaErrorLaunchFailure);
    }
    t->state = AT_WARP;
    t->op = op;
    t->mask = mask;
    t->value = value;
    t->arg = arg;
    t->width = width;
    t->file = file;
    t->line = line;
    hand_over(t);
    return t->result;
}
