/*
 * kernel_api.h: what translated kernels and the simulator's runtime share: the
 * launch configuration, the warp operations, and the entry points that
 * kernel.h's macros call.
 */
#ifndef CUDASIM_KERNEL_API_H
#define CUDASIM_KERNEL_API_H

#include "include/cuda_runtime_api.h"

namespace cudasim {

/* The configuration of one launch, as the <<< >>> brackets gave it. */
struct LaunchConfig {
    const char *name;
    const void *fn;
    dim3 grid, block;
    size_t shared_bytes;
    cudaStream_t stream;
};

/* A launch's kernel and arguments. Kernel parameters are passed by value and
 * CUDA copies them when the launch is issued: a launch that a stream capture
 * records keeps a copy (copy()), so the graph runs with the values of that
 * moment however often it is launched. */
struct Args {
    virtual ~Args() = default;
    virtual void run() const = 0; /* the kernel, for one thread */
    virtual Args *copy() const = 0;
    /* Calls visit with each argument that is a pointer (the buffers the
     * launch will likely touch: the runtime opens them beforehand). */
    virtual void pointers(void (*visit)(const void *)) const = 0;
};

enum WarpOp { WARP_SYNC, SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR, BALLOT, ANY, ALL };

} // namespace cudasim

extern "C" {
/* The simulated thread's coordinates, set before a thread runs or resumes. */
extern thread_local uint3 cudasim_thread_idx, cudasim_block_idx;
extern thread_local dim3 cudasim_block_dim, cudasim_grid_dim;

cudaError_t cudasim_launch_kernel(const cudasim::LaunchConfig *cfg, const cudasim::Args *args);
void cudasim_syncthreads(const char *file, int line);
unsigned long long cudasim_warp_op(int op, unsigned mask, unsigned long long value, int arg,
                                   int width, const char *file, int line);
void *cudasim_dynamic_shared(void);
void cudasim_shared_note(void *addr, size_t bytes, const char *file, int line);
int cudasim_register_kernel(const char *name, int uses_barriers);
}

#endif /* CUDASIM_KERNEL_API_H */
