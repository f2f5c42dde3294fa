/* kernel_check.h: what the kernel test files share: checked CUDA calls, the
 * device every test needs, seeded data, and copies to and from the device. */
#ifndef WB_KERNEL_CHECK_H
#define WB_KERNEL_CHECK_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif

#define CUDA_OK(call)                                                                     \
    do {                                                                                  \
        cudaError_t err_ = (call);                                                        \
        ck_assert_msg(err_ == cudaSuccess, "%s returned %d (%s), expected cudaSuccess", \
                      #call, (int)err_, cudaGetErrorString(err_));                        \
    } while (0)

/* A wrapper call that must be refused without launching anything. */
#define CUDA_INVALID(call)                                                          \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        ck_assert_msg(err_ == cudaErrorInvalidValue,                                \
                      "%s returned %d (%s), expected cudaErrorInvalidValue", #call, \
                      (int)err_, cudaGetErrorString(err_));                         \
    } while (0)

/* Every test starts here: no device (real or simulated) is a failure, never a pass. */
static inline void require_device(void)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    ck_assert_msg(err == cudaSuccess && count > 0,
                  "no CUDA device: cudaGetDeviceCount returned %d (%s) and %d devices; the "
                  "kernel tests need a GPU or the CUDA simulator (run them through make test)",
                  (int)err, cudaGetErrorString(err), count);
}

/* Kernels launched so far (the simulator counts them; a GPU does not tell,
 * and there the tests check the values only). */
static inline unsigned long long launches(void)
{
#ifdef CUDASIM
    return cudasim_launch_count();
#else
    return 0;
#endif
}

/* splitmix64: a small seeded generator, so the data are the same on every machine. */
typedef struct {
    uint64_t state;
} TestRng;

static inline uint64_t rng_next(TestRng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A device copy of @p bytes at @p host (or uninitialised memory for host NULL). */
static inline void *to_device(const void *host, size_t bytes)
{
    void *d = NULL;
    CUDA_OK(cudaMalloc(&d, bytes));
    if (host) CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

/* Wait for the kernels before (reporting their errors), then copy back. */
static inline void from_device(void *host, const void *dev, size_t bytes)
{
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
}

#endif
