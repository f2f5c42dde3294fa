/*
 * kernel.h: the device side of CUDA C++ for the simulator.
 *
 * A .cu file is first translated by cu2sim.pl (launches `k<<<g, b>>>(...)`
 * become `cudasim::launch("k", k, g, b)(...)`, `__shared__` variables become
 * references into the block's shared memory, `extern __shared__` arrays point
 * at the launch's dynamic shared memory), then compiled by g++ with this
 * header. Threads of a block run one after another on the CPU; kernels that
 * use __syncthreads or warp operations run each thread as a fiber that yields
 * at them (fibers.cpp). Translated files are compiled with ThreadSanitizer's
 * instrumentation but without its runtime: every load and store of a kernel
 * calls the simulator (access.cpp's __tsan_* functions), which checks its bounds,
 * whether it reads memory never written, and whether it races with another
 * thread of the block.
 */
#ifndef CUDASIM_KERNEL_H
#define CUDASIM_KERNEL_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory> /* before __noinline__ is a macro (below): GCC 12's <memory> spells the
                     attribute __attribute__((__noinline__)), so a program's own later
                     #include <memory> finds it included already */
#include <tuple>
#include <type_traits>
#include <utility>

#include "../include/cuda_runtime.h"

#ifndef __CUDACC__
#define __CUDACC__ 1 /* a CUDA source (__CUDA_ARCH__: cu2sim.pl defines it, for -arch) */
#endif
#define __global__
#define __device__
#define __host__
#define __managed__
#define __grid_constant__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __constant__ static
#define __device_builtin__
#define __cudart_builtin__

#include "kernel_api.h"

#if defined(__SANITIZE_THREAD__)
#define CUDASIM_INSTRUMENTED 1 /* this file's accesses call the simulator's checks */
#else
#define CUDASIM_INSTRUMENTED 0
#endif

#define threadIdx cudasim_thread_idx
#define blockIdx cudasim_block_idx
#define blockDim cudasim_block_dim
#define gridDim cudasim_grid_dim
static constexpr int warpSize = 32; /* a variable, not a macro: prop.warpSize stays a field */

#define __syncthreads() cudasim_syncthreads(__FILE__, __LINE__)
#define __syncthreads_count(p) cudasim_syncthreads_op(cudasim::SYNC_COUNT, (p) != 0, __FILE__, __LINE__)
#define __syncthreads_and(p) cudasim_syncthreads_op(cudasim::SYNC_AND, (p) != 0, __FILE__, __LINE__)
#define __syncthreads_or(p) cudasim_syncthreads_op(cudasim::SYNC_OR, (p) != 0, __FILE__, __LINE__)
#define __syncwarp cudasim::SyncWarp{__FILE__, __LINE__}
#define __shfl_sync(mask, v, ...) cudasim::shfl(cudasim::SHFL_IDX, mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(mask, v, ...) cudasim::shfl(cudasim::SHFL_UP, mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(mask, v, ...) cudasim::shfl(cudasim::SHFL_DOWN, mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(mask, v, ...) cudasim::shfl(cudasim::SHFL_XOR, mask, v, __FILE__, __LINE__, __VA_ARGS__)
#define __ballot_sync(mask, p) ((unsigned)cudasim_warp_op(cudasim::BALLOT, mask, (p) != 0, 0, 32, __FILE__, __LINE__))
#define __any_sync(mask, p) ((int)cudasim_warp_op(cudasim::ANY, mask, (p) != 0, 0, 32, __FILE__, __LINE__))
#define __all_sync(mask, p) ((int)cudasim_warp_op(cudasim::ALL, mask, (p) != 0, 0, 32, __FILE__, __LINE__))
#define __reduce_add_sync(mask, v) cudasim::warp_reduce(mask, (v), 0, __FILE__, __LINE__)
#define __reduce_min_sync(mask, v) cudasim::warp_reduce(mask, (v), 1, __FILE__, __LINE__)
#define __reduce_max_sync(mask, v) cudasim::warp_reduce(mask, (v), 2, __FILE__, __LINE__)
#define __reduce_and_sync(mask, v) cudasim::warp_reduce_bits(mask, (unsigned)(v), 0, __FILE__, __LINE__)
#define __reduce_or_sync(mask, v) cudasim::warp_reduce_bits(mask, (unsigned)(v), 1, __FILE__, __LINE__)
#define __reduce_xor_sync(mask, v) cudasim::warp_reduce_bits(mask, (unsigned)(v), 2, __FILE__, __LINE__)
#define __match_any_sync(mask, v) cudasim::match_any(mask, (v), __FILE__, __LINE__)
#define __match_all_sync(mask, v, pred) cudasim::match_all(mask, (v), (pred), __FILE__, __LINE__)
#define __activemask() cudasim_activemask(__FILE__, __LINE__)

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

/* Warp shuffles move any trivially copyable type: 8 bytes per exchange, as many as it
 * takes (cooperative groups' shfl of a 16-byte uint4 is two; a GPU does 32-bit pieces,
 * which no program can tell apart). nvcc refuses the raw __shfl_sync on types it does
 * not overload, and make sim-run's nvcc check says so. */
template <typename T>
static inline T shfl(WarpOp op, unsigned mask, T var, const char *file, int line, int arg,
                     int width = 32)
{
    static_assert(std::is_trivially_copyable<T>::value,
                  "the simulator shuffles trivially copyable values");
    unsigned char in[sizeof(T)], out[sizeof(T)];
    std::memcpy(in, &var, sizeof(T));
    for (size_t at = 0; at < sizeof(T); at += 8) {
        size_t n = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
        unsigned long long bits = 0;
        std::memcpy(&bits, in + at, n);
        bits = cudasim_warp_op(op, mask, bits, arg, width, file, line);
        std::memcpy(out + at, &bits, n);
    }
    T result;
    std::memcpy(&result, out, sizeof(T));
    return result;
}

/* The lanes' values of a warp intrinsic that takes them all at once: T's bits. */
template <typename T>
static inline unsigned long long bits_of(T v)
{
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                  "the warp's values are of at most 8 bytes");
    unsigned long long b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <typename T>
static inline T from_bits(unsigned long long b)
{
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}

/* __reduce_add_sync, _min and _max (int and unsigned): every lane of the mask gets the
 * result, the same whatever the order (integer arithmetic wraps around). */
template <typename T>
static inline T warp_reduce(unsigned mask, T v, int op, const char *file, int line)
{
    static_assert(std::is_integral<T>::value, "__reduce_*_sync takes int or unsigned values");
    unsigned long long vals[32];
    unsigned lanes = cudasim_warp_gather(mask, bits_of(v), vals, file, line);
    typedef typename std::make_unsigned<T>::type U;
    T acc = v;
    bool first = true;
    for (int l = 0; l < 32; l++) {
        if (!(lanes >> l & 1)) continue;
        T o = from_bits<T>(vals[l]);
        if (first) acc = o;
        else acc = op == 0 ? (T)((U)acc + (U)o) : op == 1 ? (o < acc ? o : acc) : (o > acc ? o : acc);
        first = false;
    }
    return acc;
}
/* __reduce_and_sync, _or and _xor (unsigned). */
static inline unsigned warp_reduce_bits(unsigned mask, unsigned v, int op, const char *file, int line)
{
    unsigned long long vals[32];
    unsigned lanes = cudasim_warp_gather(mask, v, vals, file, line);
    unsigned acc = op == 0 ? ~0u : 0u;
    for (int l = 0; l < 32; l++) {
        if (!(lanes >> l & 1)) continue;
        unsigned o = (unsigned)vals[l];
        acc = op == 0 ? acc & o : op == 1 ? acc | o : acc ^ o;
    }
    return acc;
}

/* __match_any_sync: the lanes of the mask whose value has the same bits as this lane's;
 * __match_all_sync: the mask when all of them do (and *pred true), else 0. Of int,
 * unsigned, long, long long (and unsigned), float and double, as CUDA has them. */
template <typename T>
static inline void match_type()
{
    static_assert(std::is_arithmetic<T>::value && sizeof(T) >= 4,
                  "__match_any_sync and __match_all_sync take int, unsigned, long, long long, "
                  "float or double values");
}
template <typename T>
static inline unsigned match_any(unsigned mask, T v, const char *file, int line)
{
    match_type<T>();
    unsigned long long vals[32], me = bits_of(v);
    unsigned lanes = cudasim_warp_gather(mask, me, vals, file, line), r = 0;
    for (int l = 0; l < 32; l++)
        if ((lanes >> l & 1) && vals[l] == me) r |= 1u << l;
    return r;
}
template <typename T>
static inline unsigned match_all(unsigned mask, T v, int *pred, const char *file, int line)
{
    match_type<T>();
    unsigned long long vals[32], me = bits_of(v);
    unsigned lanes = cudasim_warp_gather(mask, me, vals, file, line);
    bool same = true;
    for (int l = 0; l < 32; l++)
        if ((lanes >> l & 1) && vals[l] != me) same = false;
    *pred = same;
    return same ? mask : 0u;
}

/* A pointer argument, or each pointer-aligned word of a struct argument
 * (which may hold pointers; a word that is not one is ignored). */
template <bool writable_only = false, typename T>
static void visit_pointers(void (*visit)(const void *), const T &a)
{
    if constexpr (std::is_pointer<T>::value) {
        typedef typename std::remove_pointer<T>::type Pointee;
        if constexpr (std::is_object<Pointee>::value &&
                      !(writable_only && std::is_const<Pointee>::value))
            visit((const void *)a);
    } else if constexpr (std::is_class<T>::value && std::is_trivially_copyable<T>::value) {
        for (size_t at = 0; at + sizeof(void *) <= sizeof(T); at += alignof(void *)) {
            const void *word;
            std::memcpy(&word, reinterpret_cast<const char *>(&a) + at, sizeof word);
            visit(word);
        }
    }
}

/* An argument whose type is a pointer to an object. */
template <typename T>
static void visit_pointer_argument(void (*visit)(const void *), const T &a)
{
    if constexpr (std::is_pointer<T>::value &&
                  std::is_object<typename std::remove_pointer<T>::type>::value)
        visit((const void *)a);
}

/* Mix one argument into a launch's shape (Args::shape): a pointer as the
 * runtime names it, any other plain value by its bytes. */
template <typename T>
static bool shape_of(uint64_t *h, uint64_t (*pointer)(const void *), const T &a)
{
    uint64_t x = *h;
    if constexpr (std::is_pointer<T>::value) {
        x = (x ^ pointer((const void *)a)) * 0x100000001b3ull;
    } else if constexpr (std::is_trivially_copyable<T>::value) {
        const unsigned char *b = reinterpret_cast<const unsigned char *>(&a);
        for (size_t i = 0; i < sizeof(T); i++) x = (x ^ b[i]) * 0x100000001b3ull;
    } else {
        return false;
    }
    *h = (x ^ sizeof(T)) * 0x100000001b3ull;
    return true;
}

/* A kernel with its arguments converted to its parameters' types. */
template <typename... P>
struct Pack final : Args {
    void (*fn)(P...);
    std::tuple<P...> args;

    Pack(void (*f)(P...), std::tuple<P...> a) : fn(f), args(std::move(a)) {}
    void run() const override { std::apply(fn, args); }
    Args *copy() const override { return new Pack(*this); }
    const void *kernel() const override { return reinterpret_cast<const void *>(fn); }
    void run_as(const void *f) const override
    {
        std::apply(reinterpret_cast<void (*)(P...)>(const_cast<void *>(f)), args);
    }
    void pointers(void (*visit)(const void *)) const override
    {
        std::apply([visit](const P &...a) { (visit_pointers(visit, a), ...); }, args);
    }
    void writable_pointers(void (*visit)(const void *)) const override
    {
        std::apply([visit](const P &...a) { (visit_pointers<true>(visit, a), ...); }, args);
    }
    void pointer_arguments(void (*visit)(const void *)) const override
    {
        std::apply([visit](const P &...a) { (visit_pointer_argument(visit, a), ...); }, args);
    }
    bool shape(uint64_t *h, uint64_t (*pointer)(const void *)) const override
    {
        return std::apply([h, pointer](const P &...a) { return (shape_of(h, pointer, a) && ... && true); },
                          args);
    }
};

/* A launch of a template kernel whose parameters the arguments deduce
 * (`k<<<g, b>>>(x)` for `template <class T> __global__ void k(T *)`): the
 * translator passes a lambda that calls it, and the arguments are kept as
 * given (decayed). */
template <typename F, typename... A>
struct DeducedPack final : Args {
    F fn;
    std::tuple<A...> args;

    DeducedPack(F f, std::tuple<A...> a) : fn(f), args(std::move(a)) {}
    void run() const override
    {
        std::apply([this](const A &...a) { fn(a...); }, args);
    }
    Args *copy() const override { return new DeducedPack(*this); }
    void pointers(void (*visit)(const void *)) const override
    {
        std::apply([visit](const A &...a) { (visit_pointers(visit, a), ...); }, args);
    }
    void writable_pointers(void (*visit)(const void *)) const override
    {
        std::apply([visit](const A &...a) { (visit_pointers<true>(visit, a), ...); }, args);
    }
    void pointer_arguments(void (*visit)(const void *)) const override
    {
        std::apply([visit](const A &...a) { (visit_pointer_argument(visit, a), ...); }, args);
    }
    bool shape(uint64_t *h, uint64_t (*pointer)(const void *)) const override
    {
        return std::apply([h, pointer](const A &...a) { return (shape_of(h, pointer, a) && ... && true); },
                          args);
    }
};

template <typename... P>
struct Launcher {
    LaunchConfig cfg;
    void (*fn)(P...);

    template <typename... A>
    cudaError_t operator()(A &&...args) const
    {
        static_assert(sizeof...(A) == sizeof...(P), "wrong number of kernel arguments");
        const Pack<P...> pack(fn, std::tuple<P...>(static_cast<P>(std::forward<A>(args))...));
        return cudasim_launch_kernel(&cfg, &pack);
    }
};

template <typename F>
struct DeducedLauncher {
    LaunchConfig cfg;
    F fn;

    template <typename... A>
    cudaError_t operator()(A &&...args) const
    {
        const DeducedPack<F, typename std::decay<A>::type...> pack(
            fn, std::tuple<typename std::decay<A>::type...>(std::forward<A>(args)...));
        return cudasim_launch_kernel(&cfg, &pack);
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
template <typename F>
static inline DeducedLauncher<F> launch_deduced(const char *name, F fn, dim3 grid, dim3 block,
                                                size_t shared_bytes = 0, cudaStream_t stream = 0)
{
    return DeducedLauncher<F>{{name, nullptr, grid, block, shared_bytes, stream}, fn};
}
/* The same for a kernel with parameters left to their default values: kern
 * is the kernel itself (for cudaFuncSetAttribute), call a lambda calling it. */
template <typename F>
static inline DeducedLauncher<F> launch_deduced(const char *name, const void *kern, F call,
                                                dim3 grid, dim3 block, size_t shared_bytes = 0,
                                                cudaStream_t stream = 0)
{
    return DeducedLauncher<F>{{name, kern, grid, block, shared_bytes, stream}, call};
}

/* cudaLaunchKernel: args[i] points to the i-th argument. */
template <typename... P, size_t... I>
static inline cudaError_t launch_pointed(const LaunchConfig &cfg, void (*fn)(P...), void **args,
                                         std::index_sequence<I...>)
{
    if (sizeof...(P) && !args) return cudaErrorInvalidValue;
    const Pack<P...> pack(fn, std::tuple<P...>(*static_cast<typename std::decay<P>::type *>(args[I])...));
    return cudasim_launch_kernel(&cfg, &pack);
}
template <typename... P>
constexpr std::index_sequence_for<P...> parameters_of(void (*)(P...))
{
    return {};
}
/* Kernel F launched from cudaLaunchKernel's args (the registry keeps it by F's address). */
template <auto F>
static cudaError_t launch_from_args(const LaunchConfig *cfg, void **args)
{
    return launch_pointed(*cfg, F, args, parameters_of(F));
}

/* What the translator puts at the top of a kernel's body (cu2sim_kernels.pl):
 *   static constexpr char cudasim_kname[] = "k";
 *   (void)&cudasim::KernelEntry<&k<BM, BN>, cudasim_kname, (256), 1>::reg;
 * and after each __shared__ variable of static size (in a __device__ function,
 * SharedNamed with its name instead of the kernel):
 *   (void)&cudasim::SharedEntry<&k<BM, BN>, cudasim_st_tile, 123456>::reg;
 * Naming reg instantiates it with the body, for each instantiation of a
 * template; its initializer registers the kernel when the program starts
 * (kernel_registry.cpp). Nothing of it runs in the kernel. */
template <auto F, const char *Name, long long MaxThreads, size_t DynamicAlign>
struct KernelEntry {
    static const int reg;
};
template <auto F, const char *Name, long long MaxThreads, size_t DynamicAlign>
const int KernelEntry<F, Name, MaxThreads, DynamicAlign>::reg =
    cudasim_register_kernel_entry(reinterpret_cast<const void *>(F), Name, (int)MaxThreads,
                                  DynamicAlign, &launch_from_args<F>);
template <auto F, typename T, unsigned Id>
struct SharedEntry {
    static const int reg;
};
template <auto F, typename T, unsigned Id>
const int SharedEntry<F, T, Id>::reg =
    cudasim_register_static_shared(reinterpret_cast<const void *>(F), nullptr, Id, sizeof(T),
                                   alignof(T));
template <const char *Function, typename T, unsigned Id>
struct SharedNamed {
    static const int reg;
};
template <const char *Function, typename T, unsigned Id>
const int SharedNamed<Function, T, Id>::reg =
    cudasim_register_static_shared(nullptr, Function, Id, sizeof(T), alignof(T));

/* A `__shared__` variable of type T: its place in this launch's shared memory
 * (placed when a thread first reaches the declaration in a launch). */
template <typename T>
static inline T &shared_var(SharedSlot &slot, size_t align, const char *name, const char *file,
                            int line)
{
    if (__builtin_expect(slot.launch == cudasim_launch_serial, 1))
        return *reinterpret_cast<T *>(cudasim_shared_base + slot.offset);
    const SharedDecl d = {name,
                          file,
                          line,
                          sizeof(T),
                          align > alignof(T) ? align : alignof(T),
                          sizeof(typename std::remove_all_extents<T>::type),
                          (int)std::rank<T>::value,
                          {std::extent<T, 0>::value, std::extent<T, 1>::value,
                           std::extent<T, 2>::value}};
    return *reinterpret_cast<T *>(cudasim_shared_alloc(&slot, &d));
}

} // namespace cudasim

/* cudaLaunchKernel with the kernel itself: its parameters' types are known here (cast to
 * void *, cuda_runtime.h: the kernel's registration, kernel_registry.cpp, knows them). */
template <class... P>
static inline cudaError_t cudaLaunchKernel(void (*func)(P...), dim3 grid, dim3 block, void **args,
                                           size_t sharedMem = 0, cudaStream_t stream = 0)
{
    const char *name = cudasim_kernel_name(reinterpret_cast<const void *>(func));
    const cudasim::LaunchConfig cfg = {name ? name : "cudaLaunchKernel",
                                       reinterpret_cast<const void *>(func), grid, block, sharedMem,
                                       stream};
    return cudasim::launch_pointed(cfg, func, args, std::index_sequence_for<P...>{});
}

/* Atomics: threads never interrupt one another in the simulator, so a plain
 * read-modify-write is atomic. (On a GPU the order of atomic additions varies
 * from run to run; here it is always the same.) They are not instrumented:
 * each tells the simulator what it touches, from where, and is never a race. */
#define CUDASIM_ATOMIC static __attribute__((noinline, no_sanitize_thread, unused))
#define CUDASIM_ATOMIC_ONE(name, T, update)                                                       \
    CUDASIM_ATOMIC T name(T *address, T val)                                                       \
    {                                                                                              \
        cudasim_atomic_access(address, sizeof(T), __builtin_return_address(0));                    \
        T old = *address;                                                                          \
        *address = (update);                                                                       \
        return old;                                                                                \
    }
#define CUDASIM_ATOMIC_OP(name, T, update)                                                        \
    CUDASIM_ATOMIC_ONE(name, T, update)                                                           \
    CUDASIM_ATOMIC_ONE(name##_block, T, update)                                                   \
    CUDASIM_ATOMIC_ONE(name##_system, T, update)
CUDASIM_ATOMIC_OP(atomicAdd, int, old + val)
CUDASIM_ATOMIC_OP(atomicAdd, unsigned int, old + val)
CUDASIM_ATOMIC_OP(atomicAdd, unsigned long long, old + val)
CUDASIM_ATOMIC_OP(atomicAdd, float, old + val)
CUDASIM_ATOMIC_OP(atomicAdd, double, old + val)
CUDASIM_ATOMIC_OP(atomicSub, int, old - val)
CUDASIM_ATOMIC_OP(atomicSub, unsigned int, old - val)
CUDASIM_ATOMIC_OP(atomicExch, int, val)
CUDASIM_ATOMIC_OP(atomicExch, unsigned int, val)
CUDASIM_ATOMIC_OP(atomicExch, unsigned long long, val)
CUDASIM_ATOMIC_OP(atomicExch, float, val)
CUDASIM_ATOMIC_OP(atomicMin, int, val < old ? val : old)
CUDASIM_ATOMIC_OP(atomicMin, unsigned int, val < old ? val : old)
CUDASIM_ATOMIC_OP(atomicMin, unsigned long long, val < old ? val : old)
CUDASIM_ATOMIC_OP(atomicMin, long long, val < old ? val : old)
CUDASIM_ATOMIC_OP(atomicMax, int, val > old ? val : old)
CUDASIM_ATOMIC_OP(atomicMax, unsigned int, val > old ? val : old)
CUDASIM_ATOMIC_OP(atomicMax, unsigned long long, val > old ? val : old)
CUDASIM_ATOMIC_OP(atomicMax, long long, val > old ? val : old)
CUDASIM_ATOMIC_OP(atomicInc, unsigned int, old >= val ? 0u : old + 1u)
CUDASIM_ATOMIC_OP(atomicDec, unsigned int, (old == 0u || old > val) ? val : old - 1u)
CUDASIM_ATOMIC_OP(atomicAnd, int, old & val)
CUDASIM_ATOMIC_OP(atomicAnd, unsigned int, old & val)
CUDASIM_ATOMIC_OP(atomicAnd, unsigned long long, old & val)
CUDASIM_ATOMIC_OP(atomicOr, int, old | val)
CUDASIM_ATOMIC_OP(atomicOr, unsigned int, old | val)
CUDASIM_ATOMIC_OP(atomicOr, unsigned long long, old | val)
CUDASIM_ATOMIC_OP(atomicXor, int, old ^ val)
CUDASIM_ATOMIC_OP(atomicXor, unsigned int, old ^ val)
CUDASIM_ATOMIC_OP(atomicXor, unsigned long long, old ^ val)
#define CUDASIM_ATOMIC_CAS(name, T)                                                               \
    CUDASIM_ATOMIC T name(T *address, T compare, T val)                                            \
    {                                                                                              \
        cudasim_atomic_access(address, sizeof(T), __builtin_return_address(0));                    \
        T old = *address;                                                                          \
        if (old == compare) *address = val;                                                        \
        return old;                                                                                \
    }
#define CUDASIM_ATOMIC_CAS3(T)                                                                    \
    CUDASIM_ATOMIC_CAS(atomicCAS, T)                                                              \
    CUDASIM_ATOMIC_CAS(atomicCAS_block, T) CUDASIM_ATOMIC_CAS(atomicCAS_system, T)
CUDASIM_ATOMIC_CAS3(int)
CUDASIM_ATOMIC_CAS3(unsigned int)
CUDASIM_ATOMIC_CAS3(unsigned long long)
CUDASIM_ATOMIC_CAS3(unsigned short)
#undef CUDASIM_ATOMIC_CAS3
#undef CUDASIM_ATOMIC_CAS
#undef CUDASIM_ATOMIC_OP
#undef CUDASIM_ATOMIC_ONE

/* Memory and bit intrinsics: on the CPU, reads go through no special cache
 * and threads never run at once, so fences have nothing to order; but a
 * fence between blocks tells the race check that a block's writes before it
 * are published by its next atomic (check_races_blocks.cpp). */
template <typename T>
static inline T __ldg(const T *p)
{
    return *p;
}
template <typename T>
static inline T __ldcg(const T *p)
{
    return *p;
}
template <typename T>
static inline T __ldca(const T *p)
{
    return *p;
}
template <typename T>
static inline T __ldcs(const T *p)
{
    return *p;
}
template <typename T>
static inline T __ldlu(const T *p)
{
    return *p;
}
template <typename T>
static inline T __ldcv(const T *p)
{
    return *p;
}
template <typename T>
static inline void __stcg(T *p, T v)
{
    *p = v;
}
template <typename T>
static inline void __stcs(T *p, T v)
{
    *p = v;
}
template <typename T>
static inline void __stwb(T *p, T v)
{
    *p = v;
}
template <typename T>
static inline void __stwt(T *p, T v)
{
    *p = v;
}
static inline void __threadfence(void) { cudasim_threadfence(); }
static inline void __threadfence_block(void) {}
static inline void __threadfence_system(void) { cudasim_threadfence(); }
static inline void __nanosleep(unsigned) {}
static inline long long clock64(void) { return (long long)cudasim_clock64(); }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
static inline unsigned long long __brevll(unsigned long long x)
{
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
static inline int __mul24(int a, int b) { return (int)((long long)(a << 8 >> 8) * (b << 8 >> 8)); }
static inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned __umulhi(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
static inline long long __mul64hi(long long a, long long b)
{
    return (long long)(((__int128)a * b) >> 64);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
static inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
static inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
static inline unsigned __urhadd(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}
static inline unsigned __sad(int a, int b, unsigned c) { return c + (unsigned)(a > b ? a - b : b - a); }
static inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return c + (a > b ? a - b : b - a); }
static inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
}
static inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)((v << (shift & 31)) >> 32);
}
static inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift)
{
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)(v >> (shift & 31));
}

/* Reinterpretations and conversions. */
static inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
static inline float __uint_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline unsigned __float_as_uint(float x) { unsigned i; std::memcpy(&i, &x, 4); return i; }
static inline double __longlong_as_double(long long x) { double d; std::memcpy(&d, &x, 8); return d; }
static inline long long __double_as_longlong(double x) { long long i; std::memcpy(&i, &x, 8); return i; }
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }
static inline int __float2int_rd(float x) { return (int)floorf(x); }
static inline int __float2int_ru(float x) { return (int)ceilf(x); }
static inline unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
static inline unsigned __float2uint_rz(float x) { return (unsigned)x; }
static inline long long __float2ll_rn(float x) { return (long long)nearbyintf(x); }
static inline long long __float2ll_rz(float x) { return (long long)x; }
static inline int __double2int_rn(double x) { return (int)nearbyint(x); }
static inline int __double2int_rz(double x) { return (int)x; }
static inline float __double2float_rn(double x) { return (float)x; }
static inline float __int2float_rn(int x) { return (float)x; }
static inline float __uint2float_rn(unsigned x) { return (float)x; }
static inline double __int2double_rn(int x) { return (double)x; }
static inline float __ll2float_rn(long long x) { return (float)x; }

#include "rounding.h" /* __dadd_rd and the other intrinsics that round as named */

/* Device math that CUDA has and the C++ library spells differently, or not
 * at all. */
static inline float __fdividef(float a, float b) { return a / b; }
static inline float fdividef(float a, float b) { return a / b; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline float __fadd_rn(float a, float b) { volatile float r = a + b; return r; }
static inline float __fsub_rn(float a, float b) { volatile float r = a - b; return r; }
static inline float __fmul_rn(float a, float b) { volatile float r = a * b; return r; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline float __frsqrt_rn(float a) { return 1.0f / sqrtf(a); }
static inline double __dadd_rn(double a, double b) { volatile double r = a + b; return r; }
static inline double __dmul_rn(double a, double b) { volatile double r = a * b; return r; }
/* CUDA's fast intrinsics: glibc declares functions of these names but does
 * not export them, so they are macros here. */
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __tanf(x) tanf(x)
#define __sincosf(x, s, c) sincosf((x), (s), (c))
#define __expf(x) expf(x)
#define __exp10f(x) exp10f(x)
#define __logf(x) logf(x)
#define __log2f(x) log2f(x)
#define __log10f(x) log10f(x)
#define __powf(x, y) powf((x), (y))
static inline float sinpif(float x) { return sinf((float)M_PI * x); }
static inline float cospif(float x) { return cosf((float)M_PI * x); }
static inline double sinpi(double x) { return sin(M_PI * x); }
static inline double cospi(double x) { return cos(M_PI * x); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }
static inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
static inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
static inline float rnorm3df(float a, float b, float c) { return 1.0f / sqrtf(a * a + b * b + c * c); }
static inline float rhypotf(float a, float b) { return 1.0f / hypotf(a, b); }
using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

/* min and max as CUDA has them for every arithmetic type (the exact overloads
 * first; mixed types take the common type, as CUDA's do). */
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
static inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
/* CUDA's named integer minimum and maximum. */
static inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
template <typename A, typename B,
          typename = typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value &&
                                             !std::is_same<A, B>::value>::type>
static inline typename std::common_type<A, B>::type min(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)a < (C)b ? (C)a : (C)b;
}
template <typename A, typename B,
          typename = typename std::enable_if<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value &&
                                             !std::is_same<A, B>::value>::type>
static inline typename std::common_type<A, B>::type max(A a, B b)
{
    typedef typename std::common_type<A, B>::type C;
    return (C)a > (C)b ? (C)a : (C)b;
}

#endif /* CUDASIM_KERNEL_H */
