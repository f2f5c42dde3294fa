/*
 * api_host_register.cpp: cudaHostRegister and cudaHostUnregister. On a GPU
 * they pin memory the program allocated itself (malloc, new) and, with
 * cudaHostRegisterMapped, map it for kernels. Here host memory needs no
 * pinning; what is kept is which ranges are registered, so that a kernel
 * given such a pointer (or the one cudaHostGetDevicePointer returns, the same
 * address, as with unified addressing) is not reported as handed host memory,
 * and so that the calls fail as CUDA's do: registering a range twice,
 * unregistering one that is not.
 */
#include <map>

#include "../internal.h"

namespace cudasim {
namespace internal {
namespace {

struct Registered {
    size_t size;
    unsigned flags;
};
std::map<uintptr_t, Registered> g_registered; /* by start address */

/* The registered range that holds p, or end(). */
std::map<uintptr_t, Registered>::iterator registered_at(uintptr_t a)
{
    auto it = g_registered.upper_bound(a);
    if (it == g_registered.begin()) return g_registered.end();
    --it;
    return a - it->first < it->second.size ? it : g_registered.end();
}

} // namespace

bool host_registered(const void *p)
{
    return registered_at((uintptr_t)p) != g_registered.end();
}

void host_register_reset() { g_registered.clear(); }

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    API_ENTER();
    uintptr_t a = (uintptr_t)ptr;
    if (!ptr || !size || (flags & ~0x0fu)) {
        report("cudaHostRegister(%p, %zu, 0x%x): needs a pointer, a size and flags among "
               "cudaHostRegisterPortable, Mapped, IoMemory and ReadOnly (CUDA reports: invalid "
               "argument)",
               ptr, size, flags);
        return fail(cudaErrorInvalidValue);
    }
    if (const Alloc *al = find_alloc(ptr)) {
        report("cudaHostRegister(%p): this is %s memory already, from the CUDA runtime (CUDA "
               "reports: %s)",
               ptr, al->device ? "device" : "pinned host",
               al->device ? "invalid argument" : "part or all of the requested memory range is "
                                                 "already mapped");
        return fail(al->device ? cudaErrorInvalidValue : cudaErrorHostMemoryAlreadyRegistered);
    }
    auto next = g_registered.lower_bound(a);
    bool overlaps = (next != g_registered.end() && next->first < a + size) ||
                    registered_at(a) != g_registered.end();
    if (overlaps) {
        report("cudaHostRegister(%p, %zu): part of this range is registered already (CUDA "
               "reports: part or all of the requested memory range is already mapped)",
               ptr, size);
        return fail(cudaErrorHostMemoryAlreadyRegistered);
    }
    g_registered[a] = Registered{size, flags};
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    API_ENTER();
    auto it = g_registered.find((uintptr_t)ptr);
    if (it == g_registered.end()) {
        report("cudaHostUnregister(%p): not the start of a range cudaHostRegister registered "
               "(CUDA reports: pointer does not correspond to a registered memory region)",
               ptr);
        return fail(cudaErrorHostMemoryNotRegistered);
    }
    g_registered.erase(it);
    return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    API_ENTER();
    if (!pFlags) return fail(cudaErrorInvalidValue);
    auto it = registered_at((uintptr_t)pHost);
    if (it != g_registered.end()) {
        *pFlags = it->second.flags;
        return cudaSuccess;
    }
    const Alloc *a = find_alloc(pHost);
    if (!a || a->device) {
        report("cudaHostGetFlags(%p): not pinned or registered host memory (CUDA reports: "
               "invalid argument)",
               pHost);
        return fail(cudaErrorInvalidValue);
    }
    *pFlags = cudaHostAllocMapped; /* every pinned buffer is mapped (unified addressing) */
    return cudaSuccess;
}

} // extern "C"
