/*
 * CUB for the CUDA simulator: what every public header of
 * lib/cudasim/include/cub brings in. The simulator's own CUB is the part of
 * CUB 3 that a course uses, written for the simulator:
 *
 * - the block- and warp-wide collectives (cudasim_warp.h, cudasim_block.h,
 *   cudasim_block_io.h) are device code of the program's kernel: their
 *   TempStorage is the __shared__ variable the program declares, their
 *   barriers are the simulator's __syncthreads and their warp steps its
 *   shuffles, so racecheck, memcheck and the profiler see every access they
 *   make, at the program's line (they are inlined into it);
 * - the device-wide algorithms (cudasim_device.h, cudasim_radix_sort.h) are
 *   kernel launches of the simulator, named as CUB names its kernels, which
 *   read and write the program's buffers and its d_temp_storage, checked as
 *   any kernel's accesses are.
 *
 * The translator refuses the headers it does not have, by name.
 */
#ifndef CUDASIM_CUB_H
#define CUDASIM_CUB_H

#ifndef CUDASIM_KERNEL_H
#error "CUB on the CUDA simulator is for .cu files built by make sim-run (kernel.h)"
#endif

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <type_traits>

#include "../../cuda_runtime.h"

/* libcu++'s function objects (cuda::std::plus, cuda::maximum, ...), which
 * CUB 3's documentation passes as operators, come with <cuda/functional>
 * where the simulator has it. */
#if __has_include(<cuda/functional>)
#include <cuda/functional>
#endif

#define CUB_VERSION 300001
#define CUB_MAJOR_VERSION (CUB_VERSION / 100000)
#define CUB_MINOR_VERSION (CUB_VERSION / 100 % 1000)
#define CUB_SUBMINOR_VERSION (CUB_VERSION % 100)
#define CUB_NAMESPACE_BEGIN namespace cub {
#define CUB_NAMESPACE_END }
#define CUB_NS_QUALIFIER ::cub
#define CUB_RUNTIME_FUNCTION
#define CUB_STDERR 1

/* The collectives are inlined into the program's code, so a report of one of
 * their accesses names the program's line (check/report.cpp). */
#define CUDASIM_CUB_INLINE inline __attribute__((always_inline))

namespace cub {

/* CUB's debugging helpers: an error is printed with where it was found, and
 * handed back. */
inline cudaError_t Debug(cudaError_t error, const char *filename, int line)
{
    if (error != cudaSuccess) {
        fprintf(stderr, "CUDA error %d [%s, %d]: %s\n", (int)error, filename, line,
                cudaGetErrorString(error));
        fflush(stderr);
    }
    return error;
}
#define CubDebug(e) ::cub::Debug((cudaError_t)(e), __FILE__, __LINE__)
#define CubDebugExit(e)                                                                           \
    if (::cub::Debug((cudaError_t)(e), __FILE__, __LINE__)) {                                     \
        exit(1);                                                                                  \
    }

/* An empty type, where CUB has no storage (a warp's shuffles need none). */
struct NullType {
};

/* A key and a value (ArgMin, ArgMax, reductions by key). */
template <typename K, typename V>
struct KeyValuePair {
    typedef K Key;
    typedef V Value;
    K key;
    V value;
    KeyValuePair() {}
    KeyValuePair(const K &k, const V &v) : key(k), value(v) {}
    bool operator!=(const KeyValuePair &b) { return value != b.value || key != b.key; }
};

/* Two buffers of the same size that a multi-pass algorithm (a radix sort)
 * moves its data between: Current() holds it after the call. */
template <typename T>
struct DoubleBuffer {
    T *d_buffers[2]{};
    int selector = 0;
    DoubleBuffer() = default;
    DoubleBuffer(T *d_current, T *d_alternate) : d_buffers{d_current, d_alternate} {}
    T *Current() { return d_buffers[selector]; }
    T *Alternate() { return d_buffers[selector ^ 1]; }
};

/* The thread's lane in its warp, and its warp in the block, as the hardware
 * numbers them (by the thread's linear index in the launched block). */
CUDASIM_CUB_INLINE unsigned int LaneId()
{
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 32;
}
CUDASIM_CUB_INLINE unsigned int WarpId()
{
    return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32;
}
/* A thread's rank in a block of the given dimensions, row-major (x fastest). */
CUDASIM_CUB_INLINE int RowMajorTid(int block_dim_x, int block_dim_y, int block_dim_z)
{
    return (block_dim_z == 1 ? 0 : (int)threadIdx.z * block_dim_x * block_dim_y) +
           (block_dim_y == 1 ? 0 : (int)threadIdx.y * block_dim_x) + (int)threadIdx.x;
}

namespace cudasim_detail {

/* Where the program called a collective: its barriers and warp steps are
 * reported at that line (a default argument evaluated at the call). */
struct Site {
    const char *file;
    int line;
    explicit Site(const char *f = __builtin_FILE(), int l = __builtin_LINE()) : file(f), line(l) {}
};

CUDASIM_CUB_INLINE void sync_block(const Site &s) { cudasim_syncthreads(s.file, s.line); }

/* A warp shuffle of any trivially copyable value (the simulator's own). */
template <typename T>
CUDASIM_CUB_INLINE T shfl_idx(unsigned mask, const T &v, int src_lane, const Site &s)
{
    return cudasim::shfl(cudasim::SHFL_IDX, mask, v, s.file, s.line, src_lane, 32);
}
CUDASIM_CUB_INLINE void sync_warp(unsigned mask, const Site &s)
{
    cudasim_warp_op(cudasim::WARP_SYNC, mask, 0, 0, 32, s.file, s.line);
}

/* The operators the Sum, Max and Min forms use. */
struct sum_op {
    template <typename A, typename B>
    CUDASIM_CUB_INLINE auto operator()(const A &a, const B &b) const -> decltype(a + b)
    {
        return a + b;
    }
};
struct max_op {
    template <typename T>
    CUDASIM_CUB_INLINE T operator()(const T &a, const T &b) const
    {
        return a < b ? b : a;
    }
};
struct min_op {
    template <typename T>
    CUDASIM_CUB_INLINE T operator()(const T &a, const T &b) const
    {
        return b < a ? b : a;
    }
};

/* A thread's own items combined, as CUB's ThreadReduce combines them: a sum
 * of values narrower than 8 bytes pairwise (a binary tree), anything else
 * left to right. */
template <typename T, int N, typename Op>
CUDASIM_CUB_INLINE T thread_reduce(const T (&in)[N], Op op)
{
    if constexpr (std::is_same<Op, sum_op>::value && sizeof(T) < 8) {
        T a[N];
        for (int i = 0; i < N; i++) a[i] = in[i];
        for (int step = 1; step < N; step *= 2)
            for (int j = 0; j + step < N; j += 2 * step) a[j] = op(a[j], a[j + step]);
        return a[0];
    } else {
        T acc = in[0];
        for (int i = 1; i < N; i++) acc = op(acc, in[i]);
        return acc;
    }
}

/* A __shared__ variable of a kernel of the simulator's CUB: what the
 * translator makes of `__shared__ T name;` in a program's kernel. */
#define CUDASIM_CUB_SHARED(T, name)                                                               \
    static cudasim::SharedSlot cudasim_cub_slot_##name;                                           \
    T &name = cudasim::shared_var<T>(cudasim_cub_slot_##name, 0, #name, __FILE__, __LINE__)

/* Scratch in d_temp_storage: CUB's two-call idiom. Each piece is 256-byte
 * aligned, and the total asks for 255 bytes more, so that any pointer the
 * program passes will do, as CUB's does. */
struct Scratch {
    static const size_t kAlign = 256;
    size_t bytes[4] = {0, 0, 0, 0};
    int count = 0;
    void add(size_t n) { bytes[count++] = (n + kAlign - 1) / kAlign * kAlign; }
    size_t total() const
    {
        size_t t = kAlign - 1;
        for (int i = 0; i < 4; i++) t += bytes[i]; /* (those not added are 0) */
        return t;
    }
    /* The pieces in the program's storage, or an error if it is too small. */
    cudaError_t carve(void *d_temp, size_t temp_bytes, void **out) const
    {
        if (temp_bytes < total()) return cudaErrorInvalidValue;
        uintptr_t at = ((uintptr_t)d_temp + kAlign - 1) / kAlign * kAlign;
        for (int i = 0; i < count; i++) {
            out[i] = (void *)at;
            at += bytes[i];
        }
        return cudaSuccess;
    }
};

/* A launch of one of the simulator's CUB kernels, named as CUB names it. */
template <typename... P, typename... A>
inline cudaError_t launch(const char *name, void (*kernel)(P...), unsigned grid, unsigned block,
                          cudaStream_t stream, A... args)
{
    cudasim_register_kernel(name + 5 /* less "cub::" */, 1, CUDASIM_INSTRUMENTED);
    return cudasim::launch(name, kernel, dim3(grid), dim3(block), 0, stream)(args...);
}

/* The element type an input iterator gives (a pointer's, or an iterator's). */
template <typename It>
struct value_of {
    typedef typename std::remove_cv<typename std::iterator_traits<It>::value_type>::type type;
};

} // namespace cudasim_detail
} // namespace cub

#endif /* CUDASIM_CUB_H */
