/*
 * sim_kernels.cu: kernels for the simulator's own tests. Some are correct and
 * use a feature (barriers, warp shuffles, dynamic shared memory, 3D indices,
 * atomics); some carry the bugs students make, which the simulator must
 * report with the kernel, the block and the thread. Simulator only: nvcc
 * rightly refuses too_much_shared at compile time.
 */
#include <cuda_runtime.h>

#include "sim_kernels.h"

__global__ void block_sums(const float *x, float *out)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 256 + t];
    __syncthreads();
    for (int stride = 128; stride >= 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        float v = s[t];
        for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);
        if (t == 0) out[blockIdx.x] = v;
    }
}

__global__ void block_sums_missing_barrier(const float *x, float *out)
{
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 256 + t];
    /* BUG: no __syncthreads() here, so a thread may read s[t + stride] before
     * the thread that owns it has written it. */
    for (int stride = 128; stride >= 32; stride /= 2) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t < 32) {
        float v = s[t];
        for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);
        if (t == 0) out[blockIdx.x] = v;
    }
}

__global__ void double_off_by_one(const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) y[i] = 2.0f * x[i < n ? i : 0]; /* BUG: i <= n */
}

/* BUG: no bounds test: every thread from i = n on writes past the end of y. */
__global__ void no_bounds_test(float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = (float)n;
}

/* The same bug after a barrier, so that the threads run as fibers. */
__global__ void no_bounds_test_fibers(float *y, int n)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    s[t] = (float)n;
    __syncthreads();
    y[blockIdx.x * blockDim.x + t] = s[t];
}

__global__ void divergent_barrier(float *x)
{
    if (threadIdx.x >= 32) return; /* BUG: these threads never reach the barrier */
    x[threadIdx.x] += 1.0f;
    __syncthreads();
}

__global__ void reverse_blocks(const float *x, float *y)
{
    extern __shared__ float buf[];
    int t = threadIdx.x, base = blockIdx.x * blockDim.x;
    buf[t] = x[base + t];
    __syncthreads();
    y[base + t] = buf[blockDim.x - 1 - t];
}

__global__ void coordinates(unsigned *out)
{
    unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned *o = out + 12 * (block * blockDim.x * blockDim.y * blockDim.z + thread);
    o[0] = threadIdx.x, o[1] = threadIdx.y, o[2] = threadIdx.z;
    o[3] = blockIdx.x, o[4] = blockIdx.y, o[5] = blockIdx.z;
    o[6] = blockDim.x, o[7] = blockDim.y, o[8] = blockDim.z;
    o[9] = gridDim.x, o[10] = gridDim.y, o[11] = gridDim.z;
}

__global__ void atomics(int *count, float *sum, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(count, 1);
        atomicAdd(sum, (float)i);
    }
}

__global__ void warp_ops(const int *in, int *out)
{
    int t = threadIdx.x, v = in[t];
    int *o = out + 8 * t;
    o[0] = __shfl_sync(0xffffffff, v, 5);
    o[1] = __shfl_up_sync(0xffffffff, v, 3);
    o[2] = __shfl_down_sync(0xffffffff, v, 3, 16);
    o[3] = __shfl_xor_sync(0xffffffff, v, 1);
    o[4] = (int)__ballot_sync(0xffffffff, v % 3 == 0);
    o[5] = __any_sync(0xffffffff, v == 7);
    o[6] = __all_sync(0xffffffff, v >= 0);
    __syncwarp();
    o[7] = 1;
}

__global__ void too_much_shared(float *x)
{
    __shared__ float big[16384];
    big[threadIdx.x] = 1.0f;
    __syncthreads();
    x[threadIdx.x] = big[threadIdx.x];
}

__global__ void trivial(float *x)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) x[0] = 1.0f;
}

__global__ void fiber_overflow(const float *x, float *out)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 64 + t];
    __syncthreads();
    if (t == 0) {
        float v = 0;
        for (int i = 0; i < 64; i++) v += s[i];
        out[blockIdx.x + 1] = v; /* BUG: + 1 */
    }
}

__global__ void half_warps(const int *in, int *out)
{
    int lane = threadIdx.x, v = in[lane];
    unsigned m = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    v = __shfl_xor_sync(m, v, 8, 16); /* each half on its own */
    v += __shfl_sync(0xffffffffu, v, 20); /* then the whole warp */
    out[lane] = v;
}

__global__ void race_lower(const float *x, float *y)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = x[blockIdx.x * 64 + t];
    /* BUG: no __syncthreads() before reading the neighbour's value */
    y[blockIdx.x * 64 + t] = s[t > 0 ? t - 1 : 0];
}

__global__ void axpb(float *y, float a, float b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * y[i] + b;
}

__global__ void write_before(float *y)
{
    if (threadIdx.x == 0) y[-1] = 1.0f; /* BUG: index -1 */
}

__global__ void static_and_dynamic(float *x)
{
    __shared__ float fixed[1024]; /* 4 KiB */
    extern __shared__ float extra[];
    fixed[threadIdx.x] = 1.0f;
    extra[threadIdx.x] = 2.0f;
    __syncthreads();
    x[threadIdx.x] = fixed[threadIdx.x] + extra[threadIdx.x];
}

/* out[i] = in[i * stride]: a warp's loads stride floats apart (the profiler's tests). */
__global__ void strided_copy(const float *in, float *out, int n, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i * stride];
}

extern "C" {

cudaError_t sim_half_warps(const int *in, int *out)
{
    half_warps<<<1, 32>>>(in, out);
    return cudaGetLastError();
}

cudaError_t sim_race_lower(const float *x, float *y, int blocks)
{
    race_lower<<<blocks, 64>>>(x, y);
    return cudaGetLastError();
}

cudaError_t sim_write_before(float *y)
{
    write_before<<<1, 32>>>(y);
    return cudaGetLastError();
}

cudaError_t sim_static_and_dynamic(float *x, size_t dynamic, int allow)
{
    if (allow)
        cudaFuncSetAttribute((const void *)static_and_dynamic,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dynamic);
    static_and_dynamic<<<1, 64, dynamic>>>(x);
    return cudaGetLastError();
}

cudaError_t sim_block_sums(const float *x, float *out, int blocks)
{
    block_sums<<<blocks, 256>>>(x, out);
    return cudaGetLastError();
}

cudaError_t sim_block_sums_missing_barrier(const float *x, float *out, int blocks)
{
    block_sums_missing_barrier<<<blocks, 256>>>(x, out);
    return cudaGetLastError();
}

cudaError_t sim_double_off_by_one(const float *x, float *y, int n, cudaStream_t stream)
{
    double_off_by_one<<<(n + 127) / 128, 128, 0, stream>>>(x, y, n);
    return cudaGetLastError();
}

cudaError_t sim_no_bounds_test(float *y, int n, int threads, int fibers)
{
    if (fibers)
        no_bounds_test_fibers<<<1, threads>>>(y, n);
    else
        no_bounds_test<<<1, threads>>>(y, n);
    return cudaGetLastError();
}

cudaError_t sim_divergent_barrier(float *x, int threads)
{
    divergent_barrier<<<1, threads>>>(x);
    return cudaGetLastError();
}

cudaError_t sim_reverse_blocks(const float *x, float *y, int blocks, cudaStream_t stream)
{
    reverse_blocks<<<blocks, 128, 128 * sizeof(float), stream>>>(x, y);
    return cudaGetLastError();
}

cudaError_t sim_coordinates(unsigned *out, dim3 grid, dim3 block)
{
    coordinates<<<grid, block>>>(out);
    return cudaGetLastError();
}

cudaError_t sim_atomics(int *count, float *sum, int n)
{
    atomics<<<(n + 63) / 64, 64>>>(count, sum, n);
    return cudaGetLastError();
}

cudaError_t sim_warp_ops(const int *in, int *out)
{
    warp_ops<<<1, 64>>>(in, out);
    return cudaGetLastError();
}

cudaError_t sim_too_much_shared(float *x)
{
    too_much_shared<<<1, 64>>>(x);
    return cudaGetLastError();
}

cudaError_t sim_launch_config(float *x, dim3 grid, dim3 block, size_t shared_bytes,
                              cudaStream_t stream)
{
    trivial<<<grid, block, shared_bytes, stream>>>(x);
    return cudaGetLastError();
}

cudaError_t sim_allow_shared(int bytes)
{
    return cudaFuncSetAttribute((const void *)trivial, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                bytes);
}

cudaError_t sim_fiber_overflow(const float *x, float *out, int blocks)
{
    fiber_overflow<<<blocks, 64>>>(x, out);
    return cudaGetLastError();
}

cudaError_t sim_axpb(float *y, float a, float b, int n, cudaStream_t stream)
{
    axpb<<<(n + 63) / 64, 64, 0, stream>>>(y, a, b, n);
    return cudaGetLastError();
}

const void *sim_axpb_kernel(void) { return (const void *)axpb; }

cudaError_t sim_strided_copy(const float *in, float *out, int n, int stride)
{
    strided_copy<<<(n + 255) / 256, 256>>>(in, out, n, stride);
    return cudaGetLastError();
}

} /* extern "C" */
