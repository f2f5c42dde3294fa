/*
 * parallel.cpp: a launch's blocks on every core. A launch that runs its
 * kernel's uninstrumented twin (twins.cpp), of a kernel whose code calls
 * nothing whose result depends on the order of the blocks (no atomics, no
 * printf, no malloc, no clock, nothing the simulator cannot see into:
 * translate/twin_parallel.pl), runs its first block alone, as any launch,
 * and the others on the cores of the machine at once: each worker, one per
 * core (CUDASIM_THREADS), takes the next block, runs it on its own launch
 * state (g_launch is per thread), with its own fibers and its own shared
 * memory, and takes another, until none is left. Such a kernel's result
 * cannot depend on the order, so it is the one a block after another gives.
 *
 * A thread that faults stops its block as in a launch of one block at a time
 * (launch.cpp); the workers then take no more blocks, and the launch reports
 * the fault of the lowest block that faulted, which is the one a run of one
 * block at a time reports (every block before it has run).
 */
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "../internal.h"

namespace cudasim {
namespace internal {
namespace {

/* The blocks [g_next, g_end) of the launch under way, and how the first that did
 * not end well ended. */
std::atomic<unsigned long long> g_next{0};
unsigned long long g_end = 0, g_serial0 = 0;
std::atomic<bool> g_stop{false};
std::mutex &g_outcome_lock = *new std::mutex;
unsigned long long g_bad_block = 0; /* the lowest block that faulted or aborted */
int g_bad_how = 0;                  /* 1 aborted, 2 faulted; 0 none */
Launch *g_bad_state = nullptr;      /* its worker's launch state */

/* The pool: a launch state per participant (the caller's first), and the
 * threads of the others, waiting for a launch. */
struct Pool {
    std::vector<Launch *> states;
    std::vector<std::thread> threads;
    std::mutex lock;
    std::condition_variable wake, done;
    unsigned long long job = 0; /* launches handed out so far */
    int running = 0;            /* workers still at the job */
};
/* (A child of fork has none of its parent's threads: it makes a pool of its own.) */
Pool *g_pool = nullptr;
pid_t g_pool_pid = 0;
Pool &pool_here()
{
    if (!g_pool || g_pool_pid != getpid()) {
        g_pool = new Pool; /* (a parent's is left as it is: its lock may be held) */
        g_pool_pid = getpid();
    }
    return *g_pool;
}

} // namespace

int parallel_threads()
{
    static int n = 0;
    if (n) return n;
    const char *env = getenv("CUDASIM_THREADS");
    if (env && *env) {
        n = atoi(env);
        if (n < 1) n = 1;
        return n;
    }
    cpu_set_t set;
    n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    if (n < 1) n = 1;
    return n;
}

namespace {

/* Block b of the grid, on this thread's launch state: 0 when it ran to its end,
 * 1 when it aborted (abort_launch, after its report), 2 when a thread faulted
 * (the block's others then ran as far as they could). */
int run_block(unsigned long long b)
{
    const cudasim::LaunchConfig *cfg = g_launch.cfg;
    unsigned long long gx = cfg->grid.x, gy = cfg->grid.y;
    cudasim_block_idx = uint3{(unsigned)(b % gx), (unsigned)(b / gx % gy), (unsigned)(b / (gx * gy))};
    g_launch.block_serial = g_serial0 + b;
    g_launch.stamp = (uint64_t)g_launch.block_serial << 24;
    g_launch.faulted = false;
    g_launch.fault_more = 0;
    arena_block();
    int left = sigsetjmp(g_launch.abort_env, 1);
    if (left != 0) {
        g_launch.on_fiber = false;
        allow_device_memory(true); /* (the fault handler ran with the signal's PKRU) */
    }
    if (left == 2) { /* each thread of the block that faults comes back here */
        if (g_launch.fibers)
            finish_block_fibers();
        else
            run_block_plain(g_launch.plain_k + 1);
        return 2;
    }
    if (left == 1) return 1;
    if (g_launch.fibers)
        run_block_fibers();
    else
        run_block_plain();
    return 0;
}

/* Blocks, one after another, until none is left or some block did not end well. */
void take_blocks(Launch &state)
{
    t_launch = &state;
    allow_device_memory(true);
    arena_init();
    cudasim_grid_dim = state.cfg->grid;
    cudasim_block_dim = state.cfg->block;
    for (;;) {
        unsigned long long b = g_next.fetch_add(1);
        if (b >= g_end || g_stop.load(std::memory_order_relaxed)) break;
        int how = run_block(b);
        if (how) {
            std::lock_guard<std::mutex> hold(g_outcome_lock);
            if (!g_bad_how || b < g_bad_block) {
                g_bad_block = b;
                g_bad_how = how;
                g_bad_state = &state;
            }
            g_stop.store(true);
            break;
        }
    }
    allow_device_memory(false);
}

void worker(Pool *p, int k)
{
    install_fault_handler(); /* (this thread's own stack for the fault handler) */
    Pool &pool = *p;
    unsigned long long seen = 0;
    for (;;) {
        {
            std::unique_lock<std::mutex> hold(pool.lock);
            pool.wake.wait(hold, [&] { return pool.job != seen; });
            seen = pool.job;
        }
        take_blocks(*pool.states[k]);
        t_launch = &g_main_launch;
        std::lock_guard<std::mutex> hold(pool.lock);
        if (--pool.running == 0) pool.done.notify_one();
    }
}

/* A participant's launch state for this launch: the caller's, less what each
 * runs for itself. */
void prepare(Launch &state)
{
    state = g_main_launch;
    state.current = nullptr;
    state.on_fiber = false;
    state.faulted = false;
    state.fault_more = 0;
    state.fault_report.clear();
    state.checking = state.profiling = state.global_races = state.check_accesses = false;
}

} // namespace

bool launch_runs_parallel()
{
    const cudasim::LaunchConfig *cfg = g_launch.cfg;
    return g_launch.twin && g_launch.twin_parallel && !cfg->cooperative && parallel_threads() > 1 &&
           (unsigned long long)cfg->grid.x * cfg->grid.y * cfg->grid.z > 2;
}

int run_blocks_parallel(unsigned long long from, unsigned long long end)
{
    Pool &pool = pool_here();
    int n = parallel_threads();
    while ((int)pool.states.size() < n) pool.states.push_back(new Launch);
    for (int k = 0; k < n; k++) prepare(*pool.states[k]);
    g_serial0 = g_launch.block_serial - (from - 1); /* the serial of block 0 */
    g_next.store(from);
    g_end = end;
    g_stop.store(false);
    g_bad_how = 0;
    g_bad_state = nullptr;
    {
        std::lock_guard<std::mutex> hold(pool.lock);
        while ((int)pool.threads.size() < n - 1) {
            int k = (int)pool.threads.size() + 1;
            pool.threads.emplace_back(worker, &pool, k);
            pool.threads.back().detach();
        }
        pool.running = n - 1;
        pool.job++;
    }
    pool.wake.notify_all();
    take_blocks(*pool.states[0]);
    t_launch = &g_main_launch;
    {
        std::unique_lock<std::mutex> hold(pool.lock);
        pool.done.wait(hold, [&] { return pool.running == 0; });
    }
    allow_device_memory(true);
    g_launch.block_serial = g_serial0 + (end - 1);
    if (!g_bad_how) return 0;
    /* The lowest block that did not end well, as if it had run here. */
    Launch &bad = *g_bad_state;
    g_launch.block_serial = g_serial0 + g_bad_block;
    g_launch.error = bad.error;
    g_launch.faulted = bad.faulted;
    g_launch.fault_tid = bad.fault_tid;
    g_launch.fault_error = bad.fault_error;
    g_launch.fault_report = bad.fault_report;
    g_launch.fault_who_end = bad.fault_who_end;
    g_launch.fault_more = bad.fault_more;
    return g_bad_how;
}

} // namespace internal
} // namespace cudasim
