/*
 * launch.cpp: a kernel launch. The configuration is checked when the launch
 * is issued (as CUDA does); then the launch runs now, or a stream capture
 * records it. Running it, the blocks of the grid run one after another
 * (fibers.cpp runs a block's threads), with the checks of every access on
 * (access.cpp) when the kernel was compiled with the simulator's
 * instrumentation. A failed assert or a bad barrier leaves the launch
 * through abort_launch; a thread's fault stops that thread, the block's
 * others run on, and the launch stops at the block's end with the report of
 * its first thread to fault (note_fault, leave_faulted_thread). The kernels' registry, their attributes, and
 * the printf buffer of a block are here too.
 */
#include <stdarg.h>
#include <time.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>

#include "../cudasim.h"
#include "../internal.h"
#include "../profile/profile.h"

/* ---- the coordinates kernels read ---------------------------------------- */

thread_local uint3 cudasim_thread_idx, cudasim_block_idx;
thread_local dim3 cudasim_block_dim, cudasim_grid_dim;

namespace cudasim {
namespace internal {

Launch g_main_launch;
thread_local Launch *t_launch = &g_main_launch;
unsigned long long g_launches = 0;
std::map<const void *, int> g_dynamic_limit; /* cudaFuncSetAttribute's, by kernel */

namespace {

/* What the translator found of each kernel: whether it uses barriers or warp
 * operations, and whether its accesses are instrumented; filled by static
 * initializers of translated files, hence a function-local static
 * (constructed on first use). */
struct KernelInfo {
    int barriers = 0;
    int instrumented = 1;
    unsigned long long launches = 0; /* run so far (global races: the first few only) */
    /* Its launches of each shape (launch_shape) that ran checked and clean. */
    std::map<uint64_t, unsigned long long> clean;
};
std::map<std::string, KernelInfo> &kernels()
{
    static auto &table = *new std::map<std::string, KernelInfo>; /* (never destroyed) */
    return table;
}

/* printf in a kernel: each thread's lines since its block's last barrier,
 * printed at the barrier or the block's end, the k-th printf of every lane
 * of a warp together, lane by lane, warp after warp: the order a GPU's printf
 * buffer gives a warp (the simulator runs the threads one at a time, some
 * blocks last to first). */
std::vector<std::vector<std::string>> g_printf;
bool g_printf_any = false;

void printf_begin(int nthreads)
{
    if ((int)g_printf.size() < nthreads) g_printf.resize(nthreads);
    for (auto &v : g_printf) v.clear();
    g_printf_any = false;
}

} // namespace

void printf_flush()
{
    if (!g_printf_any) return;
    g_printf_any = false;
    size_t n = g_printf.size();
    for (size_t w = 0; w < n; w += 32) {
        size_t end = std::min(n, w + 32), most = 0;
        for (size_t i = w; i < end; i++) most = std::max(most, g_printf[i].size());
        for (size_t k = 0; k < most; k++)
            for (size_t i = w; i < end; i++)
                if (k < g_printf[i].size()) fputs(g_printf[i][k].c_str(), stdout);
    }
    for (auto &v : g_printf) v.clear();
}

void describe_thread(char *buf, size_t n)
{
    const uint3 &b = cudasim_block_idx, &t = cudasim_thread_idx;
    snprintf(buf, n, "kernel %s, block (%u,%u,%u), thread (%u,%u,%u)", g_launch.cfg->name, b.x, b.y,
             b.z, t.x, t.y, t.z);
}

void note_fault(cudaError_t e, const char *who, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_launch.checking = false; /* (until the block's next thread) */
    if (g_launch.faulted && g_launch.tid > g_launch.fault_tid) {
        g_launch.fault_more++;
        return;
    }
    if (g_launch.faulted) g_launch.fault_more++;
    g_launch.faulted = true;
    g_launch.fault_tid = g_launch.tid;
    g_launch.fault_error = e;
    g_launch.fault_report = buf;
    const char *at = strstr(buf, who);
    g_launch.fault_who_end = at ? (size_t)(at - buf) + strlen(who) : std::string::npos;
}

/* Leave the thread that faulted, for run_grid, which runs the block's others. */
[[noreturn]] void leave_faulted_thread()
{
    g_launch.checking = false;
#if CUDASIM_ASAN
    if (g_launch.on_fiber)
        __sanitizer_start_switch_fiber(nullptr, g_main_stack_bottom, g_main_stack_size);
#endif
    siglongjmp(g_launch.abort_env, 2);
}

/* Leave the launch: from a fiber, a plain thread or the fault handler. */
[[noreturn]] void abort_launch(cudaError_t e)
{
    if (e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorAssert ||
        e == cudaErrorLaunchTimeout || e == cudaErrorMisalignedAddress)
        g_sticky = e;
    g_last = g_launch.error = e;
    g_launch.checking = false;
#if CUDASIM_ASAN
    /* Leaving a fiber for good: tell ASan we are back on the main stack. */
    if (g_launch.on_fiber)
        __sanitizer_start_switch_fiber(nullptr, g_main_stack_bottom, g_main_stack_size);
#endif
    siglongjmp(g_launch.abort_env, 1);
}

namespace {

/* The name the translator registered a kernel under: without namespaces
 * and template arguments. */
std::string kernel_base(const char *name)
{
    std::string base(name);
    size_t lt = base.find('<');
    if (lt != std::string::npos) base.resize(lt);
    size_t colon = base.rfind("::");
    if (colon != std::string::npos) base = base.substr(colon + 2);
    return base;
}

/* A pointer argument into host memory (malloc, new, a host array or
 * variable): a GPU's kernel cannot dereference it, and faults where it does.
 * Here the kernel could reach it: reported once per kernel, and it runs. */
void check_host_pointer(const void *p)
{
    uintptr_t a = (uintptr_t)p, start;
    if (!p || a - g_rg_lo < g_rg_span || a - g_sh_lo < g_sh_span || find_alloc(p) ||
        find_symbol(p, &start) || host_registered(p))
        return;
    static auto &told = *new std::set<std::string>;
    if (!told.insert(g_launch.cfg->name).second) return;
    g_hazards++;
    report("kernel %s is given %p as a pointer argument, which is host memory (malloc, new, or "
           "a host array or variable), not device memory: on most GPU machines the kernel "
           "cannot dereference it and fails with an illegal address where it does; pass "
           "the cudaMalloc (or cudaMallocManaged) pointer",
           g_launch.cfg->name, p);
}

/* How a pointer argument enters a launch's shape: the buffer it points into
 * (by its allocation's number, so a buffer freed and allocated again is a new
 * one) and the offset in it; a pointer into no live buffer (freed, host
 * memory, a __device__ variable) by its value, marked apart. */
uint64_t pointer_shape(const void *p)
{
    uintptr_t start;
    const Alloc *a = p ? find_alloc(p, &start) : nullptr;
    if (!a) return (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull ^ 0x5bd1e995ull;
    return a->serial * 0xc2b2ae3d27d4eb4full ^ ((uint64_t)((uintptr_t)p - start) << 1) ^
           (uint64_t)a->size << 33;
}

/* A launch's shape: its configuration and its arguments (Args::shape); 0
 * when it has none (an argument without plain bytes): then it is always
 * checked. */
uint64_t launch_shape(const cudasim::LaunchConfig *cfg, const cudasim::Args *args)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const unsigned dims[7] = {cfg->grid.x,  cfg->grid.y,  cfg->grid.z, cfg->block.x,
                              cfg->block.y, cfg->block.z, (unsigned)cfg->shared_bytes};
    for (unsigned d : dims) h = (h ^ d) * 0x100000001b3ull;
    h = (h ^ (uint64_t)cfg->cooperative) * 0x100000001b3ull; /* (a cooperative launch apart) */
    if (!args->shape(&h, pointer_shape)) return 0;
    return h ? h : 1;
}

unsigned long long g_checked_launches = 0, g_unchecked_launches = 0, g_twin_launches = 0;
unsigned long long g_parallel_launches = 0; /* of them, those whose blocks ran on several threads */

/* The run's summary, at exit, when asked for (CUDASIM_SUMMARY=1: make sim-run
 * asks) and some launch ran unchecked: how many launches were checked, and
 * how many ran unchecked, and how many of those ran the kernel's twin (twins.cpp). */
void launch_summary()
{
    if (!g_unchecked_launches) return;
    char twins[160] = "";
    if (g_twin_launches)
        snprintf(twins, sizeof twins, ", %llu of them uninstrumented", g_twin_launches);
    if (g_parallel_launches)
        snprintf(twins + strlen(twins), sizeof twins - strlen(twins),
                 " (%llu with their blocks on %d threads)", g_parallel_launches, parallel_threads());
    fprintf(stderr,
            "cudasim: %llu launch%s checked, %llu ran unchecked%s (a kernel's launches of one "
            "shape run unchecked after its first %llu of that shape were clean; CUDASIM_CHECK=all "
            "checks every launch)\n",
            g_checked_launches, g_checked_launches == 1 ? "" : "es", g_unchecked_launches, twins,
            kCheckedLaunches);
}

/* Unknown kernels get fibers (the safe choice) and are taken as not
 * instrumented (their buffers count as written after the launch). */
KernelInfo kernel_info(const char *name)
{
    auto it = kernels().find(kernel_base(name));
    if (it == kernels().end()) {
        KernelInfo unknown;
        unknown.barriers = 1;
        unknown.instrumented = 0;
        return unknown;
    }
    return it->second;
}

/* A kernel that is not instrumented may have written any buffer it was given. */
void mark_argument_written(const void *p)
{
    uintptr_t start;
    const Alloc *a = find_alloc(p, &start);
    if (a && a->device) mark_written((const void *)start, a->size);
}

cudaError_t check_config(const cudasim::LaunchConfig *c)
{
    const dim3 &g = c->grid, &b = c->block;
    unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
    if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0) {
        report("kernel %s: launched with an empty grid (%u,%u,%u) or block (%u,%u,%u) "
               "(CUDA reports: invalid configuration argument)",
               c->name, g.x, g.y, g.z, b.x, b.y, b.z);
        return cudaErrorInvalidConfiguration;
    }
    if (threads > (unsigned long long)kMaxThreadsPerBlock || b.x > (unsigned)kMaxBlockDim[0] ||
        b.y > (unsigned)kMaxBlockDim[1] || b.z > (unsigned)kMaxBlockDim[2]) {
        report("kernel %s: a block of %llu threads (%u x %u x %u); a block may have at most "
               "%d threads, and at most %d in z (CUDA reports: invalid configuration argument)",
               c->name, threads, b.x, b.y, b.z, kMaxThreadsPerBlock, kMaxBlockDim[2]);
        return cudaErrorInvalidConfiguration;
    }
    if (g.y > (unsigned)kMaxGridDim[1] || g.z > (unsigned)kMaxGridDim[2] ||
        g.x > (unsigned)kMaxGridDim[0]) {
        report("kernel %s: a grid of (%u,%u,%u) blocks; y and z may be at most %d (CUDA "
               "reports: invalid configuration argument)",
               c->name, g.x, g.y, g.z, kMaxGridDim[1]);
        return cudaErrorInvalidConfiguration;
    }
    int bound = kernel_max_threads(c->fn);
    if (bound > 0 && threads > (unsigned long long)bound) {
        report("kernel %s: launched with blocks of %llu threads, but its __launch_bounds__ allow "
               "at most %d (CUDA reports: too many resources requested for launch)",
               c->name, threads, bound);
        return cudaErrorLaunchOutOfResources;
    }
    size_t limit = kSharedPerBlock - std::min(kernel_static_shared(c->fn), kSharedPerBlock);
    auto it = g_dynamic_limit.find(c->fn);
    if (it != g_dynamic_limit.end()) limit = (size_t)it->second;
    if (c->shared_bytes > limit) {
        report("kernel %s: asks for %zu bytes of dynamic shared memory; the limit is %zu "
               "without cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) and "
               "%zu with it (CUDA reports: invalid argument)",
               c->name, c->shared_bytes, limit, kSharedPerBlockOptin);
        return cudaErrorInvalidValue;
    }
    if (!stream_ok(c->stream)) {
        report("kernel %s: launched on a stream that does not exist (destroyed?) (CUDA reports: "
               "invalid resource handle)",
               c->name);
        return cudaErrorInvalidResourceHandle;
    }
    return cudaSuccess;
}

/* A launch begins: the one place every launch that runs passes first (now,
 * or each time a graph runs it), before any of its threads. It takes
 * g_launch, and decides what the launch checks. (Per-launch counters start
 * here.) */
cudaError_t launch_begin(const cudasim::LaunchConfig *cfg, const cudasim::Args *args)
{
    g_launch.cfg = cfg;
    g_launch.args = args;
    g_launch.error = cudaSuccess;
    KernelInfo info = kernel_info(cfg->name);
    g_launch.fibers = info.barriers || cfg->cooperative; /* (a grid sync needs fibers) */
    g_launch.instrumented = info.instrumented;
    unsigned long long launches =
        info.instrumented ? ++kernels()[kernel_base(cfg->name)].launches : 0;
    if (!arena_init()) {
        report("kernel %s: no memory for the simulator's shared memory", cfg->name);
        return fail(cudaErrorLaunchOutOfResources);
    }
    check_level();
    /* A kernel's launches of one shape, once kCheckedLaunches of them ran
     * clean, run unchecked (unless CUDASIM_CHECK=all). */
    g_launch.shape = 0;
    bool unchecked = false;
    if (info.instrumented && g_check_level > 0 && g_check_level < 3) {
        g_launch.shape = launch_shape(cfg, args);
        if (g_launch.shape) {
            auto &clean = kernels()[kernel_base(cfg->name)].clean;
            auto it = clean.find(g_launch.shape);
            unchecked = it != clean.end() && it->second >= kCheckedLaunches;
        }
    }
    g_launch.check_accesses = info.instrumented && g_check_level > 0 && !unchecked;
    if (info.instrumented && g_check_level > 0) {
        if (unchecked)
            g_unchecked_launches++;
        else
            g_checked_launches++;
    }
    static bool summary = false;
    if (!summary) {
        summary = true;
        const char *env = getenv("CUDASIM_SUMMARY");
        if (env && !strcmp(env, "1")) atexit(launch_summary);
    }
    g_launch.reports_before = g_report_count;
    g_launch.global_races = g_launch.check_accesses &&
        (g_check_level >= 3 || (g_check_level == 2 && launches <= kGlobalRaceLaunches));
    find_read_only_buffers(args);
    args->pointer_arguments(check_host_pointer);
    profile_launch_begin();
    g_launch.twin = nullptr;
    if (info.instrumented && !g_launch.check_accesses && !g_launch.profiling) {
        g_launch.twin = kernel_twin(args->kernel(), &g_launch.twin_parallel);
        if (g_launch.twin && g_check_level > 0) g_twin_launches++;
    }
    return cudaSuccess;
}

enum Attempt { FINISHED, ABORTED, AGAIN_WITH_FIBERS };

/* A block's threads faulted and the rest of it ran (g_launch's fault_ fields): the report
 * of its first thread to fault, with how many more did, and the launch's error. */
void report_block_fault()
{
    std::string text = g_launch.fault_report;
    size_t at = g_launch.fault_who_end;
    if (g_launch.fault_more && at != std::string::npos) {
        /* after "thread (x,y,z)" and its " at file:line" */
        if (text.compare(at, 4, " at ") == 0) {
            size_t end = text.find(' ', at + 4);
            if (end == std::string::npos) end = text.size();
            at = text[end - 1] == ':' ? end - 1 : end;
        }
        char more[96];
        snprintf(more, sizeof more, " (and %u more thread%s of this block)", g_launch.fault_more,
                 g_launch.fault_more == 1 ? "" : "s");
        text.insert(at, more);
    }
    report("%s", text.c_str());
    cudaError_t e = g_launch.fault_error;
    g_sticky = g_last = g_launch.error = e;
}

/* Run the grid's blocks, one after another, unless something aborts the
 * launch (abort_launch comes back here). A kernel run without fibers that
 * reaches a barrier before any thread of its first block has finished is to
 * be run again, with fibers: whatever an attempt did is forgotten then. */
Attempt run_grid()
{
    const cudasim::LaunchConfig *cfg = g_launch.cfg;
    g_launch.need_fibers = false;
    g_launch.nthreads = (int)(cfg->block.x * cfg->block.y * cfg->block.z);
    if (g_launch.fibers) {
        if ((int)g_launch.threads.size() < g_launch.nthreads)
            g_launch.threads.resize(g_launch.nthreads);
        for (int i = 0; i < g_launch.nthreads; i++) {
            Thread &t = g_launch.threads[i];
            t.idx.x = i % cfg->block.x;
            t.idx.y = i / cfg->block.x % cfg->block.y;
            t.idx.z = i / (cfg->block.x * cfg->block.y);
        }
    }
    g_launch.static_shared = 0;
    printf_begin(g_launch.nthreads); /* (a restart forgets what its first try printed) */
    arena_begin(cfg);
    cudasim_grid_dim = cfg->grid;
    cudasim_block_dim = cfg->block;
    /* With mprotect, open the buffers passed as arguments now: cheaper than
     * a fault each (those reached otherwise fault, and open then). */
    if (!g_use_pkeys) g_launch.args->pointers(open_for_device);

    g_launch.first_block = g_launch.block_serial + 1;
    g_launch.in_kernel = true;
    g_launch.on_fiber = false;
    g_launch.faulted = false;
    g_launch.fault_more = 0;
    Attempt how = FINISHED;
    bool checks = g_launch.instrumented && (g_launch.check_accesses || g_launch.profiling);
    int left = sigsetjmp(g_launch.abort_env, 1);
    if (left != 0) {
#if CUDASIM_ASAN
        if (g_launch.on_fiber) __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
        g_launch.on_fiber = false;
        g_launch.checking = false;
        /* Back from the fault handler, which ran with the signal's PKRU. */
        allow_device_memory(true);
    }
    if (left == 2) {
        /* A thread faulted (leave_faulted_thread): the block's other threads run on,
         * each that faults leaving here again; then the launch stops with the report of
         * the block's first faulting thread, as compute-sanitizer names the first. */
        g_launch.checking = checks;
        if (g_launch.fibers)
            finish_block_fibers();
        else
            run_block_plain(g_launch.plain_k + 1);
        g_launch.checking = false;
        report_block_fault();
    }
    if (left != 0) {
        printf_flush(); /* what the block printed before it stopped */
        how = ABORTED;
    } else {
        g_launch.checking = checks;
        if (g_launch.profiling) profile_grid_begin();
        unsigned long long gx = cfg->grid.x, gy = cfg->grid.y, blocks = gx * gy * cfg->grid.z;
        if (cfg->cooperative) run_grid_cooperative(); /* its blocks meet at grid syncs */
        else
        for (unsigned long long b = 0; b < blocks; b++) {
            /* After the first block, alone: the others on every core, where they may. */
            if (b == 1 && launch_runs_parallel()) {
                if (g_check_level > 0) g_parallel_launches++;
                int ended = run_blocks_parallel(1, blocks); /* (as sigsetjmp's left) */
                if (ended == 2) report_block_fault();
                if (ended) how = ABORTED;
                break;
            }
            cudasim_block_idx = uint3{(unsigned)(b % gx), (unsigned)(b / gx % gy), (unsigned)(b / (gx * gy))};
            g_launch.block_serial++;
            g_launch.stamp = (uint64_t)g_launch.block_serial << 24;
            arena_block();
            if (g_launch.fibers)
                run_block_fibers();
            else
                run_block_plain();
            if (g_launch.profiling) profile_block_end();
            printf_flush();
        }
        g_launch.checking = false;
    }
    if (cfg->cooperative) cooperative_end(); /* (also when it stopped between blocks) */
    races_launch_end();
    g_launch.in_kernel = false;
    if (g_launch.need_fibers && !g_launch.fibers &&
        g_launch.block_serial == g_launch.first_block && g_launch.plain_done == 0)
        return AGAIN_WITH_FIBERS;
    return how;
}

/* A launch ends: the one place every launch that began passes last, its
 * threads done or aborted (g_launch.error says which). A kernel that was not
 * instrumented is checked as a whole here. (Per-launch counters end here.) */
void launch_end(Attempt how)
{
    profile_launch_end(how == FINISHED);
    if (g_launch.instrumented && g_launch.shape) {
        unsigned long long &clean = kernels()[kernel_base(g_launch.cfg->name)].clean[g_launch.shape];
        if (g_launch.check_accesses)
            clean = how == FINISHED && g_launch.error == cudaSuccess &&
                            g_report_count == g_launch.reports_before
                        ? clean + 1
                        : 0;
        else /* unchecked: what it may have written counts as written */
            g_launch.args->writable_pointers(mark_argument_written);
    }
    if (how != FINISHED || g_launch.instrumented) return;
    /* Its accesses were not checked: look for writes around its buffers, and
     * count what it was given as written. */
    g_launch.args->pointers(mark_argument_written);
    uintptr_t start;
    bool before = false;
    const Alloc *bad = check_canaries(&start, &before);
    if (bad) {
        report("kernel %s wrote %s %s (build it with the simulator's flags to learn "
               "which thread) (CUDA reports: an illegal memory access was encountered)",
               g_launch.cfg->name, before ? "before the start of" : "past the end of",
               buffer_text(*bad).c_str());
        g_sticky = g_last = g_launch.error = cudaErrorIllegalAddress;
    }
}

/* Run a launch whose configuration has been checked: now, or as a node of a
 * graph. */
cudaError_t run_kernel(const cudasim::LaunchConfig *cfg, const cudasim::Args *args)
{
    DeviceOp op;
    const cudaError_t sticky_before = g_sticky, last_before = g_last;
    if (cudaError_t e = launch_begin(cfg, args)) return e;
    Attempt how;
    while ((how = run_grid()) == AGAIN_WITH_FIBERS) {
        /* It reached a barrier the translator did not see (in a function of
         * another file): before any thread of the first block finished, so
         * it starts again, with fibers. */
        kernels()[kernel_base(cfg->name)].barriers = 1;
        g_launch.fibers = true;
        g_sticky = sticky_before;
        g_last = last_before;
        g_launch.error = cudaSuccess;
    }
    launch_end(how);
    managed_work(cfg->stream, "kernel", cfg->name);
    return g_launch.error;
}

} // namespace

void launch_reset()
{
    g_dynamic_limit.clear();
    kernel_carveouts_reset();
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

/* ---- the kernel-side entry points ----------------------------------------------- */

extern "C" int cudasim_register_kernel(const char *name, int uses_barriers, int instrumented)
{
    KernelInfo &k = kernels()[name];
    k.barriers = k.barriers || uses_barriers;
    k.instrumented = k.instrumented && instrumented;
    return 0;
}

extern "C" cudaError_t cudasim_launch_kernel(const cudasim::LaunchConfig *cfg,
                                             const cudasim::Args *args)
{
    std::lock_guard<std::recursive_mutex> api_lock(api_mutex());
    install_fault_handler();
    Stream *capture = capture_of(cfg->stream);
    if (!capture) g_launches++; /* a recorded launch counts each time its graph runs */
    if (g_sticky) return fail(g_sticky);
    /* The configuration is checked when the launch is issued, captured or not. */
    cudaError_t e = check_config(cfg);
    if (e) return refuse(cfg->stream, e);
    std::string what = std::string("kernel ") + cfg->name;
    Use use = stream_use(what.c_str(), cfg->stream, &e);
    if (use == REFUSED) return e;
    if (use == RECORD) {
        /* CUDA copies the parameters when the launch is issued. */
        std::shared_ptr<const cudasim::Args> kept(args->copy());
        record(*capture, what, [c = *cfg, kept] {
            g_launches++;
            return run_kernel(&c, kept.get());
        });
        return cudaSuccess;
    }
    return run_kernel(cfg, args);
}

extern "C" int cudasim_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n;
    if (!g_launch.in_kernel || g_launch.tid < 0 || (size_t)g_launch.tid >= g_printf.size()) {
        n = vprintf(fmt, ap);
        va_end(ap);
        return n;
    }
    va_list again;
    va_copy(again, ap);
    char buf[512];
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    std::string text;
    if (n >= (int)sizeof buf) {
        text.resize((size_t)n + 1);
        vsnprintf(&text[0], (size_t)n + 1, fmt, again);
        text.resize((size_t)n);
    } else if (n > 0) {
        text = buf;
    }
    va_end(again);
    va_end(ap);
    g_printf[g_launch.tid].push_back(std::move(text));
    g_printf_any = true;
    return n;
}

extern "C" unsigned long long cudasim_clock64(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* A failed assert() in a kernel stops the launch, as on a GPU
 * (cudaErrorAssert, sticky); in host code it is glibc's. (This definition
 * takes the place of glibc's for the whole program.) */
extern "C" void __assert_fail(const char *expr, const char *file, unsigned int line,
                              const char *function)
{
    if (g_launch.in_kernel) {
        char who[256];
        describe_thread(who, sizeof who);
        report("assertion failed in %s: `%s` at %s:%u (CUDA reports: device-side assert triggered)",
               who, expr, file, line);
        abort_launch(cudaErrorAssert);
    }
    fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file,
            line, function, expr);
    fflush(stderr);
    abort();
}

extern "C" unsigned long long cudasim_launch_count(void) { return g_launches; }

extern "C" void cudasim_check_counts(unsigned long long *checked, unsigned long long *unchecked)
{
    if (checked) *checked = g_checked_launches;
    if (unchecked) *unchecked = g_unchecked_launches;
}

/* ---- the kernels' attributes ---- */

extern "C" {

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    API_ENTER();
    (void)func;
    (void)cacheConfig;
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    API_ENTER();
    if (!attr || !func) return fail(cudaErrorInvalidDeviceFunction);
    memset(attr, 0, sizeof *attr);
    /* What the translator registered: __launch_bounds__ and static __shared__ memory. */
    int bound = kernel_max_threads(func);
    attr->maxThreadsPerBlock = bound > 0 && bound < kMaxThreadsPerBlock ? bound : kMaxThreadsPerBlock;
    attr->sharedSizeBytes = kernel_static_shared(func);
    attr->preferredShmemCarveout = kernel_carveout(func);
    attr->numRegs = 32;
    attr->ptxVersion = 80;
    attr->binaryVersion = 80;
    auto it = g_dynamic_limit.find(func);
    attr->maxDynamicSharedSizeBytes =
        it != g_dynamic_limit.end()
            ? it->second
            : (int)(kSharedPerBlock - std::min(attr->sharedSizeBytes, kSharedPerBlock));
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize)
{
    API_ENTER();
    if (!numBlocks || blockSize <= 0 || blockSize > kMaxThreadsPerBlock)
        return fail(cudaErrorInvalidValue);
    int bound = kernel_max_threads(func);
    if (bound > 0 && blockSize > bound) { /* such a launch fails: none fits */
        *numBlocks = 0;
        return cudaSuccess;
    }
    int n = 2048 / blockSize;
    if (n > 32) n = 32;
    size_t shared = dynamicSMemSize + kernel_static_shared(func);
    if (shared && (size_t)n * shared > kSharedPerBlockOptin) n = (int)(kSharedPerBlockOptin / shared);
    *numBlocks = n;
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value)
{
    API_ENTER();
    if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) { /* a hint, kept */
        if (!func || value < -1 || value > 100) return fail(cudaErrorInvalidValue);
        kernel_set_carveout(func, value);
        return cudaSuccess;
    }
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
        (size_t)value > kSharedPerBlockOptin)
        return fail(cudaErrorInvalidValue);
    g_dynamic_limit[func] = value;
    return cudaSuccess;
}

} // extern "C"
