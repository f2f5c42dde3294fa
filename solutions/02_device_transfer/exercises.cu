/*
 * Lesson 02 exercise 02.4, reference answer: the ReLU forward kernel and its
 * launch. Same function as lessons/02_device_transfer/exercises.cu.
 */
#include <limits.h>
#include <stdint.h>

#include "kernels/kernels.h"

#define RELU_THREADS 256 /* threads per block: a multiple of the warp size (32) */

/* One thread per element: thread i of the whole grid handles x[i]. */
static __global__ void relu_forward_kernel(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x; /* this thread's element */
    if (i < n)                                     /* the last block may stick out */
        y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" cudaError_t k_relu_forward(const float *x, float *y, int64_t n, cudaStream_t s)
{
    if (n < 0 || n > INT_MAX || (n > 0 && (!x || !y))) return cudaErrorInvalidValue;
    if (n == 0) return cudaSuccess; /* a grid of 0 blocks is an error in CUDA */
    /* Enough blocks to give every element a thread: ceil(n / 256). */
    unsigned int blocks = (unsigned int)((n + RELU_THREADS - 1) / RELU_THREADS);
    relu_forward_kernel<<<blocks, RELU_THREADS, 0, s>>>(x, y, (int)n);
    return cudaGetLastError();
}
