/*
 * cuda_profiler_api.h for the CUDA simulator: cudaProfilerStart and
 * cudaProfilerStop mark the part of a program a profiler records. There is
 * no profiler attached here, so they do nothing, as on a GPU without one.
 */
#ifndef __CUDA_PROFILER_API_H__
#define __CUDA_PROFILER_API_H__
#include "cuda_runtime_api.h"

static inline cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
static inline cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

#endif /* __CUDA_PROFILER_API_H__ */
