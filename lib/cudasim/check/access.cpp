/*
 * access.cpp: every load and store of a translated kernel. Translated
 * kernels are compiled with ThreadSanitizer's instrumentation but without its
 * runtime: each load and store calls __tsan_readN or __tsan_writeN (at the
 * end of this file) with its address, atomics call cudasim_atomic_access, and
 * the simulator checks it:
 *  - memcheck: a global access must fall in a live device buffer (the
 *    region's shadow says which bytes are), a shared one in a __shared__
 *    variable (not in the red zones between them), one of a __device__ or
 *    __constant__ variable in that variable (not in its red zones; a
 *    __constant__ one is only read), and a vector's (a float4's) at a
 *    multiple of its size; otherwise the launch stops with the kernel, block,
 *    thread, source line and the buffer or variable it missed (or the
 *    cudaFree that freed it) (check_memory.cpp);
 *  - initcheck: a read of global memory that nothing has written is
 *    reported (once per source line) (check_memory.cpp);
 *  - racecheck: for each 4-byte word of shared memory, and of global memory
 *    within a block, the last write and the reads since the last barrier are
 *    kept, with their threads and code: a write and a read, or two writes,
 *    by different threads of a block with no __syncthreads between them (in
 *    one warp: no __syncwarp or warp operation either) is reported with both
 *    source lines, whatever order the simulator ran them in (check_races.cpp);
 *    and on global memory and __device__ variables, two accesses by
 *    different blocks of a launch that nothing orders, one a plain write
 *    (check_races_blocks.cpp).
 * Races and uninitialized reads do not stop the kernel (as under
 * compute-sanitizer); each pair of source lines is reported once. Atomics
 * and volatile reads are also watched for waits that would never end here.
 */
#include <cstring>

#include "check_races.h"
#include "../profile/profile.h"

namespace cudasim {
namespace internal {

int g_check_level = -1; /* CUDASIM_CHECK (see check_level) */

/* CUDASIM_CHECK: 0 checks nothing; 1 memory (bounds, freed buffers, reads
 * of memory never written) and races on shared memory; 2 (the default) also
 * races on global memory in the first kGlobalRaceLaunches launches of each
 * kernel (they cost the most, and a training loop launches the same kernels
 * thousands of times); 3, or `all`, races on global memory in every launch,
 * and every launch checked. Under 1 and 2 a kernel's launches of one shape
 * are checked until kCheckedLaunches of them were clean; the later ones run
 * unchecked (exec/launch.cpp). */
int check_level()
{
    if (g_check_level < 0) {
        const char *env = getenv("CUDASIM_CHECK");
        g_check_level = env && !strcmp(env, "all") ? 3 : env && *env ? atoi(env) : 2;
        if (g_check_level < 0 || g_check_level > 3) g_check_level = 2;
    }
    return g_check_level;
}

namespace {

__attribute__((noinline)) void shared_access_any(uintptr_t a, size_t n, AccessKind kind,
                                                 const void *pc);

/* The usual access: one aligned word of a __shared__ variable. */
__attribute__((noinline)) void shared_access(uintptr_t a, size_t n, AccessKind kind,
                                             const void *pc)
{
    if (__builtin_expect(g_async_pending != 0, 0)) async_shared_access(a, n, kind, pc);
    size_t off = a - (uintptr_t)g_arena;
    if (__builtin_expect(n == 4 && !(a & 3) && off < g_arena_used && g_arena_var[off >> 2], 1)) {
        if (kind != ATOMIC) race_cell(g_cells[off >> 2], kind == STORE, pc, true, a, n);
        return;
    }
    shared_access_any(a, n, kind, pc);
}

__attribute__((noinline)) void shared_access_any(uintptr_t a, size_t n, AccessKind kind,
                                                 const void *pc)
{
    bool write = kind != LOAD; /* (an atomic is a write for races) */
    uintptr_t base = (uintptr_t)g_arena;
    if (a < base || a - base + n > g_arena_used) report_oob(true, a, n, kind, pc);
    size_t off = a - base, g0 = off >> 2, g1 = (off + n - 1) >> 2;
    uint16_t v = g_arena_var[g0];
    if (!v) report_oob(true, a, n, kind, pc);
    for (size_t g = g0 + 1; g <= g1; g++)
        if (g_arena_var[g] != v) report_oob(true, a, n, kind, pc);
    if (kind == ATOMIC) return; /* atomics never race */
    if (!(a & 3) && !(n & 3)) /* whole words: a cell per word */
        for (size_t g = g0; g <= g1; g++) race_cell(g_cells[g], write, pc, true, base + g * 4, n);
    else /* bytes and halves (char, __half): a cell per byte, so neighbours do not race */
        for (size_t b = off; b < off + n; b++) race_cell(g_bcells[b], write, pc, true, base + b, n);
}

/* The race checks of an access of global memory or of a __device__ variable:
 * atomics and volatile accesses (strong) never race, but order blocks. */
inline void global_race(uintptr_t a, size_t n, AccessKind kind, const void *pc, bool strong)
{
    if (!g_launch.global_races) return;
    if (kind == ATOMIC || strong) return strong_access(a, n, kind, pc);
    for (int i = 0; i < g_launch.readonly_n; i++)
        if (a - g_launch.readonly[i].lo < g_launch.readonly[i].n) return;
    bool write = kind == STORE;
    if (!(a & 3) && !(n & 3)) {
        for (uintptr_t g = a; g < a + n; g += 4)
            if (GlobalCell *c = global_cell(g >> 2)) race_global(*c, write, pc, g, n, true);
    } else {
        for (uintptr_t b = a; b < a + n; b++)
            if (GlobalCell *c = global_cell(b | (1ull << 63))) race_global(*c, write, pc, b, n, false);
    }
}

__attribute__((noinline)) void global_access(uintptr_t a, size_t n, AccessKind kind,
                                             const void *pc, bool strong)
{
    if (__builtin_expect(g_replay_n, 0)) replay_restore(); /* before any global access */
    bool write = kind == STORE; /* (an atomic reads too) */
    uint8_t *s = shadow_of(a);
    if (__builtin_expect(n == 4 && !(a & 3), 1)) { /* the usual case: one aligned word */
        uint8_t v = *s;
        if (v == SH_DONE) goto race;
        if (v == SH_FULL) {
            if (!write) report_uninit(a, n, pc);
            *s = SH_DONE;
            goto race;
        }
    }
    {
        bool uninit = false;
        uintptr_t end = a + n;
        for (uintptr_t g = a & ~(uintptr_t)3; g < end; g += 4) {
            uint8_t v = *shadow_of(g);
            uintptr_t hi = end < g + 4 ? end : g + 4;
            if (!(v & SH_ADDR) || hi - g > (uintptr_t)(v & 7))
                report_oob(false, a, n, kind, pc);
            if (!(v & SH_INIT)) uninit = true;
        }
        if (uninit && !write) report_uninit(a, n, pc);
        if (uninit)
            for (uintptr_t g = a & ~(uintptr_t)3; g < end; g += 4) *shadow_of(g) |= SH_INIT;
    }
race:
    global_race(a, n, kind, pc, strong);
}

/* A __device__, __constant__ or __managed__ variable of a translated file
 * (variables.cpp): no shadow (it is the program's own memory). memcheck: the
 * access must lie inside the variable, not in its red zones, and not write a
 * __constant__ one; then the race checks, within a block and between blocks,
 * as for global memory (a __constant__ variable, which kernels only read,
 * cannot race). Other memory of the program between the variables stops
 * here. */
__attribute__((noinline)) void variable_access(uintptr_t a, size_t n, AccessKind kind,
                                               const void *pc, bool strong)
{
    if (__builtin_expect(g_replay_n, 0)) replay_restore(); /* before any global access */
    const Variable *v = find_variable(a);
    if (!v) return;
    if (__builtin_expect(a - v->lo >= v->size || a + n - v->lo > v->size ||
                             (v->kind == VAR_CONSTANT && kind != LOAD),
                         0))
        report_variable(*v, a, n, kind, pc);
    if (v->kind != VAR_CONSTANT) global_race(a, n, kind, pc, strong);
}

/* A profiled launch's access: checked (unless CUDASIM_CHECK=0), then counted. */
__attribute__((noinline)) void checked_and_profiled(uintptr_t a, size_t n, AccessKind kind,
                                                    const void *pc, bool strong)
{
    if (a - g_sh_lo < g_sh_span) {
        if (g_launch.check_accesses) shared_access(a, n, kind, pc);
        return profile_access(a, n, kind, pc, true);
    }
    if (a - g_rg_lo < g_rg_span) {
        if (g_launch.check_accesses) global_access(a, n, kind, pc, strong);
        return profile_access(a, n, kind, pc, false);
    }
    /* (a variable is memory of the program: not counted, as a thread's locals) */
    if (g_launch.check_accesses && a - g_var_lo < g_var_span) variable_access(a, n, kind, pc, strong);
}

/* Every access of a checked or profiled kernel to memory comes here: each
 * load and store (the hooks below; strong: a volatile one) and each atomic
 * (cudasim_atomic_access), n bytes at a, made by the code at pc, by thread
 * g_launch.tid of block cudasim_block_idx. Threads run one at a time, so the
 * lanes of a warp arrive one after another, each with its own accesses in its
 * program's order. Accesses to shared memory, to device memory and to
 * __device__, __constant__ and __managed__ variables go on to their checks
 * (and to the profiler when it runs); the others (a thread's locals, its
 * parameters, host memory) stop here, and the hooks stay small for them (no
 * stack frame). */
__attribute__((always_inline)) inline void on_access(uintptr_t a, size_t n, AccessKind kind,
                                                     const void *pc, bool strong = false)
{
    if (__builtin_expect(g_launch.profiling, 0))
        return checked_and_profiled(a, n, kind, pc, strong);
    if (a - g_sh_lo < g_sh_span) return shared_access(a, n, kind, pc);
    if (a - g_rg_lo < g_rg_span) return global_access(a, n, kind, pc, strong);
    if (a - g_var_lo < g_var_span) return variable_access(a, n, kind, pc, strong);
}

} // namespace

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

namespace {
/* A thread that waits for another block (a spin lock, a hand-made grid
 * barrier) or for a thread of its block past no barrier would wait forever
 * here, where a thread runs until it reaches a barrier and blocks run one
 * after another. Such a wait repeats one atomic or volatile read of one
 * address, finding the same value: after kSpinLimit times in a row, the
 * launch stops with a report instead of hanging. */
struct Spin {
    const void *pc;
    uintptr_t a;
    int tid;
    unsigned long long block;
    uint64_t value;
    unsigned long long count;
} g_spin;
const unsigned long long kSpinLimit = 50000000;

__attribute__((noinline, cold)) void report_spin(const void *pc)
{
    char who[200];
    describe_thread(who, sizeof who);
    std::string line = source_line(pc);
    report("%s%s%s: the thread read the same value at the same address %llu times in a row: it "
           "waits for a change that another thread or block would make. The simulator runs a "
           "thread until it reaches a barrier and blocks one after another, so the wait would "
           "never end; on a GPU blocks are not guaranteed to run at the same time either (wait "
           "for another block by ending the kernel and launching the next, or with a "
           "cooperative launch's grid sync) (CUDA reports: the launch timed out and was "
           "terminated)",
           who, line.empty() ? "" : " at ", line.c_str(), kSpinLimit);
    abort_launch(cudaErrorLaunchTimeout);
}

inline void spin_check(uintptr_t a, size_t n, const void *pc)
{
    Spin &s = g_spin;
    if (pc != s.pc || a != s.a || g_launch.tid != s.tid || g_launch.block_serial != s.block) {
        s = Spin{pc, a, g_launch.tid, g_launch.block_serial, 0, 0};
        return;
    }
    /* The access before this one, at the same address, went through: the
     * memory is there to read (a wild address faults at the access itself). */
    uint64_t v = 0;
    memcpy(&v, (const void *)a, n < sizeof v ? n : sizeof v);
    if (s.count == 0 || v != s.value) {
        s.value = v;
        s.count = 1;
    } else if (__builtin_expect(++s.count == kSpinLimit, 0)) {
        report_spin(pc);
    }
}
} // namespace

/* An atomic operation of a kernel (kernel.h's atomicAdd and the others):
 * checked as any access, but never a race; watched for spinning. */
extern "C" void cudasim_atomic_access(const volatile void *p, size_t n, const void *pc)
{
    uintptr_t a = (uintptr_t)p;
    if (g_launch.checking && (a & (n - 1))) report_misaligned(a, n, ATOMIC, pc);
    if (g_launch.checking) on_access(a, n, ATOMIC, pc);
    if (g_launch.in_kernel) spin_check(a, n, pc);
}

/* An access that a library of the device side makes for the program (a WMMA
 * tile's load, a memcpy_async, a cuda::barrier's arrival), named by the
 * program's code at pc: checked as the program's own accesses are, and
 * counted by the profiler unless the GPU makes it otherwise (uncounted). */
extern "C" void cudasim_library_access(const volatile void *p, size_t n, int kind, int flags,
                                       const void *pc)
{
    if (!g_launch.checking || !n) return;
    uintptr_t a = (uintptr_t)p;
    AccessKind k = (AccessKind)kind;
    if ((flags & CUDASIM_ACCESS_VECTOR) && (a & (n - 1))) report_misaligned(a, n, k, pc);
    if (!(flags & CUDASIM_ACCESS_UNCOUNTED) || !g_launch.profiling) return on_access(a, n, k, pc);
    if (!g_launch.check_accesses) return;
    if (a - g_sh_lo < g_sh_span) shared_access(a, n, k, pc);
    else if (a - g_rg_lo < g_rg_span) global_access(a, n, k, pc, false);
    else if (a - g_var_lo < g_var_span) variable_access(a, n, k, pc, false);
}

/* ---- ThreadSanitizer's entry points: every access of a translated kernel ---- */

/* __tsan_readN and __tsan_writeN are called for an access whose type has an
 * alignment of at least N bytes (a float4's 16 bytes, a double's 8), the
 * __tsan_unaligned_ ones for the others (a struct of four floats copied
 * whole): on a GPU the former is one N-byte access, which faults at an
 * address that is not a multiple of N (aligned). (Translated files are
 * compiled with -fno-tree-sra, so a float4 loaded whole stays one 16-byte
 * access.) __tsan_volatile_ ones are volatile accesses, whose type is not
 * known here (their alignment is not checked): strong ones, which never race
 * with one another and order blocks as atomics do; and volatile reads are how
 * a hand-written wait polls, so they are watched for spinning. */
#define CUDASIM_HOOK(name, n, kind, aligned, strong)                                       \
    extern "C" void name(void *p)                                                          \
    {                                                                                      \
        if (__builtin_expect(g_launch.checking, 0)) {                                      \
            if ((aligned) && ((uintptr_t)p & ((n) - 1)))                                   \
                report_misaligned((uintptr_t)p, n, kind, __builtin_return_address(0));     \
            on_access((uintptr_t)p, n, kind, __builtin_return_address(0), strong);         \
        }                                                                                  \
        if ((strong) && (kind) == LOAD && g_launch.in_kernel)                              \
            spin_check((uintptr_t)p, n, __builtin_return_address(0));                      \
    }
#define CUDASIM_HOOKS(prefix, aligned, strong)                                             \
    CUDASIM_HOOK(prefix##read1, 1, LOAD, aligned, strong)                                  \
    CUDASIM_HOOK(prefix##read2, 2, LOAD, aligned, strong)                                  \
    CUDASIM_HOOK(prefix##read4, 4, LOAD, aligned, strong)                                  \
    CUDASIM_HOOK(prefix##read8, 8, LOAD, aligned, strong)                                  \
    CUDASIM_HOOK(prefix##read16, 16, LOAD, aligned, strong)                                \
    CUDASIM_HOOK(prefix##write1, 1, STORE, aligned, strong)                                \
    CUDASIM_HOOK(prefix##write2, 2, STORE, aligned, strong)                                \
    CUDASIM_HOOK(prefix##write4, 4, STORE, aligned, strong)                                \
    CUDASIM_HOOK(prefix##write8, 8, STORE, aligned, strong)                                \
    CUDASIM_HOOK(prefix##write16, 16, STORE, aligned, strong)
CUDASIM_HOOKS(__tsan_, true, false)
CUDASIM_HOOKS(__tsan_unaligned_, false, false)
CUDASIM_HOOKS(__tsan_volatile_, false, true)
#undef CUDASIM_HOOKS
#undef CUDASIM_HOOK

extern "C" void __tsan_read_range(void *p, unsigned long n)
{
    if (g_launch.checking && n) on_access((uintptr_t)p, n, LOAD, __builtin_return_address(0));
}
extern "C" void __tsan_write_range(void *p, unsigned long n)
{
    if (g_launch.checking && n) on_access((uintptr_t)p, n, STORE, __builtin_return_address(0));
}
extern "C" void __tsan_init(void) {}
extern "C" void __tsan_func_entry(void *) {}
extern "C" void __tsan_func_exit(void) {}
extern "C" void __tsan_vptr_update(void **, void *) {}
extern "C" void __tsan_vptr_read(void **) {}

/* Atomics of host code in a translated file (std::atomic, __sync_, __atomic_): done as
 * asked, after managed memory's check (a system-scope atomic, runtime/managed.cpp), with
 * the caller's line kept for the fault handler. */
struct HostAtomic {
    HostAtomic(const volatile void *a, const void *caller)
    {
        cudasim::internal::t_host_atomic_caller = caller;
        cudasim::internal::managed_host_atomic(a);
    }
    ~HostAtomic() { cudasim::internal::t_host_atomic_caller = nullptr; }
};
#define CUDASIM_TSAN_RMW(bits, T, op)                                                             \
    extern "C" __attribute__((noinline)) T __tsan_atomic##bits##_##op(volatile T *a, T v, int)   \
    {                                                                                              \
        HostAtomic h(a, __builtin_return_address(0));                                             \
        return __atomic_##op(a, v, __ATOMIC_SEQ_CST);                                              \
    }
#define CUDASIM_TSAN_ATOMIC(bits, T)                                                              \
    extern "C" __attribute__((noinline)) T __tsan_atomic##bits##_load(const volatile T *a, int)  \
    {                                                                                              \
        HostAtomic h(a, __builtin_return_address(0));                                             \
        return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                               \
    }                                                                                              \
    extern "C" __attribute__((noinline)) void __tsan_atomic##bits##_store(volatile T *a, T v, int) \
    {                                                                                              \
        HostAtomic h(a, __builtin_return_address(0));                                             \
        __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                  \
    }                                                                                              \
    extern "C" __attribute__((noinline)) T __tsan_atomic##bits##_exchange(volatile T *a, T v, int) \
    {                                                                                              \
        HostAtomic h(a, __builtin_return_address(0));                                             \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                        \
    }                                                                                              \
    CUDASIM_TSAN_RMW(bits, T, fetch_add)                                                           \
    CUDASIM_TSAN_RMW(bits, T, fetch_sub)                                                           \
    CUDASIM_TSAN_RMW(bits, T, fetch_and)                                                           \
    CUDASIM_TSAN_RMW(bits, T, fetch_or)                                                            \
    CUDASIM_TSAN_RMW(bits, T, fetch_xor)                                                           \
    CUDASIM_TSAN_RMW(bits, T, fetch_nand)                                                          \
    extern "C" __attribute__((noinline)) int __tsan_atomic##bits##_compare_exchange_strong(       \
        volatile T *a, T *c, T v, int, int)                                                        \
    {                                                                                              \
        HostAtomic h(a, __builtin_return_address(0));                                             \
        return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);     \
    }                                                                                              \
    extern "C" __attribute__((noinline)) int __tsan_atomic##bits##_compare_exchange_weak(         \
        volatile T *a, T *c, T v, int, int)                                                        \
    {                                                                                              \
        HostAtomic h(a, __builtin_return_address(0));                                             \
        return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
    }                                                                                              \
    extern "C" __attribute__((noinline)) T __tsan_atomic##bits##_compare_exchange_val(            \
        volatile T *a, T c, T v, int, int)                                                         \
    {                                                                                              \
        HostAtomic h(a, __builtin_return_address(0));                                             \
        __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);          \
        return c;                                                                                  \
    }
CUDASIM_TSAN_ATOMIC(8, unsigned char)
CUDASIM_TSAN_ATOMIC(16, unsigned short)
CUDASIM_TSAN_ATOMIC(32, unsigned int)
CUDASIM_TSAN_ATOMIC(64, unsigned long long)
#undef CUDASIM_TSAN_ATOMIC
#undef CUDASIM_TSAN_RMW
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
