/*
 * CUB for the CUDA simulator: cub::CachingDeviceAllocator, as CUB's examples
 * use it. Each DeviceAllocate is a cudaMalloc (reported at the program's
 * line) and each DeviceFree a cudaFree: nothing is cached, so that a block
 * used after its DeviceFree is reported as a use after free, which CUB's
 * cache would hide on a GPU. The sizes and bins of the constructor are taken
 * and have no effect.
 */
#ifndef CUDASIM_CUB_ALLOCATOR_H
#define CUDASIM_CUB_ALLOCATOR_H

#include "cudasim_cub.h"

namespace cub {

struct CachingDeviceAllocator {
    static constexpr unsigned int INVALID_BIN = (unsigned int)-1;
    static constexpr size_t INVALID_SIZE = (size_t)-1;

    explicit CachingDeviceAllocator(unsigned int bin_growth, unsigned int min_bin = 1,
                                    unsigned int max_bin = INVALID_BIN,
                                    size_t max_cached_bytes = INVALID_SIZE, bool skip_cleanup = false)
    {
        (void)bin_growth, (void)min_bin, (void)max_bin, (void)max_cached_bytes, (void)skip_cleanup;
    }
    CachingDeviceAllocator(bool skip_cleanup = false, bool debug = false)
    {
        (void)skip_cleanup, (void)debug;
    }
    CUDASIM_CUB_INLINE cudaError_t DeviceAllocate(void **d_ptr, size_t bytes, cudaStream_t active_stream = 0)
    {
        (void)active_stream;
        return cudaMalloc(d_ptr, bytes);
    }
    CUDASIM_CUB_INLINE cudaError_t DeviceAllocate(int device, void **d_ptr, size_t bytes,
                                                  cudaStream_t active_stream = 0)
    {
        int current = 0;
        cudaGetDevice(&current);
        if (device != current && device != -1) return cudaErrorInvalidDevice;
        return DeviceAllocate(d_ptr, bytes, active_stream);
    }
    CUDASIM_CUB_INLINE cudaError_t DeviceFree(void *d_ptr) { return cudaFree(d_ptr); }
    CUDASIM_CUB_INLINE cudaError_t DeviceFree(int device, void *d_ptr)
    {
        (void)device;
        return cudaFree(d_ptr);
    }
    cudaError_t FreeAllCached() { return cudaSuccess; }
    cudaError_t SetMaxCachedBytes(size_t max_cached_bytes)
    {
        (void)max_cached_bytes;
        return cudaSuccess;
    }
};

} // namespace cub

#endif /* CUDASIM_CUB_ALLOCATOR_H */
