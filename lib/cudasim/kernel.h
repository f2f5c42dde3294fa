/*
 * kernel.h: the device side of CUDA C++ for the simulator.
 *
 * A .cu file is first translated by cu2sim.pl (launches `k<<<g, b>>>(...)`
 * become `cudasim::launch("k", k, g, b)(...)`, `__shared__` variables become
 * per-block statics, `extern __shared__` arrays point at the launch's dynamic
 * shared memory), then compiled by g++ with this header. Threads of a block
 * run one after another on the CPU; kernels that use __syncthreads or warp
 * operations run each thread as a fiber that yields at them (sim.cpp).
 */
#ifndef CUDASIM_KERNEL_H
#define CUDASIM_KERNEL_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "include/cuda_runtime_api.h"

#define __global__
#define __device__
#define __host__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __constant__ static

#include "kernel_api.h"

#define threadIdx cudasim_thread_idx
#define blockIdx cudasim_block_idx
#define blockDim cudasim_block_dim
#define gridDim cudasim_grid_dim
#define warpSize 32

#define __syncthreads() cudasim_syncthreads(__FILE__, __LINE__)
#define __syncwarp cudasim::SyncWarp{__FILE__, __LINE__}
#define __shfl_sync(mask, v, ...) cudasim::shfl(cudasim::SHFL_IDX, mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(mask, v, ...) cudasim::shfl(cudasim::SHFL_UP, mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(mask, v, ...) cudasim::shfl(cudasim::SHFL_DOWN, mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(mask, v, ...) cudasim::shfl(cudasim::SHFL_XOR, mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __ballot_sync(mask, p) ((unsigned)cudasim_warp_op(cudasim::BALLOT, mask, (p) != 0, 0, 32, __FILE__, __LINE__))
#define __any_sync(mask, p) ((int)cudasim_warp_op(cudasim::ANY, mask, (p) != 0, 0, 32, __FILE__, __LINE__))
#define __all_sync(mask, p) ((int)cudasim_warp_op(cudasim::ALL, mask, (p) != 0, 0, 32, __FILE__, __LINE__))
#define CUDASIM_SHARED(var) cudasim_shared_note(&(var), sizeof(var), __FILE__, __LINE__)

namespace cudasim {

/* __syncwarp() and __syncwarp(mask), remembering where they were called. */
struct SyncWarp {
    const char *file;
    int line;
    void operator()(unsigned mask = 0xffffffffu) const
    {
        cudasim_warp_op(WARP_SYNC, mask, 0, 0, 32, file, line);
    }
};

/* Warp shuffles move up to 8 bytes of any trivially copyable type. */
template <typename T>
static inline T shfl(WarpOp op, unsigned mask, T var, const char *file, int line, int arg,
                     int width = 32)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "the simulator shuffles values of at most 8 bytes");
    unsigned long long bits = 0;
    std::memcpy(&bits, &var, sizeof(T));
    bits = cudasim_warp_op(op, mask, bits, arg, width, file, line);
    T out;
    std::memcpy(&out, &bits, sizeof(T));
    return out;
}

/* A kernel with its arguments converted to its parameters' types. */
template <typename... P>
struct Pack final : Args {
    void (*fn)(P...);
    std::tuple<P...> args;

    Pack(void (*f)(P...), std::tuple<P...> a) : fn(f), args(std::move(a)) {}
    void run() const override { std::apply(fn, args); }
    Args *copy() const override { return new Pack(*this); }
    void pointers(void (*visit)(const void *)) const override
    {
        std::apply([visit](const P &...a) { (visit_pointers(visit, a), ...); }, args);
    }

  private:
    /* A pointer argument, or each pointer-aligned word of a struct argument
     * (which may hold pointers; a word that is not one is ignored). */
    template <typename T>
    static void visit_pointers(void (*visit)(const void *), const T &a)
    {
        if constexpr (std::is_pointer<T>::value) {
            if constexpr (std::is_object<typename std::remove_pointer<T>::type>::value)
                visit((const void *)a);
        } else if constexpr (std::is_class<T>::value && std::is_trivially_copyable<T>::value) {
            for (size_t at = 0; at + sizeof(void *) <= sizeof(T); at += alignof(void *)) {
                const void *word;
                std::memcpy(&word, reinterpret_cast<const char *>(&a) + at, sizeof word);
                visit(word);
            }
        }
    }
};

template <typename... P>
struct Launcher {
    LaunchConfig cfg;
    void (*fn)(P...);

    template <typename... A>
    void operator()(A &&...args) const
    {
        static_assert(sizeof...(A) == sizeof...(P), "wrong number of kernel arguments");
        const Pack<P...> pack(fn, std::tuple<P...>(static_cast<P>(std::forward<A>(args))...));
        cudasim_launch_kernel(&cfg, &pack);
    }
};

/* What `kernel<<<grid, block, shared_bytes, stream>>>` becomes. */
template <typename... P>
static inline Launcher<P...> launch(const char *name, void (*fn)(P...), dim3 grid, dim3 block,
                                    size_t shared_bytes = 0, cudaStream_t stream = 0)
{
    return Launcher<P...>{{name, reinterpret_cast<const void *>(fn), grid, block, shared_bytes, stream},
                          fn};
}

} // namespace cudasim

/* Atomics: threads never interrupt one another in the simulator, so a plain
 * read-modify-write is atomic. (On a GPU the order of atomic additions varies
 * from run to run; here it is always the same.) */
template <typename T>
static inline T atomicAdd(T *address, T value)
{
    T old = *address;
    *address = old + value;
    return old;
}
template <typename T>
static inline T atomicSub(T *address, T value)
{
    T old = *address;
    *address = old - value;
    return old;
}
template <typename T>
static inline T atomicExch(T *address, T value)
{
    T old = *address;
    *address = value;
    return old;
}
template <typename T>
static inline T atomicMax(T *address, T value)
{
    T old = *address;
    if (value > old) *address = value;
    return old;
}
template <typename T>
static inline T atomicMin(T *address, T value)
{
    T old = *address;
    if (value < old) *address = value;
    return old;
}
template <typename T>
static inline T atomicCAS(T *address, T compare, T value)
{
    T old = *address;
    if (old == compare) *address = value;
    return old;
}

/* Memory and bit intrinsics: on the CPU, reads go through no special cache
 * and threads never run at once, so fences have nothing to order. */
template <typename T>
static inline T __ldg(const T *p)
{
    return *p;
}
static inline void __threadfence(void) {}
static inline void __threadfence_block(void) {}
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline unsigned __activemask(void) { return 0xffffffffu; }

/* Device math that CUDA has and the C++ library spells differently. */
/* (__expf and __logf: glibc already has functions of those names.) */
static inline float __fdividef(float a, float b) { return a / b; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long min(long a, long b) { return a < b ? a : b; }
static inline long max(long a, long b) { return a > b ? a : b; }
static inline unsigned long min(unsigned long a, unsigned long b) { return a < b ? a : b; }
static inline unsigned long max(unsigned long a, unsigned long b) { return a > b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }

#endif /* CUDASIM_KERNEL_H */
