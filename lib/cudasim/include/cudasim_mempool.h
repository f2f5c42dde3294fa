/*
 * cudasim_mempool.h: memory pools, the allocator behind cudaMallocAsync
 * (cuda_runtime_api.h includes it). Each device has one pool, its default;
 * cudaMallocAsync and cudaMallocFromPoolAsync allocate from it as cudaMalloc
 * does, and its attributes are kept and reported (api_mempool.cpp).
 */
#ifndef CUDASIM_MEMPOOL_H
#define CUDASIM_MEMPOOL_H

typedef struct CUmemPoolHandle_st *cudaMemPool_t;

enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 0x1,
    cudaMemPoolReuseAllowOpportunistic = 0x2,
    cudaMemPoolReuseAllowInternalDependencies = 0x3,
    cudaMemPoolAttrReleaseThreshold = 0x4,
    cudaMemPoolAttrReservedMemCurrent = 0x5,
    cudaMemPoolAttrReservedMemHigh = 0x6,
    cudaMemPoolAttrUsedMemCurrent = 0x7,
    cudaMemPoolAttrUsedMemHigh = 0x8
};

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
/* cudaMallocAsync from memPool: the caller's line stays the allocation's. */
cudaError_t cudasim_mempool_check(cudaMemPool_t memPool, const char *call);
static inline __attribute__((always_inline)) cudaError_t
cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    cudaError_t e = cudasim_mempool_check(memPool, "cudaMallocFromPoolAsync");
    return e != cudaSuccess ? e : cudaMallocAsync(ptr, size, stream);
}

#endif /* CUDASIM_MEMPOOL_H */
