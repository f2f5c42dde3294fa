/*
 * Lesson 03 exercise 03.4: a transpose that a GPU's memory likes.
 *
 * lib calls k_transpose whenever a tensor is transposed on a CUDA device
 * (tensor_transpose, lib/device/tensor.h). A transpose reads along one axis and
 * writes along the other, so a kernel that maps one thread to one element reads
 * consecutive addresses (coalesced) but writes addresses `rows` floats apart, or
 * the other way round: each warp's store then touches 32 sectors instead of 4.
 * Staging a tile in shared memory fixes both sides, and padding the tile keeps
 * its columns out of each other's banks. The file is CUDA C++: nvcc builds it for
 * a GPU, and the workbook's CUDA simulator builds the same file to run it on the
 * CPU and count its accesses (docs/simulator.md, "What a kernel's accesses cost").
 *
 *   make grade LESSON=03          graded on the simulator: the result, then the counters
 *   make hint EX=03.4
 */
#include <limits.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "lib/core/err.h"

#define HERE "lessons/03_why_gpu_slower/exercises.cu"

/* ex03.4 A transpose through a shared-memory tile -------------------------------------
 * TODO(ex03.4): two parts; kernels/kernels.h says what k_transpose promises.
 * 1. A kernel, `static __global__ void transpose_kernel(const float *in, float *out,
 *    int rows, int cols)`, for blocks of 32 x 8 threads that each move one 32 x 32 tile
 *    of in (column-major: element (i, j) at in[i + j * rows]) through
 *    `__shared__ float tile[32][32 + PAD];`:
 *    - load: lane threadIdx.x takes row i = blockIdx.x * 32 + threadIdx.x and the tile's
 *      columns j = blockIdx.y * 32 + k for k = threadIdx.y, + 8, + 16, + 24:
 *      tile[k][threadIdx.x] = in[i + j * rows], so consecutive lanes read consecutive
 *      addresses;
 *    - __syncthreads();
 *    - store: lane threadIdx.x now takes column j = blockIdx.y * 32 + threadIdx.x of in,
 *      a row of out, and the rows r = blockIdx.x * 32 + k:
 *      out[j + r * cols] = tile[threadIdx.x][k], consecutive lanes to consecutive
 *      addresses again;
 *    - skip the elements past rows or cols (the last tiles stick out);
 *    - PAD: with 0, the store's tile[threadIdx.x][k] reads a column, 32 floats apart,
 *      all in one bank (a 32-way bank conflict); pick the padding that spreads a column
 *      over the 32 banks.
 * 2. In k_transpose: check the arguments (negative sizes, rows * cols over INT_MAX, or
 *    NULL pointers when there is work: cudaErrorInvalidValue; rows or cols 0:
 *    cudaSuccess without launching), launch a grid of ((rows + 31) / 32, (cols + 31) / 32)
 *    blocks of (32, 8) threads on stream s (the launch on one line) and return
 *    cudaGetLastError().
 * About 30 lines in all. Delete the two lines of the stub below.
 */
extern "C" cudaError_t k_transpose(const float *in, float *out, int64_t rows, int64_t cols,
                                   cudaStream_t s)
{
    (void)in, (void)out, (void)rows, (void)cols, (void)s;
    exercise_todo("03.4", "k_transpose", HERE);
    return cudaErrorNotSupported;
}
