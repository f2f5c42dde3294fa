/*
 * check_memory.cpp: memcheck and initcheck, as compute-sanitizer names them.
 * A kernel's access outside every device buffer or __shared__ variable, in
 * the red zones of a __device__ or __constant__ variable (variables.cpp), or
 * into a freed buffer, or at an address that is not a multiple of its size,
 * or a write to a __constant__ variable,
 * stops the thread; once the block's other threads have run, the launch
 * stops with a report in compute-sanitizer's words ("Invalid __global__ read
 * of size 16 bytes", "address ... is out of bounds", "is misaligned") that
 * names the block's first thread to fault (and how many more did), the line,
 * and the buffer or variable it missed and by how much (launch.cpp); a read of device memory that nothing has written is
 * reported once per line, and the kernel goes on. (access.cpp finds them,
 * with the shadow of memory.cpp.)
 */
#include "../internal.h"

namespace cudasim {
namespace internal {

/* Where a bad global access of n bytes at a went: "0 bytes past the end of
 * a 1200-byte cudaMalloc buffer allocated at ...", or into a freed buffer:
 * "byte 20 of a ... buffer that the cudaFree at ... freed". */
std::string missed_global(uintptr_t a, size_t n)
{
    char buf[160];
    uintptr_t fs;
    if (const Freed *f = find_freed(a, &fs)) {
        if (a >= fs && a < fs + f->size)
            snprintf(buf, sizeof buf, "byte %zu of ", (size_t)(a - fs));
        else if (a >= fs)
            snprintf(buf, sizeof buf, "%zu bytes past the end of ", (size_t)(a - fs - f->size));
        else
            snprintf(buf, sizeof buf, "%zu bytes before the start of ", (size_t)(fs - a));
        return buf + freed_text(*f);
    }
    const Alloc *best = nullptr;
    uintptr_t best_start = 0, best_dist = UINTPTR_MAX;
    bool before = false, straddle = false;
    auto next = g_allocs.upper_bound(a);
    if (next != g_allocs.end() && next->second.device) {
        best = &next->second, best_start = next->first, best_dist = next->first - a, before = true;
    }
    if (next != g_allocs.begin()) {
        auto prev = std::prev(next);
        uintptr_t end = prev->first + prev->second.size;
        if (prev->second.device && a < end) { /* starts inside, ends past the end */
            best = &prev->second, best_start = prev->first, best_dist = 0, before = false;
            straddle = true;
        } else if (prev->second.device && a - end <= best_dist) {
            best = &prev->second, best_start = prev->first, best_dist = a - end, before = false;
        }
    }
    (void)best_start;
    if (!best) return "at an address in no device buffer";
    if (straddle)
        snprintf(buf, sizeof buf, "its last %zu bytes are past the end of ",
                 (size_t)(a + n - best_start - best->size));
    else
        snprintf(buf, sizeof buf, "%zu bytes %s ", (size_t)best_dist,
                 before ? "before the start of" : "past the end of");
    return buf + buffer_text(*best) +
           (before ? " (a negative index?)"
                   : " (an index beyond its last element: check the bounds test)");
}

/* compute-sanitizer's name of a bad access: "Invalid __global__ read of size 4 bytes". */
std::string invalid_access(const char *space, AccessKind kind, size_t n)
{
    char buf[96];
    snprintf(buf, sizeof buf, "Invalid %s %s of size %zu byte%s", space,
             kind == LOAD ? "read" : kind == STORE ? "write" : "atomic", n, n == 1 ? "" : "s");
    return buf;
}

/* "0x7f02c8a00414", or for shared memory the offset in the block's, as a GPU numbers it. */
std::string address_text(uintptr_t a)
{
    char buf[48];
    bool shared = a - g_sh_lo < g_sh_span;
    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)(shared ? a - (uintptr_t)g_arena : a));
    return buf;
}

[[noreturn]] __attribute__((noinline, cold)) void report_oob(bool shared, uintptr_t a, size_t n, AccessKind kind, const void *pc)
{
    { /* (the strings are gone before abort_launch jumps away) */
        char who[256];
        describe_thread(who, sizeof who);
        bool freed = !shared && find_freed(a);
        std::string what = shared ? missed_shared(a, n) : missed_global(a, n);
        note_fault(cudaErrorIllegalAddress, who,
                   "%s in %s%s: address %s %s: %s%s (CUDA reports: an illegal memory access was "
                   "encountered)",
                   invalid_access(shared ? "__shared__" : "__global__", kind, n).c_str(), who,
                   at_line(pc).c_str(), address_text(a).c_str(),
                   freed ? "is in freed memory" : "is out of bounds", what.c_str(),
                   freed ? " (a use after free)" : "");
    }
    leave_faulted_thread();
}

/* An n-byte access at an address that is not a multiple of n (a float4 at a
 * pointer cast from float * + 1, say): a GPU faults. */
[[noreturn]] __attribute__((noinline, cold)) void report_misaligned(uintptr_t a, size_t n, AccessKind kind,
                                                                    const void *pc)
{
    {
        char who[256];
        describe_thread(who, sizeof who);
        std::string where = "a thread's own memory";
        uintptr_t start;
        if (a - g_sh_lo < g_sh_span) {
            where = "in the block's shared memory";
        } else if (const Alloc *al = find_alloc((const void *)a, &start)) {
            char buf[48];
            snprintf(buf, sizeof buf, "byte %zu of ", (size_t)(a - start));
            where = buf + buffer_text(*al);
        } else if (!variable_text(a).empty()) {
            where = variable_text(a);
        }
        note_fault(cudaErrorMisalignedAddress, who,
                   "%s in %s%s: address %s is misaligned (%s): a %zu-byte access must be at a "
                   "multiple of %zu bytes; was a pointer cast to a wider type, such as (float4 *)(p + 1)? "
                   "(CUDA reports: misaligned address)",
                   invalid_access(space_name(a), kind, n).c_str(), who, at_line(pc).c_str(),
                   address_text(a).c_str(), where.c_str(), n, n);
    }
    leave_faulted_thread();
}

/* Global memory: "byte 20 (4-byte element 5) of a 1024-byte cudaMalloc buffer allocated at ..." */
std::string global_name(uintptr_t a, size_t n)
{
    uintptr_t start;
    const Alloc *al = find_alloc((const void *)a, &start);
    if (!al) {
        const Variable *v = a - g_var_lo < g_var_span ? find_variable(a) : nullptr;
        if (!v || a - v->lo >= v->size) return "global memory";
        char head[96] = "";
        if (v->size > n)
            snprintf(head, sizeof head, "byte %zu (%zu-byte element %zu) of ", (size_t)(a - v->lo),
                     n, (size_t)(a - v->lo) / (n ? n : 1));
        return head + variable_name(*v, true);
    }
    char buf[96];
    snprintf(buf, sizeof buf, "byte %zu (%zu-byte element %zu) of ", (size_t)(a - start), n,
             (size_t)(a - start) / (n ? n : 1));
    return buf + buffer_text(*al);
}

__attribute__((noinline, cold)) void report_uninit(uintptr_t a, size_t n, const void *pc)
{
    if (hazard_reported(1, pc_id(pc), 0)) return;
    if (!first_report(1, (uint64_t)pc_id(pc), 0, source_line(pc))) return;
    char who[256];
    describe_thread(who, sizeof who);
    std::string what = global_name(a, n);
    report("uninitialized read in %s%s: %zu bytes at %s, which nothing has written (cudaMalloc does "
           "not clear memory: cudaMemset it, or copy data into it, first)",
           who, at_line(pc).c_str(), n, what.c_str());
}

/* compute-sanitizer's name for the memory at a. */
const char *space_name(uintptr_t a)
{
    if (a - g_sh_lo < g_sh_span) return "__shared__";
    if (a - g_var_lo < g_var_span)
        if (const Variable *v = find_variable(a)) return v->kind == VAR_CONSTANT ? "__constant__" : "__global__";
    if (a - g_rg_lo < g_rg_span) return "__global__";
    return "__local__"; /* a thread's own variables: a GPU's local memory */
}

/* A kernel's access of n bytes at a that misses variable v, in its red zones
 * or past its end, or that writes a __constant__ one: on a GPU it reaches
 * whatever lies next to the variable (a read past a __constant__ array reads
 * on into the constant bank) without an error; here the launch stops, with
 * CUDA's error for an illegal access, and the report names the variable and
 * by how much the access missed it. An index that jumps past the red zone is
 * not seen, as for __shared__ arrays. */
[[noreturn]] __attribute__((noinline, cold)) void report_variable(const Variable &v, uintptr_t a,
                                                                  size_t n, AccessKind kind,
                                                                  const void *pc)
{
    {
        char who[256], buf[160];
        describe_thread(who, sizeof who);
        bool constant = v.kind == VAR_CONSTANT;
        std::string what, space = constant ? "__constant__" : "__global__";
        const char *gpu = constant ? "on a GPU the access reaches whatever the constant bank "
                                     "holds there, without an error"
                                   : "on a GPU the access reaches whatever variable lies there, "
                                     "without an error";
        bool inside = a >= v.lo && a < v.lo + v.size;
        if (inside && a + n <= v.lo + v.size) {
            what = "in " + variable_name(v, false) + ", which kernels may only read (nvcc warns: "
                   "cannot store to pointer that points to constant memory space)";
            gpu = "on a GPU what the store does is undefined";
        } else {
            if (inside)
                snprintf(buf, sizeof buf, "out of bounds: its last %zu bytes are past the end of ",
                         (size_t)(a + n - v.lo - v.size));
            else if (a < v.lo)
                snprintf(buf, sizeof buf, "out of bounds: %zu bytes before the start of ",
                         (size_t)(v.lo - a));
            else
                snprintf(buf, sizeof buf, "out of bounds: %zu bytes past the end of ",
                         (size_t)(a - v.lo - v.size));
            what = buf + variable_name(v, false) +
                   (a < v.lo ? " (a negative index?)"
                             : " (an index beyond its last element: check the bounds test)");
        }
        note_fault(cudaErrorIllegalAddress, who,
                   "%s in %s%s: address %s is %s (%s; the simulator stops the kernel, with CUDA's "
                   "error for an illegal memory access)",
                   invalid_access(space.c_str(), kind, n).c_str(), who, at_line(pc).c_str(),
                   address_text(a).c_str(), what.c_str(), gpu);
    }
    leave_faulted_thread();
}

} // namespace internal
} // namespace cudasim
