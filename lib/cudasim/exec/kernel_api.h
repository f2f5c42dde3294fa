/*
 * kernel_api.h: what translated kernels and the simulator's runtime share: the
 * launch configuration, the warp operations, shared memory, and the entry
 * points that kernel.h's macros and templates call.
 */
#ifndef CUDASIM_KERNEL_API_H
#define CUDASIM_KERNEL_API_H

#include <stdint.h>

#include "../include/cuda_runtime_api.h"

namespace cudasim {

/* The configuration of one launch, as the <<< >>> brackets gave it. */
struct LaunchConfig {
    const char *name;
    const void *fn; /* the kernel, for cudaFuncSetAttribute; NULL when deduced */
    dim3 grid, block;
    size_t shared_bytes;
    cudaStream_t stream;
    int cooperative = 0; /* cudaLaunchCooperativeKernel's: its blocks may meet at grid syncs */
};

/* A launch's kernel and arguments. Kernel parameters are passed by value and
 * CUDA copies them when the launch is issued: a launch that a stream capture
 * records keeps a copy (copy()), so the graph runs with the values of that
 * moment however often it is launched. */
struct Args {
    virtual ~Args() = default;
    virtual void run() const = 0; /* the kernel, for one thread */
    virtual Args *copy() const = 0;
    /* The kernel's address, where the launch names it (NULL when a lambda calls
     * it: a template kernel whose parameters the arguments deduce), and the
     * kernel at fn, of the same type, run for one thread with these arguments:
     * the kernel's uninstrumented twin (exec/twins.cpp). */
    virtual const void *kernel() const { return nullptr; }
    virtual void run_as(const void *fn) const
    {
        (void)fn;
        run();
    }
    /* Calls visit with each argument that is a pointer (the buffers the
     * launch will likely touch: the runtime opens them beforehand). */
    virtual void pointers(void (*visit)(const void *)) const = 0;
    /* The same, less the pointers to const: the buffers the kernel may
     * write through its arguments (the others are not checked for races). */
    virtual void writable_pointers(void (*visit)(const void *)) const { pointers(visit); }
    /* Calls visit with each argument whose type is a pointer (not the words
     * of a struct): each must be device memory, or NULL. */
    virtual void pointer_arguments(void (*visit)(const void *)) const { (void)visit; }
    /* The launch's shape, for the checks (exec/launch.cpp): *h mixed with the
     * bytes of each argument, a pointer argument as pointer(p) says (the
     * buffer it points into, and where); false when an argument's type has no
     * plain bytes to compare (every launch is then checked). */
    virtual bool shape(uint64_t *h, uint64_t (*pointer)(const void *)) const
    {
        (void)h;
        (void)pointer;
        return false;
    }
};

/* (WARP_GATHER and WARP_ACTIVE: the steps of warp_collective.cpp's gather and
 * __activemask, which meet only their own kind; the scheduler settles them as a
 * __syncwarp, each lane's result its own value.) */
enum WarpOp { WARP_SYNC, SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR, BALLOT, ANY, ALL, WARP_GATHER,
              WARP_ACTIVE };
enum BlockOp { SYNC_PLAIN, SYNC_COUNT, SYNC_AND, SYNC_OR };

/* A `__shared__` declaration: where this launch placed it (the translator
 * gives each declaration a static slot) and what it is, for the reports. */
struct SharedSlot {
    unsigned long long launch; /* the launch that placed it (cudasim_launch_serial) */
    size_t offset;             /* from cudasim_shared_base */
};
struct SharedDecl {
    const char *name, *file;
    int line;
    size_t bytes, align, elem; /* elem: the size of one element of the array */
    int rank;                  /* 0 for a scalar, else the array's dimensions */
    size_t extent[3];
};

} // namespace cudasim

/* A variable of each CPU thread that runs blocks (exec/parallel.cpp), read at every
 * threadIdx of a kernel: constant-initialized (no call to initialize it before a
 * read) and in the program's static TLS (one load from the thread pointer, in the
 * program and in its uninstrumented twin, exec/twins.cpp). */
#if defined(__GNUC__) && !defined(__clang__)
#define CUDASIM_TLS __constinit thread_local __attribute__((tls_model("initial-exec")))
#else
#define CUDASIM_TLS thread_local
#endif

extern "C" {
/* The simulated thread's coordinates, set before a thread runs or resumes. */
extern CUDASIM_TLS uint3 cudasim_thread_idx, cudasim_block_idx;
extern CUDASIM_TLS dim3 cudasim_block_dim, cudasim_grid_dim;
/* Shared memory: one arena, at a fixed address; a new number each launch. */
extern unsigned long long cudasim_launch_serial;
extern CUDASIM_TLS char *cudasim_shared_base; /* (per thread: exec/parallel.cpp) */

cudaError_t cudasim_launch_kernel(const cudasim::LaunchConfig *cfg, const cudasim::Args *args);
void cudasim_syncthreads(const char *file, int line);
/* cooperative_groups' grid_group: sync() waits for every thread of the grid
 * (a cooperative launch only); is_valid() says whether this is one. */
void cudasim_grid_sync(const char *file, int line);
int cudasim_grid_valid(void);
int cudasim_syncthreads_op(int op, int predicate, const char *file, int line);
unsigned long long cudasim_warp_op(int op, unsigned mask, unsigned long long value, int arg,
                                   int width, const char *file, int line);
void *cudasim_dynamic_shared(const char *name, size_t elem, const char *file, int line);
void *cudasim_shared_alloc(cudasim::SharedSlot *slot, const cudasim::SharedDecl *decl);
/* Translated files register their kernels: whether one needs fibers
 * (barriers, warp operations), and whether its memory accesses are checked
 * (compiled with the simulator's instrumentation). */
int cudasim_register_kernel(const char *name, int uses_barriers, int instrumented);
/* The kernel at address fn (registered from the top of its body, once for each
 * instantiation: kernel_registry.cpp): its name, the maximum of threads per block
 * its __launch_bounds__ give (0 without), the alignment its static shared memory
 * is rounded up to (16 in a file with dynamic shared memory, else 1), and how to
 * launch it with cudaLaunchKernel's args, an array of pointers to the arguments. */
int cudasim_register_kernel_entry(const void *fn, const char *name, int max_threads,
                                  size_t shared_align,
                                  cudaError_t (*launch)(const cudasim::LaunchConfig *cfg,
                                                        void **args));
/* The name the kernel at fn registered, or NULL. */
const char *cudasim_kernel_name(const void *fn);
/* A __shared__ variable of static size, of kernel fn or (fn NULL) of the
 * __device__ function called fn_name; id tells declarations apart, the same in
 * every file that includes them. */
int cudasim_register_static_shared(const void *fn, const char *fn_name, unsigned id, size_t size,
                                   size_t align);
/* The __device__ functions a kernel calls, at any depth, by name, separated by
 * spaces (those of them that declare __shared__ variables). */
int cudasim_register_kernel_calls(const char *kernel, const char *callees);
/* A kernel's __launch_bounds__, the first thing its threads do: a launch with
 * more threads per block fails (cudaErrorLaunchOutOfResources). */
void cudasim_launch_bound(long long max_threads);
/* An atomic operation on n bytes at p, called from the code at pc: checked
 * like any access, but never a race. */
void cudasim_atomic_access(const volatile void *p, size_t n, const void *pc);
/* __threadfence() (and _system): what the block wrote before it is visible to
 * other blocks before what it does next (an atomic ticket: a release). */
void cudasim_threadfence(void);
/* A namespace-scope variable of a translated file, which the translator
 * (cu2sim_variables.pl) registers: size bytes at p, a __device__ (kind 0),
 * __constant__ (1) or __managed__ (2) variable called name, declared at
 * file:line, with red_zone bytes before and after it that belong to it (the
 * translator placed it between them; 0 where it left the declaration as
 * written). Kernels' accesses to it are checked: memcheck (its red zones,
 * writes to a __constant__ one) and races, within and between blocks. */
int cudasim_register_variable(const void *p, size_t size, const char *name, int kind,
                              size_t red_zone, const char *file, int line);
unsigned long long cudasim_clock64(void);

/* ---- what the device side's libraries (include/mma.h, include/cuda/,
 * cooperative_groups/memcpy_async.h) need of a launch. pc is the program's
 * code that called the library (a return address), which reports name. ---- */

/* An access the library makes for the program: n bytes at p, kind 0 a load,
 * 1 a store, 2 an atomic (check/access.cpp). CUDASIM_ACCESS_VECTOR: one vector
 * access, which must be a multiple of n; CUDASIM_ACCESS_UNCOUNTED: checked but
 * not counted by the profiler (a GPU makes it otherwise). */
#define CUDASIM_ACCESS_VECTOR 1
#define CUDASIM_ACCESS_UNCOUNTED 2
void cudasim_library_access(const volatile void *p, size_t n, int kind, int flags, const void *pc);
/* A library found the program's mistake: reported, with the thread and its
 * line, and the launch ends with error (a cudaError_t) (exec/warp_collective.cpp). */
void cudasim_device_fault(int error, const char *what, const void *pc) __attribute__((noreturn));
/* A collective of the whole warp (WMMA): every lane gives ctx; when the 32
 * have, settle(ctxs) runs once, with the lanes' ctx in lane order, before any
 * of them goes on. A lane that does not come is reported as for a warp
 * operation at file:line (exec/warp_collective.cpp). */
void cudasim_warp_collective(void *ctx, void (*settle)(void *const *ctxs), const char *file,
                             int line);
/* Every lane of mask gives value; values[l] receives lane l's, and the result is the
 * lanes of mask the block has (exec/warp_collective.cpp: __match_any_sync,
 * __match_all_sync, __reduce_*_sync). Reported as a warp operation. */
unsigned cudasim_warp_gather(unsigned mask, unsigned long long value, unsigned long long *values,
                         const char *file, int line);
/* __activemask(): the lanes of the calling warp that reach this call together. */
unsigned cudasim_activemask(const char *file, int line);
/* cuda::barrier<thread_scope_block> (exec/barriers.cpp), whose state is the
 * 16 bytes at bar: init(bar, expected); arrive: update arrivals (drop: the
 * thread leaves the barrier's later phases too), returning the phase it
 * arrived in, *completed whether it completed it; wait until the phase
 * `phase` has completed (parity: until a phase of that parity has); a phase
 * that completes orders what the block did before it with what it does after,
 * as __syncthreads does. */
void cudasim_barrier_init(void *bar, long long expected, const void *pc);
unsigned cudasim_barrier_arrive(void *bar, long long update, int drop, int *completed,
                                const void *pc);
void cudasim_barrier_wait(void *bar, unsigned phase, int parity, const void *pc);
int cudasim_barrier_test(void *bar, unsigned phase, int parity, const void *pc);
/* The barrier's completion function ran, after a phase completed: what it did
 * is ordered before what the waiting threads do next. */
void cudasim_barrier_completion_ran(void *bar);
/* Asynchronous copies (cuda::memcpy_async, cooperative groups' memcpy_async;
 * exec/async_copy.cpp): n bytes from src to dst, each aligned to align. From
 * global to shared memory the copy lands (dst is written, for the checks)
 * when it completes: with bar, when the barrier's current phase completes;
 * without, when the thread waits for its group of copies (commit: the
 * thread's copies so far are a group; wait_prior: all but the n last groups
 * complete). bind: the thread's copies not yet in a group complete with the
 * barrier's current phase instead. Other copies are made at once. */
void cudasim_async_copy(void *dst, const void *src, size_t n, size_t align, void *bar,
                        const void *pc);
void cudasim_async_commit(void);
void cudasim_async_wait_prior(unsigned n);
void cudasim_async_bind(void *bar);

/* printf in device code (the translator renames it): inside a kernel the
 * text is kept and printed, as a GPU's printf buffer is, lane by lane at the
 * block's next barrier or its end; outside one it is printf. */
int cudasim_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
}

#endif /* CUDASIM_KERNEL_API_H */
