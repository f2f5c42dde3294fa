/*
 * api_memory.cpp: the runtime API of allocation: cudaMalloc and its kin
 * (managed, async, pitched), cudaFree, pinned host memory, pointer
 * attributes and cudaMemGetInfo, over memory.cpp's table (prefetching and
 * advice: managed.cpp).
 */
#include <cstring>

#include "../internal.h"

namespace cudasim {
namespace internal {
namespace {

/* cudaMalloc and its kin; pc is the caller's code (for reports). */
cudaError_t device_malloc(const char *call, void **ptr, size_t size, bool managed, const void *pc,
                          unsigned flags = 0)
{
    API_ENTER();
    if (!ptr) return fail(cudaErrorInvalidValue);
    if (cudaError_t e = check_unsafe(call)) return e;
    *ptr = nullptr;
    if (size == 0) return cudaSuccess;
    if (size > kTotalMemory - g_in_use) {
        report("%s(%zu bytes): only %zu of the simulated %zu bytes are free (CUDA reports: out of "
               "memory)",
               call, size, kTotalMemory - g_in_use, kTotalMemory);
        return fail(cudaErrorMemoryAllocation);
    }
    void *p = map_buffer(size, true, !managed, managed, pc);
    if (!p) {
        report("%s(%zu bytes): no room for it in the simulator's %zu bytes of device address "
               "space (%zu in use; the process's address space may be limited, ulimit -v) (CUDA "
               "reports: out of memory)",
               call, size, g_region_bytes, g_in_use);
        return fail(cudaErrorMemoryAllocation);
    }
    *ptr = p;
    leak_allocated(p, size, call, pc);
    if (managed) managed_allocated((uintptr_t)p, flags);
    return cudaSuccess;
}

cudaError_t device_free(const char *call, void *ptr, const void *pc)
{
    API_ENTER();
    if (!ptr) return cudaSuccess;
    if (cudaError_t e = check_unsafe(call)) return e;
    auto it = g_allocs.find((uintptr_t)ptr);
    if (it == g_allocs.end() || !it->second.device) {
        uintptr_t start;
        const Freed *f = find_freed((uintptr_t)ptr, &start);
        if (f && start == (uintptr_t)ptr) {
            std::string fl = source_line(f->free_pc);
            report("%s(%p): freed twice: %s already freed this %zu-byte buffer (CUDA reports: "
                   "invalid argument)",
                   call, ptr, fl.empty() ? "cudaFree" : ("the cudaFree at " + fl).c_str(),
                   f->size);
        } else {
            report("%s(%p): not the start of a cudaMalloc buffer (freed twice, or a host "
                   "pointer?) (CUDA reports: invalid argument)",
                   call, ptr);
        }
        return fail(cudaErrorInvalidValue);
    }
    if (it->second.managed) managed_freed(it->first);
    leak_freed(ptr);
    g_in_use -= it->second.size;
    unmap_buffer(it->first, it->second, pc ? pc : (const void *)&device_free);
    g_allocs.erase(it);
    return cudaSuccess;
}

} // namespace
} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

cudaError_t cudaMalloc(void **ptr, size_t size)
{
    return device_malloc("cudaMalloc", ptr, size, false, __builtin_return_address(0));
}

cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
        report("cudaMallocManaged: flags %#x; they must be cudaMemAttachGlobal or "
               "cudaMemAttachHost (CUDA reports: invalid argument)",
               flags);
        return fail(cudaErrorInvalidValue);
    }
    return device_malloc("cudaMallocManaged", ptr, size, true, __builtin_return_address(0), flags);
}

cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream)
{
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    return device_malloc("cudaMallocAsync", ptr, size, false, __builtin_return_address(0));
}

cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch) return fail(cudaErrorInvalidValue);
    *pitch = (width + 511) & ~(size_t)511; /* rows start 512-byte aligned */
    return device_malloc("cudaMallocPitch", ptr, *pitch * height, false,
                         __builtin_return_address(0));
}

cudaError_t cudaFree(void *ptr)
{
    cudaError_t e = device_free("cudaFree", ptr, __builtin_return_address(0));
    if (!e) managed_device_waited(); /* cudaFree waits for the device */
    return e;
}

cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream)
{
    if (!stream_ok(stream)) return fail(cudaErrorInvalidResourceHandle);
    return device_free("cudaFreeAsync", ptr, __builtin_return_address(0));
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    API_ENTER();
    if (!ptr) return fail(cudaErrorInvalidValue);
    *ptr = size ? map_buffer(size, false, false) : nullptr;
    if (size && !*ptr) return fail(cudaErrorMemoryAllocation);
    return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    (void)flags;
    return cudaMallocHost(ptr, size);
}

cudaError_t cudaFreeHost(void *ptr)
{
    API_ENTER();
    if (!ptr) return cudaSuccess;
    auto it = g_allocs.find((uintptr_t)ptr);
    if (it == g_allocs.end() || it->second.device) {
        report("cudaFreeHost(%p): not a cudaMallocHost buffer (CUDA reports: invalid argument)",
               ptr);
        return fail(cudaErrorInvalidValue);
    }
    unmap_buffer(it->first, it->second);
    g_allocs.erase(it);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    API_ENTER();
    if (!pDevice || flags) return fail(cudaErrorInvalidValue);
    const Alloc *a = find_alloc(pHost);
    if ((!a || a->device) && !host_registered(pHost)) {
        report("cudaHostGetDevicePointer(%p): not memory from cudaHostAlloc, cudaMallocHost or "
               "cudaHostRegister (CUDA reports: invalid argument)",
               pHost);
        return fail(cudaErrorInvalidValue);
    }
    *pDevice = pHost; /* one address space, as with unified addressing */
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr)
{
    API_ENTER();
    if (!attr) return fail(cudaErrorInvalidValue);
    memset(attr, 0, sizeof *attr);
    const Alloc *a = find_alloc(ptr);
    attr->device = a ? g_device : -2;
    attr->type = !a ? cudaMemoryTypeUnregistered : !a->device ? cudaMemoryTypeHost
                 : a->managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
    if (a && (a->device || !a->guarded)) attr->devicePointer = const_cast<void *>(ptr);
    if (a && (!a->device || a->managed)) attr->hostPointer = const_cast<void *>(ptr);
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    API_ENTER();
    if (!free_bytes || !total_bytes) return fail(cudaErrorInvalidValue);
    *total_bytes = kTotalMemory;
    *free_bytes = kTotalMemory - g_in_use;
    return cudaSuccess;
}

} // extern "C"
