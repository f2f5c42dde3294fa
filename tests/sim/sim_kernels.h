/* sim_kernels.h: kernels that exercise the CUDA simulator, correct ones and
 * ones with the bugs it must report (tests/sim/sim_kernels.cu). */
#ifndef WB_SIM_KERNELS_H
#define WB_SIM_KERNELS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[b] = sum of x[b * 256 .. b * 256 + 255]: shared-memory tree, then a warp shuffle tail. */
cudaError_t sim_block_sums(const float *x, float *out, int blocks);
/* The same with the first __syncthreads missing (a planted bug). */
cudaError_t sim_block_sums_missing_barrier(const float *x, float *out, int blocks);
/* y[i] = 2 x[i] for i <= n: one element too far (a planted bug). */
cudaError_t sim_double_off_by_one(const float *x, float *y, int n, cudaStream_t stream);
/* One block of `threads` (at most 128) writing y[i] for every thread, without a bounds
 * test; with fibers, after a barrier. */
cudaError_t sim_no_bounds_test(float *y, int n, int threads, int fibers);
/* Threads 0-31 of each block meet at a __syncthreads the others never reach (planted). */
cudaError_t sim_divergent_barrier(float *x, int threads);
/* Reverse each block of 128 values through dynamic shared memory. */
cudaError_t sim_reverse_blocks(const float *x, float *y, int blocks, cudaStream_t stream);
/* Every thread of a (gx, gy, gz) x (bx, by, bz) launch writes its 12 coordinates. */
cudaError_t sim_coordinates(unsigned *out, dim3 grid, dim3 block);
/* atomicAdd from every thread: count[0] += 1 (int), sum[0] += i (float). */
cudaError_t sim_atomics(int *count, float *sum, int n);
/* Warp operations of a 64-thread block: out[8 * t + k] for k = shfl idx, up, down, xor
 * (width 16), ballot, any, all, syncwarp. */
cudaError_t sim_warp_ops(const int *in, int *out);
/* A kernel with 64 KiB of static __shared__ memory (more than a block may have). */
cudaError_t sim_too_much_shared(float *x);
/* A trivial kernel launched with the given configuration and dynamic shared memory. */
cudaError_t sim_launch_config(float *x, dim3 grid, dim3 block, size_t shared_bytes,
                              cudaStream_t stream);
/* Let sim_launch_config's kernel use up to bytes of dynamic shared memory. */
cudaError_t sim_allow_shared(int bytes);
/* Lanes in two half-warp groups shuffle within their half (xor 8, width 16),
 * then the whole warp reads lane 20: out[t] for one warp of 32. */
cudaError_t sim_half_warps(const int *in, int *out);
/* y[t] = x[t - 1] through shared memory without a barrier (a planted bug). */
cudaError_t sim_race_lower(const float *x, float *y, int blocks);
/* Thread 0 writes y[-1] (a planted bug). */
cudaError_t sim_write_before(float *y);
/* 4 KiB of static shared memory plus `dynamic` bytes of dynamic shared memory. */
cudaError_t sim_static_and_dynamic(float *x, size_t dynamic, int allow);
/* A block-sum kernel with barriers that writes one element past out's end. */
cudaError_t sim_fiber_overflow(const float *x, float *out, int blocks);
/* y[i] = a y[i] + b for i < n. */
cudaError_t sim_axpb(float *y, float a, float b, int n, cudaStream_t stream);
/* sim_axpb's kernel itself (axpb(float *y, float a, float b, int n)), for the launch calls. */
const void *sim_axpb_kernel(void);
/* out[i] = in[i * stride] for i < n, in blocks of 256 threads. */
cudaError_t sim_strided_copy(const float *in, float *out, int n, int stride);

#ifdef __cplusplus
}
#endif

#endif
