// Every public header of the CUDA runtime by its own name (but the
// toolkit's internal ones, such as device_functions.h, which nvcc warns of),
// with the macros programs test to know which came in, and the runtime calls
// NVIDIA's samples make beyond the basics: host memory the program allocated,
// registered and mapped for a kernel (cudaHostRegister), the device's
// default memory pool (cudaDeviceGetDefaultMemPool, cudaMallocFromPoolAsync),
// and a stream's L2 access policy window (cudaStreamSetAttribute).
#include <builtin_types.h>
#include <cuda.h>
#include <cuda_device_runtime_api.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <device_atomic_functions.h>
#include <device_launch_parameters.h>
#include <device_types.h>
#include <driver_functions.h>
#include <driver_types.h>
#include <library_types.h>
#include <math_constants.h>
#include <sm_20_atomic_functions.h>
#include <sm_20_intrinsics.h>
#include <sm_30_intrinsics.h>
#include <sm_32_atomic_functions.h>
#include <sm_32_intrinsics.h>
#include <sm_35_atomic_functions.h>
#include <sm_35_intrinsics.h>
#include <sm_60_atomic_functions.h>
#include <sm_61_intrinsics.h>
#include <vector_functions.h>
#include <vector_types.h>
#include <cstdio>
#include <cstdlib>

#include "check.h"

#if !defined(__CUDA_RUNTIME_H__) || !defined(__CUDA_RUNTIME_API_H__) || !defined(__DRIVER_TYPES_H__)
#error "the runtime's headers define __CUDA_RUNTIME_H__, __CUDA_RUNTIME_API_H__, __DRIVER_TYPES_H__"
#endif
#if !defined(__VECTOR_TYPES_H__) || !defined(__DEVICE_LAUNCH_PARAMETERS_H__)
#error "vector_types.h and device_launch_parameters.h define their macros"
#endif
#if CUDART_VERSION < 13000 || CUDA_VERSION < 13000
#error "CUDA 13's versions"
#endif

__global__ void area(const float *r, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = CUDART_PI_F * r[i] * r[i];
}

int main(void)
{
    const int n = 1000;
    int device = 0, can_map = 0, pools = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, device));
    CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
    printf("maps host memory: %s, memory pools: %s\n", can_map ? "yes" : "no", pools ? "yes" : "no");

    // Host memory from malloc, registered and mapped.
    float *r = (float *)malloc(n * sizeof(float));
    for (int i = 0; i < n; i++) r[i] = 0.5f * (i % 17);
    CHECK(cudaHostRegister(r, n * sizeof(float), cudaHostRegisterMapped));
    float *d_r;
    CHECK(cudaHostGetDevicePointer((void **)&d_r, r, 0));
    unsigned int flags = 0;
    CHECK(cudaHostGetFlags(&flags, r));
    printf("registered as mapped: %s\n", flags & cudaHostRegisterMapped ? "yes" : "no");

    // Output from the default pool, on a stream with an access policy window.
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
    unsigned long long threshold = 1 << 20, back = 0;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &back));
    printf("pool release threshold: %llu\n", back);
    float *d_out;
    CHECK(cudaMallocFromPoolAsync((void **)&d_out, n * sizeof(float), pool, stream));
    cudaStreamAttrValue window = {};
    window.accessPolicyWindow.base_ptr = d_out;
    window.accessPolicyWindow.num_bytes = 0; /* a GPU without persisting L2 takes only 0 */
    window.accessPolicyWindow.hitRatio = 1.0f;
    window.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
    window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CHECK(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window));

    CHECK(cudaProfilerStart());
    area<<<(n + 127) / 128, 128, 0, stream>>>(d_r, d_out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaProfilerStop());
    float *out = (float *)malloc(n * sizeof(float));
    CHECK(cudaMemcpyAsync(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    double sum = 0;
    for (int i = 0; i < n; i++) sum += out[i];
    printf("sum of the areas: %.3f\n", sum);

    CHECK(cudaFreeAsync(d_out, stream));
    CHECK(cudaStreamSynchronize(stream));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaHostUnregister(r));
    free(r);
    free(out);
    return 0;
}
