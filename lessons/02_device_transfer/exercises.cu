/*
 * Lesson 02 exercise 02.4: your first CUDA kernel, ReLU on the GPU.
 *
 * lib calls k_relu_forward whenever a ReLU runs on a CUDA device, so once this
 * works, the Iris network of Lesson 01 trains on the GPU with your kernel in
 * it. The file is CUDA C++: nvcc builds it for a GPU, and the workbook's CUDA
 * simulator builds the same file to run it on the CPU (docs/simulator.md).
 *
 *   make grade LESSON=02          graded on the GPU if there is one, else on the simulator
 *   make hint EX=02.4
 */
#include <limits.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "lib/core/err.h"

#define HERE "lessons/02_device_transfer/exercises.cu"

/* ex02.4 ReLU forward as a kernel ---------------------------------------------------
 * TODO(ex02.4): two parts.
 * 1. A kernel, `static __global__ void relu_forward_kernel(const float *x, float *y, int n)`,
 *    in which each thread handles one element: i = blockIdx.x * blockDim.x + threadIdx.x,
 *    and only if i < n (the last block may stick out past the end).
 * 2. In k_relu_forward: check the arguments (n < 0, n > INT_MAX, or NULL pointers
 *    when n > 0: return cudaErrorInvalidValue; n == 0: return cudaSuccess without
 *    launching), pick the launch configuration (256 threads a block, and enough
 *    blocks to cover n: round up), launch with
 *        relu_forward_kernel<<<blocks, threads, 0, s>>>(x, y, (int)n);
 *    (on one line) and return cudaGetLastError().
 * About 15 lines in all. Delete the two lines of the stub below.
 */
extern "C" cudaError_t k_relu_forward(const float *x, float *y, int64_t n, cudaStream_t s)
{
    (void)x, (void)y, (void)n, (void)s;
    exercise_todo("02.4", "k_relu_forward", HERE);
    return cudaErrorNotSupported;
}
