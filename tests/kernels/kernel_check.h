/* kernel_check.h: what the kernel test files share: checked CUDA calls and
 * the device every test needs. */
#ifndef WB_KERNEL_CHECK_H
#define WB_KERNEL_CHECK_H

#include <check.h>

#include <cuda_runtime_api.h>

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

#endif
