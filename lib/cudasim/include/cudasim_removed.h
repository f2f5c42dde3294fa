/*
 * cudasim_removed.h: runtime calls that CUDA 13 (or 12) removed, declared
 * here only so that a program that calls one fails to compile with the
 * replacement named, as it fails to compile with nvcc and the installed
 * toolkit (whose headers no longer have it). cuda_runtime_api.h includes it;
 * the calls whose arguments changed (cudaMemPrefetchAsync, cudaMemAdvise,
 * cudaGraphInstantiate) are in cuda_runtime.h, and the fields removed from
 * cudaDeviceProp in the struct itself.
 */
#ifndef CUDASIM_REMOVED_H
#define CUDASIM_REMOVED_H

#define CUDASIM_GONE(version, instead) CUDASIM_REMOVED("removed in CUDA " version ": " instead)

cudaError_t cudaThreadSynchronize(void) CUDASIM_GONE("13", "use cudaDeviceSynchronize()");
cudaError_t cudaThreadExit(void) CUDASIM_GONE("13", "use cudaDeviceReset()");
cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value)
    CUDASIM_GONE("13", "use cudaDeviceSetLimit(limit, value)");
cudaError_t cudaThreadGetLimit(size_t *value, enum cudaLimit limit)
    CUDASIM_GONE("13", "use cudaDeviceGetLimit(&value, limit)");
cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache config)
    CUDASIM_GONE("13", "use cudaDeviceSetCacheConfig(config)");
cudaError_t cudaThreadGetCacheConfig(enum cudaFuncCache *config)
    CUDASIM_GONE("13", "use cudaDeviceGetCacheConfig(&config)");
cudaError_t cudaSetDoubleForDevice(double *d)
    CUDASIM_GONE("13", "doubles need no conversion: drop the call");
cudaError_t cudaSetDoubleForHost(double *d)
    CUDASIM_GONE("13", "doubles need no conversion: drop the call");
cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared, cudaStream_t stream)
    CUDASIM_GONE("13", "launch with kernel<<<grid, block, shared, stream>>>(args) or cudaLaunchKernel");
cudaError_t cudaSetupArgument(const void *arg, size_t size, size_t offset)
    CUDASIM_GONE("13", "launch with kernel<<<grid, block>>>(args) or cudaLaunchKernel");
cudaError_t cudaLaunch(const void *func)
    CUDASIM_GONE("13", "launch with kernel<<<grid, block>>>(args) or cudaLaunchKernel");
cudaError_t cudaProfilerInitialize(const char *config, const char *output, int mode)
    CUDASIM_GONE("12", "use cudaProfilerStart() and cudaProfilerStop() (cuda_profiler_api.h)");

#endif /* CUDASIM_REMOVED_H */
