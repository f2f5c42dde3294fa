/* The conformance programs' error check: a failed CUDA call prints the call
 * and CUDA's message, and main returns 1 (as a GPU run would show it). */
#ifndef CONFORMANCE_CHECK_H
#define CONFORMANCE_CHECK_H
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                                \
    do {                                                                           \
        cudaError_t err_ = (call);                                                 \
        if (err_ != cudaSuccess) {                                                 \
            printf("%s failed: %s\n", #call, cudaGetErrorString(err_));            \
            return 1;                                                              \
        }                                                                          \
    } while (0)

#endif
