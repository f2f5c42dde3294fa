/*
 * api_mempool.cpp: memory pools (cudasim_mempool.h). Each simulated device
 * has one pool, its default and current one; cudaMallocAsync and
 * cudaMallocFromPoolAsync take their memory as cudaMalloc does (memory.cpp),
 * so a pool's attributes are kept and reported, and its memory counts are
 * those of the whole device. cudaDeviceSetMemPool accepts only the device's
 * own pool: the simulator has no cudaMemPoolCreate.
 */
#include "../internal.h"

namespace cudasim {
namespace internal {
namespace {

const int kMaxPools = 8; /* as many as CUDASIM_DEVICES allows */

struct Pool {
    int reuse[3];           /* the three cudaMemPoolReuse* flags */
    unsigned long long release_threshold;
    unsigned long long used_high;
} g_pools[kMaxPools];

/* The device whose pool p is, or -1. */
int pool_device(cudaMemPool_t p)
{
    for (int d = 0; d < kMaxPools; d++)
        if ((void *)p == (void *)&g_pools[d]) return d;
    return -1;
}

cudaError_t device_pool(const char *call, cudaMemPool_t *memPool, int device)
{
    API_ENTER();
    int n = 0;
    cudaGetDeviceCount(&n);
    if (!memPool) return fail(cudaErrorInvalidValue);
    if (device < 0 || device >= n || device >= kMaxPools) {
        report("%s(%d): the simulator has %d device%s (CUDA reports: invalid device ordinal)",
               call, device, n, n == 1 ? "" : "s");
        return fail(cudaErrorInvalidDevice);
    }
    *memPool = (cudaMemPool_t)(void *)&g_pools[device];
    return cudaSuccess;
}

} // namespace
} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" {

cudaError_t cudasim_mempool_check(cudaMemPool_t memPool, const char *call)
{
    if (pool_device(memPool) >= 0) return cudaSuccess;
    report("%s(%p): not a memory pool (the simulator has each device's default pool, "
           "cudaDeviceGetDefaultMemPool) (CUDA reports: invalid argument)",
           call, (void *)memPool);
    return fail(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    return device_pool("cudaDeviceGetDefaultMemPool", memPool, device);
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    return device_pool("cudaDeviceGetMemPool", memPool, device);
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    API_ENTER();
    if (cudaError_t e = cudasim_mempool_check(memPool, "cudaDeviceSetMemPool")) return e;
    if (pool_device(memPool) != device) {
        report("cudaDeviceSetMemPool(%d, %p): that pool belongs to device %d (CUDA reports: "
               "invalid argument)",
               device, (void *)memPool, pool_device(memPool));
        return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    API_ENTER();
    if (cudaError_t e = cudasim_mempool_check(memPool, "cudaMemPoolSetAttribute")) return e;
    if (!value) return fail(cudaErrorInvalidValue);
    Pool &p = g_pools[pool_device(memPool)];
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies: p.reuse[attr - 1] = *(int *)value; break;
    case cudaMemPoolAttrReleaseThreshold: p.release_threshold = *(unsigned long long *)value; break;
    case cudaMemPoolAttrUsedMemHigh:
    case cudaMemPoolAttrReservedMemHigh:
        if (*(unsigned long long *)value != 0) return fail(cudaErrorInvalidValue); /* reset only */
        p.used_high = g_in_use;
        break;
    default:
        report("cudaMemPoolSetAttribute: attribute %d cannot be set (CUDA reports: invalid "
               "argument)",
               (int)attr);
        return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value)
{
    API_ENTER();
    if (cudaError_t e = cudasim_mempool_check(memPool, "cudaMemPoolGetAttribute")) return e;
    if (!value) return fail(cudaErrorInvalidValue);
    Pool &p = g_pools[pool_device(memPool)];
    if (g_in_use > p.used_high) p.used_high = g_in_use;
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies: *(int *)value = p.reuse[attr - 1]; break;
    case cudaMemPoolAttrReleaseThreshold: *(unsigned long long *)value = p.release_threshold; break;
    case cudaMemPoolAttrReservedMemCurrent:
    case cudaMemPoolAttrUsedMemCurrent: *(unsigned long long *)value = g_in_use; break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh: *(unsigned long long *)value = p.used_high; break;
    default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    (void)minBytesToKeep; /* freed memory goes back at once here */
    API_ENTER();
    return cudasim_mempool_check(memPool, "cudaMemPoolTrimTo");
}

} // extern "C"
