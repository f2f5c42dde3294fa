/*
 * check_memory.cpp: memcheck and initcheck, as compute-sanitizer names them.
 * A kernel's access outside every device buffer or __shared__ variable, or
 * into a freed buffer, stops the launch with a report that names the thread,
 * the line, and the buffer or variable it missed and by how much; a read of
 * device memory that nothing has written is reported once per line, and the
 * kernel goes on. (access.cpp finds them, with the shadow of memory.cpp.)
 */
#include "internal.h"

namespace cudasim {
namespace internal {

/* Where a bad global access of n bytes at a went, after "a 4-byte read":
 * "0 bytes past the end of a 1200-byte cudaMalloc buffer allocated at ...",
 * or into a freed buffer: "of byte 20 of a ... buffer that the cudaFree at ... freed". */
std::string missed_global(uintptr_t a, size_t n)
{
    char buf[160];
    uintptr_t fs;
    if (const Freed *f = find_freed(a, &fs)) {
        if (a >= fs && a < fs + f->size)
            snprintf(buf, sizeof buf, "of byte %zu of ", (size_t)(a - fs));
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
        snprintf(buf, sizeof buf, "whose last %zu bytes are past the end of ",
                 (size_t)(a + n - best_start - best->size));
    else
        snprintf(buf, sizeof buf, "%zu bytes %s ", (size_t)best_dist,
                 before ? "before the start of" : "past the end of");
    return buf + buffer_text(*best) +
           (before ? " (a negative index?)"
                   : " (an index beyond its last element: check the bounds test)");
}

[[noreturn]] __attribute__((noinline, cold)) void report_oob(bool shared, uintptr_t a, size_t n, bool write, const void *pc)
{
    { /* (the strings are gone before abort_launch jumps away) */
        char who[256];
        describe_thread(who, sizeof who);
        bool freed = !shared && find_freed(a);
        std::string what = shared ? missed_shared(a, n) : missed_global(a, n);
        report("%s%s in %s%s: a %zu-byte %s %s (CUDA reports: an illegal memory access was "
               "encountered)",
               freed ? "use after free" : "out-of-bounds ", freed ? "" : (write ? "write" : "read"),
               who, at_line(pc).c_str(), n, write ? "write" : "read", what.c_str());
    }
    abort_launch(cudaErrorIllegalAddress);
}

/* Global memory: "byte 20 (4-byte element 5) of a 1024-byte cudaMalloc buffer allocated at ..." */
std::string global_name(uintptr_t a, size_t n)
{
    uintptr_t start;
    const Alloc *al = find_alloc((const void *)a, &start);
    if (!al) {
        const DeviceVar *v = find_device_var(a);
        if (!v) return "global memory";
        char head[96] = "";
        if (v->size > n)
            snprintf(head, sizeof head, "byte %zu (%zu-byte element %zu) of ", (size_t)(a - v->lo),
                     n, (size_t)(a - v->lo) / (n ? n : 1));
        std::string tail = v->file ? std::string(", declared at ") + v->file + ":" +
                                         std::to_string(v->line)
                                   : "";
        return std::string(head) + "__device__ variable " + v->name + " (" +
               std::to_string(v->size) + " bytes" + tail + ")";
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

} // namespace internal
} // namespace cudasim
