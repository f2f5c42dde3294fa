/*
 * cuda_runtime.h for the CUDA simulator: the runtime API (cuda_runtime_api.h)
 * and, in C++, the template overloads of the real header, so that
 * `float *x; cudaMalloc(&x, n)` and `cudaMemcpyToSymbol(table, h, n)` compile
 * as with nvcc. A translated .cu file (CUDASIM_KERNEL_SOURCE) also gets the
 * device side of the language (kernel.h).
 */
#ifndef CUDASIM_CUDA_RUNTIME_H
#define CUDASIM_CUDA_RUNTIME_H
#include "cuda_runtime_api.h"
/* Programs test these to know the runtime's headers are in (helper_cuda.h). */
#define __CUDA_RUNTIME_H__
#define __VECTOR_FUNCTIONS_H__

#ifdef __cplusplus
#include <utility> /* std::forward, cudaLaunchKernelEx's */
/* The allocation's call site is the caller's: these wrappers are always inlined. */
#define CUDASIM_INLINE static inline __attribute__((always_inline))

CUDASIM_INLINE cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc(ptr, size, flags);
}
CUDASIM_INLINE cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags)
{
    return ::cudaEventCreateWithFlags(event, flags);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaMalloc(T **ptr, size_t size)
{
    return ::cudaMalloc((void **)(void *)ptr, size);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0)
{
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaMallocManaged(T **ptr, size_t size,
                                             unsigned int flags = cudaMemAttachGlobal)
{
    return ::cudaMallocManaged((void **)(void *)ptr, size, flags);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr,
                                                    size_t length = 0,
                                                    unsigned int flags = cudaMemAttachSingle)
{
    return ::cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaMallocPitch(T **ptr, size_t *pitch, size_t width, size_t height)
{
    return ::cudaMallocPitch((void **)(void *)ptr, pitch, width, height);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaStream_t stream)
{
    return ::cudaMallocAsync((void **)(void *)ptr, size, stream);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{
    return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}
/* The forms CUDA 13 (or 12) removed: a call is an error naming the new form,
 * as nvcc rejects it (cudasim_removed.h has the rest). */
template <class... T>
constexpr bool cudasim_removed_form = false;
template <class... T>
cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, T...)
{
    static_assert(cudasim_removed_form<T...>,
                  "cudaMemPrefetchAsync(ptr, count, device, stream) was removed in CUDA 13: give "
                  "a cudaMemLocation and flags: cudaMemLocation loc = {cudaMemLocationTypeDevice, "
                  "device}; cudaMemPrefetchAsync(ptr, count, loc, 0, stream) (to the CPU: "
                  "{cudaMemLocationTypeHost, 0})");
    return cudaErrorNotSupported;
}
template <class Advice, class... T>
cudaError_t cudaMemAdvise(const void *, size_t, Advice, int, T...)
{
    static_assert(cudasim_removed_form<Advice, T...>,
                  "cudaMemAdvise(ptr, count, advice, device) was removed in CUDA 13: give a "
                  "cudaMemLocation: cudaMemLocation loc = {cudaMemLocationTypeDevice, device}; "
                  "cudaMemAdvise(ptr, count, advice, loc)");
    return cudaErrorNotSupported;
}
template <class A, class B, class C>
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *, cudaGraph_t, A, B, C)
{
    static_assert(cudasim_removed_form<A, B, C>,
                  "cudaGraphInstantiate(&exec, graph, errorNode, logBuffer, bufferSize) was removed "
                  "in CUDA 12: cudaGraphInstantiate(&exec, graph, 0) (flags)");
    return cudaErrorNotSupported;
}

/* Symbols: the variable itself, of any type. */
template <class T>
CUDASIM_INLINE cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                              size_t offset = 0,
                                              cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return cudasim_symbol_copy((const void *)&symbol, sizeof(T), (void *)src, count, offset, kind,
                               1, 0, 0);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                                size_t offset = 0,
                                                cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return cudasim_symbol_copy((const void *)&symbol, sizeof(T), dst, count, offset, kind, 0, 0,
                               0);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                                   size_t offset = 0,
                                                   cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                   cudaStream_t stream = 0)
{
    return cudasim_symbol_copy((const void *)&symbol, sizeof(T), (void *)src, count, offset, kind,
                               1, stream, 1);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                                                     size_t offset = 0,
                                                     cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                     cudaStream_t stream = 0)
{
    return cudasim_symbol_copy((const void *)&symbol, sizeof(T), dst, count, offset, kind, 0,
                               stream, 1);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol)
{
    return cudasim_symbol_address(devPtr, (const void *)&symbol, sizeof(T));
}
template <class T>
CUDASIM_INLINE cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol)
{
    (void)symbol;
    if (!size) return cudaErrorInvalidValue;
    *size = sizeof(T);
    return cudaSuccess;
}

/* Kernels as function pointers. */
template <class T>
CUDASIM_INLINE cudaError_t cudaFuncSetAttribute(T *func, cudaFuncAttribute attr, int value)
{
    return ::cudaFuncSetAttribute((const void *)func, attr, value);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *func)
{
    return ::cudaFuncGetAttributes(attr, (const void *)func);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache config)
{
    return ::cudaFuncSetCacheConfig((const void *)func, config);
}
template <class T>
CUDASIM_INLINE cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                                                         int blockSize,
                                                                         size_t dynamicSMemSize)
{
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void *)func,
                                                           blockSize, dynamicSMemSize);
}
/* The block size that fills the simulated device (its answer is not a GPU's), never
 * more than the kernel can be launched with (its __launch_bounds__). */
template <class T>
CUDASIM_INLINE cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                                              T func, size_t dynamicSMemSize = 0,
                                                              int blockSizeLimit = 0)
{
    if (!minGridSize || !blockSize) return cudaErrorInvalidValue;
    struct cudaFuncAttributes attr;
    cudaError_t e = ::cudaFuncGetAttributes(&attr, (const void *)func);
    if (e != cudaSuccess) return e;
    int b = attr.maxThreadsPerBlock;
    if (blockSizeLimit > 0 && blockSizeLimit < b) b = blockSizeLimit;
    int blocks = 0;
    e = ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (const void *)func, b,
                                                         dynamicSMemSize);
    if (e != cudaSuccess) return e;
    *blockSize = b;
    *minGridSize = blocks;
    return cudaSuccess;
}
/* cudaLaunchKernel with the kernel cast to void * (kernel.h takes a typed one). */
template <class T>
CUDASIM_INLINE cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                                            size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
/* The same, cooperative: the grid's blocks may meet at grid syncs (exec/cooperative.cpp). */
template <class T>
CUDASIM_INLINE cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 gridDim, dim3 blockDim,
                                                       void **args, size_t sharedMem = 0,
                                                       cudaStream_t stream = 0)
{
    return ::cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem,
                                         stream);
}

/* cudaLaunchKernelEx with the kernel itself, as CUDA's: each argument converted to its
 * parameter's type, then the C API's launch. */
template <typename... ExpTypes, typename... ActTypes>
CUDASIM_INLINE cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config,
                                              void (*kernel)(ExpTypes...), ActTypes &&...args)
{
    return [&](ExpTypes... coerced) {
        void *pArgs[] = {&coerced..., nullptr};
        return ::cudaLaunchKernelExC(config, (const void *)kernel, pArgs);
    }(std::forward<ActTypes>(args)...);
}

/* Channel descriptors of types (cudaCreateChannelDesc<float>()), and in a
 * kernel's source its texture fetches and surface accesses. */
#include "channel_descriptor.h"
#ifdef CUDASIM_KERNEL_SOURCE
#include "texture_indirect_functions.h"
#include "surface_indirect_functions.h"
#include "../exec/kernel.h"
#endif

#endif /* __cplusplus */
#endif /* CUDASIM_CUDA_RUNTIME_H */
