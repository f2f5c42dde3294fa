/*
 * shared_memory.cpp: a block's shared memory. One arena, at a fixed address,
 * holds a launch's dynamic shared memory and its __shared__ variables, placed
 * as threads first reach their declarations, with red zones between them;
 * each block starts with it filled with NaN bytes. The names of its words,
 * for reports, are here too.
 */
#include <atomic>
#include <cstring>
#include <mutex>

#include "../internal.h"

/* Shared memory: one arena, at a fixed address; a new number each launch. */
unsigned long long cudasim_launch_serial = 0;
thread_local char *cudasim_shared_base = nullptr; /* (each thread's arena: parallel.cpp) */

namespace cudasim {
namespace internal {

/* One arena, at a fixed address, holds a launch's shared memory: its
 * dynamic shared memory first, then each __shared__ variable as a thread
 * first reaches its declaration, with red zones between them; a megabyte of
 * inaccessible address space on each side catches far indices. */
struct SharedVar {
    size_t offset, bytes, elem;
    int rank;
    size_t ext[3];
    std::string name;
    const char *file;
    int line;
    bool dynamic;
};
const size_t kArenaBytes = (size_t)1 << 20, kArenaGuard = (size_t)1 << 20, kRedzone = 64;
thread_local char *g_arena = nullptr; /* (each thread that runs blocks has its own) */
size_t g_arena_used = 0;        /* offsets taken this launch, red zones included */
uint16_t *g_arena_var = nullptr; /* per 4 bytes: the variable (index in g_vars + 1), 0: red zone */
Cell *g_cells = nullptr;  /* per 4 bytes of the arena */
Cell *g_bcells = nullptr; /* per byte, for accesses of less than a word */
namespace {
std::vector<SharedVar> g_vars;
} // namespace
thread_local uintptr_t g_sh_lo = 0, g_sh_span = 0; /* the arena and its guards */

bool arena_init()
{
    if (g_arena) return true;
    size_t total = 2 * kArenaGuard + kArenaBytes;
    void *m = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    char *arena = (char *)m + kArenaGuard;
    if (mprotect(arena, kArenaBytes, PROT_READ | PROT_WRITE) != 0) {
        munmap(m, total);
        return false;
    }
    if (!g_cells) { /* the checks' shadow: of the program's thread's arena only */
        void *cells = mmap(nullptr, kArenaBytes / 4 * sizeof(Cell), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        void *bcells = mmap(nullptr, kArenaBytes * sizeof(Cell), PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (cells == MAP_FAILED || bcells == MAP_FAILED) {
            munmap(m, total);
            return false;
        }
        g_arena_var = (uint16_t *)calloc(kArenaBytes / 4, sizeof(uint16_t));
        g_cells = (Cell *)cells;
        g_bcells = (Cell *)bcells;
    }
    g_arena = arena;
    g_sh_lo = (uintptr_t)m;
    g_sh_span = total;
    cudasim_shared_base = arena;
    return true;
}

void arena_mark(size_t offset, size_t bytes, uint16_t v)
{
    for (size_t g = offset / 4; g < (offset + bytes + 3) / 4; g++) g_arena_var[g] = v;
}

/* A launch begins: no variable placed yet; the dynamic shared memory first. */
void arena_begin(const cudasim::LaunchConfig *cfg)
{
    cudasim_launch_serial++;
    memset(g_arena_var, 0, (g_arena_used + 3) / 4 * sizeof(uint16_t));
    g_vars.clear();
    SharedVar d = {kRedzone, cfg->shared_bytes, 1, 1, {0, 0, 0}, "", nullptr, 0, true};
    g_vars.push_back(d);
    arena_mark(kRedzone, cfg->shared_bytes, 1);
    g_arena_used = (kRedzone + cfg->shared_bytes + kRedzone + 15) & ~(size_t)15;
}

/* A block begins: garbage in its shared memory, as on a GPU, but loud
 * garbage (NaN as floats; -1 as integers). */
void arena_block() { memset(g_arena + kRedzone, 0xff, g_arena_used - kRedzone); }

/* The variable nearest to arena offset off, and how off relates to it. */
std::string missed_shared(uintptr_t a, size_t n)
{
    ptrdiff_t off = (ptrdiff_t)(a - (uintptr_t)g_arena);
    const SharedVar *best = nullptr;
    ptrdiff_t best_dist = PTRDIFF_MAX;
    bool before = false, straddle = false;
    for (const SharedVar &v : g_vars) {
        if (v.dynamic && v.name.empty() && !v.bytes) continue;
        ptrdiff_t lo = (ptrdiff_t)v.offset, hi = lo + (ptrdiff_t)v.bytes;
        if (straddle) break;
        if (off >= hi && off - hi < best_dist) best = &v, best_dist = off - hi, before = false;
        if (off < lo && lo - off < best_dist) best = &v, best_dist = lo - off, before = true;
        if (off >= lo && off < hi) /* starts inside, ends past its end */
            best = &v, best_dist = 0, before = false, straddle = true;
    }
    if (!best) return "outside the block's shared memory";
    char buf[512];
    std::string what;
    if (best->dynamic) {
        snprintf(buf, sizeof buf, "the launch's %zu bytes of dynamic shared memory%s%s%s", best->bytes,
                 best->name.empty() ? "" : " (extern __shared__ ", best->name.c_str(),
                 best->name.empty() ? "" : ")");
        what = buf;
        if (!best->bytes) what += ", and the launch gave none (the third <<< >>> argument)";
    } else {
        snprintf(buf, sizeof buf, "__shared__ %s (%zu bytes, declared at %s:%d)", best->name.c_str(),
                 best->bytes, best->file, best->line);
        what = buf;
    }
    if (straddle)
        snprintf(buf, sizeof buf, "its last %zu bytes are past the end of ",
                 (size_t)(off + (ptrdiff_t)n - (ptrdiff_t)(best->offset + best->bytes)));
    else
        snprintf(buf, sizeof buf, "%zu bytes %s ", (size_t)best_dist,
                 before ? "before the start of" : "past the end of");
    return buf + what +
           (before ? " (a negative index?)"
                   : " (an index beyond its last element: check the bounds test)");
}

/* "s[3][5]" for the word at arena offset off. */
std::string shared_name(size_t off)
{
    uint16_t v = g_arena_var[off / 4];
    if (!v || v > g_vars.size()) return "shared memory";
    const SharedVar &s = g_vars[v - 1];
    std::string name = s.dynamic ? (s.name.empty() ? "dynamic shared memory" : s.name) : s.name;
    char buf[96];
    size_t i = (off - s.offset) / (s.elem ? s.elem : 1);
    if (s.rank == 0 && !s.dynamic) return "__shared__ " + name;
    if (s.rank <= 1) snprintf(buf, sizeof buf, "[%zu]", i);
    else if (s.rank == 2) snprintf(buf, sizeof buf, "[%zu][%zu]", i / s.ext[1], i % s.ext[1]);
    else
        snprintf(buf, sizeof buf, "[%zu][%zu][%zu]", i / (s.ext[1] * s.ext[2]), i / s.ext[2] % s.ext[1],
                 i % s.ext[2]);
    return (s.dynamic ? "extern __shared__ " : "__shared__ ") + name + buf;
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

/* (The launch's blocks after its first may run on several threads at once,
 * parallel.cpp: a declaration first reached there is placed one at a time.) */
namespace {
std::mutex &g_place_lock = *new std::mutex;
/* The launch (cudasim_launch_serial) whose dynamic shared memory has its name: every
 * thread's declaration after the first reads only this. */
std::atomic<unsigned long long> g_dynamic_named{0};
}

extern "C" void *cudasim_dynamic_shared(const char *name, size_t elem, const char *file, int line)
{
    if (g_dynamic_named.load(std::memory_order_acquire) != cudasim_launch_serial) {
        std::lock_guard<std::mutex> hold(g_place_lock);
        SharedVar &d = g_vars[0];
        if (d.name.empty()) {
            d.name = name;
            d.elem = elem ? elem : 1;
            d.file = file;
            d.line = line;
        }
        g_dynamic_named.store(cudasim_launch_serial, std::memory_order_release);
    }
    return g_arena + kRedzone; /* (g_vars[0].offset: arena_begin) */
}

extern "C" void *cudasim_shared_alloc(cudasim::SharedSlot *slot, const cudasim::SharedDecl *decl)
{
    std::unique_lock<std::mutex> hold(g_place_lock); /* (let go before a report leaves) */
    if (slot->launch == cudasim_launch_serial) /* placed by another thread just now */
        return g_arena + slot->offset;
    g_launch.static_shared += decl->bytes;
    /* With the opt-in (cudaFuncSetAttribute), a block may have up to the
     * device's opt-in maximum in all; without it, 48 KiB. */
    size_t limit = g_dynamic_limit.count(g_launch.cfg->fn) ? kSharedPerBlockOptin : kSharedPerBlock;
    if (g_launch.static_shared + g_launch.cfg->shared_bytes > limit) {
        hold.unlock();
        report("kernel %s: the __shared__ variable %s at %s:%d brings the block's shared memory "
               "to %zu bytes (%zu static + %zu dynamic); a block may use at most %zu (nvcc "
               "refuses too much static shared memory when it compiles) (CUDA reports: too many "
               "resources requested for launch)",
               g_launch.cfg->name, decl->name, decl->file, decl->line,
               g_launch.static_shared + g_launch.cfg->shared_bytes, g_launch.static_shared,
               g_launch.cfg->shared_bytes, limit);
        abort_launch(cudaErrorLaunchOutOfResources);
    }
    size_t align = decl->align > 16 ? decl->align : 16;
    size_t off = (g_arena_used + align - 1) & ~(align - 1);
    if (off + decl->bytes + kRedzone > kArenaBytes || g_vars.size() >= 0xfffe) {
        hold.unlock();
        report("kernel %s: too many __shared__ variables for the simulator (at %s:%d)",
               g_launch.cfg->name, decl->file, decl->line);
        abort_launch(cudaErrorLaunchOutOfResources);
    }
    SharedVar v = {off, decl->bytes, decl->elem ? decl->elem : 1, decl->rank,
                   {decl->extent[0], decl->extent[1], decl->extent[2]}, decl->name, decl->file,
                   decl->line, false};
    g_vars.push_back(v);
    arena_mark(off, decl->bytes, (uint16_t)g_vars.size());
    g_arena_used = off + decl->bytes + kRedzone;
    memset(g_arena + off, 0xff, decl->bytes); /* garbage, as on a GPU */
    slot->offset = off;
    __atomic_store_n(&slot->launch, cudasim_launch_serial, __ATOMIC_RELEASE);
    return g_arena + off;
}
