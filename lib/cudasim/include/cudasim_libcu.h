/*
 * cudasim_libcu.h: what the simulator's libcu++ headers share (<cuda/std/atomic>,
 * <cuda/atomic>, <cuda/barrier>, <cuda/pipeline>): the thread scopes and
 * memory orders, the atomic operations, cuda::aligned_size_t and the copies of
 * memcpy_async. Each operation a program calls is a function of its own
 * (noinline), so that what it checks and reports is named by the program's
 * line that called it; none of them is instrumented (they tell the simulator
 * what they touch, as kernel.h's atomics do).
 *
 * Threads never interrupt one another in the simulator, so every atomic
 * operation is sequentially consistent whatever order and scope it is given;
 * the race check never counts an atomic as a race.
 */
#ifndef CUDASIM_LIBCU_H
#define CUDASIM_LIBCU_H

#ifndef CUDASIM_KERNEL_H
#error "libcu++'s headers are CUDA C++: include them in a .cu file"
#endif

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

/* A function a program calls: its return address is the program's line. */
#define CUDASIM_LIBCU_ENTRY __attribute__((noinline, no_sanitize_thread))
#define CUDASIM_LIBCU_PC __builtin_return_address(0)

namespace cuda {
namespace std {

using ::std::memory_order;
using ::std::memory_order_relaxed;
using ::std::memory_order_consume;
using ::std::memory_order_acquire;
using ::std::memory_order_release;
using ::std::memory_order_acq_rel;
using ::std::memory_order_seq_cst;

/* Which threads an atomic or a barrier synchronizes (libcu++'s values). */
enum thread_scope {
    thread_scope_system = 0,
    thread_scope_device = 1,
    thread_scope_block = 2,
    thread_scope_thread = 3
};

} // namespace std

using ::cuda::std::thread_scope;
using ::cuda::std::thread_scope_system;
using ::cuda::std::thread_scope_device;
using ::cuda::std::thread_scope_block;
using ::cuda::std::thread_scope_thread;
using ::cuda::std::memory_order;
using ::cuda::std::memory_order_relaxed;
using ::cuda::std::memory_order_consume;
using ::cuda::std::memory_order_acquire;
using ::cuda::std::memory_order_release;
using ::cuda::std::memory_order_acq_rel;
using ::cuda::std::memory_order_seq_cst;

/* A size whose every copy is a multiple of Alignment, at addresses that are
 * too: memcpy_async may then copy in pieces of that size. */
template <::std::size_t Alignment>
struct aligned_size_t {
    static_assert(Alignment && (Alignment & (Alignment - 1)) == 0,
                  "cuda::aligned_size_t: the alignment must be a power of two");
    static constexpr ::std::size_t align = Alignment;
    ::std::size_t value;
    explicit constexpr aligned_size_t(::std::size_t size) : value(size) {}
    constexpr operator ::std::size_t() const { return value; }
};

} // namespace cuda

namespace cudasim_libcu {

using ::std::memory_order;
using ::std::memory_order_seq_cst;

/* The size and the alignment a copy promises. */
inline ::std::size_t size_of(::std::size_t n) { return n; }
inline ::std::size_t align_of(::std::size_t) { return 1; }
template <::std::size_t A>
::std::size_t size_of(cuda::aligned_size_t<A> s) { return s.value; }
template <::std::size_t A>
::std::size_t align_of(cuda::aligned_size_t<A>) { return A; }

/* A group's copy of n bytes (a cooperative group, or one thread: rank 0 of
 * 1): each thread issues its share, pieces of the best alignment the
 * addresses and size allow (up to 16 bytes), rank r taking pieces r, r +
 * size, ..., as a GPU's cooperative copy does. bar: the barrier whose phase
 * it completes with, or NULL. */
inline void group_copy(unsigned long long rank, unsigned long long size, void *dst,
                       const void *src, ::std::size_t n, ::std::size_t align, void *bar,
                       const void *pc)
{
    if (size <= 1) return cudasim_async_copy(dst, src, n, align, bar, pc);
    if (align > 1 && (((uintptr_t)dst | (uintptr_t)src | n) & (align - 1)))
        return cudasim_async_copy(dst, src, n, align, bar, pc); /* (which reports it) */
    ::std::size_t piece = 16;
    while (piece > 1 && (((uintptr_t)dst | (uintptr_t)src | n) & (piece - 1))) piece >>= 1;
    for (::std::size_t at = (::std::size_t)rank * piece; at < n; at += (::std::size_t)size * piece)
        cudasim_async_copy((char *)dst + at, (const char *)src + at, piece, piece, bar, pc);
}

/* ---- atomic operations on the T at p, made by the program's code at pc ---- */

template <typename T>
struct is_atomic_type
    : ::std::integral_constant<bool, ::std::is_trivially_copyable<T>::value &&
                                         (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 ||
                                          sizeof(T) == 8)> {};

template <typename T>
static inline __attribute__((always_inline, no_sanitize_thread)) T load(T *p, const void *pc)
{
    cudasim_atomic_access(p, sizeof(T), pc);
    T v;
    memcpy(&v, p, sizeof(T));
    return v;
}
template <typename T>
static inline __attribute__((always_inline, no_sanitize_thread)) void store(T *p, T v,
                                                                            const void *pc)
{
    cudasim_atomic_access(p, sizeof(T), pc);
    memcpy(p, &v, sizeof(T));
}
/* The read-modify-write f(old) at p; returns old. */
template <typename T, typename F>
static inline __attribute__((always_inline, no_sanitize_thread)) T rmw(T *p, F f, const void *pc)
{
    cudasim_atomic_access(p, sizeof(T), pc);
    T old;
    memcpy(&old, p, sizeof(T));
    T now = f(old);
    memcpy(p, &now, sizeof(T));
    return old;
}
template <typename T>
static inline __attribute__((always_inline, no_sanitize_thread)) bool cas(T *p, T &expected,
                                                                          T desired,
                                                                          const void *pc)
{
    cudasim_atomic_access(p, sizeof(T), pc);
    if (memcmp(p, &expected, sizeof(T)) == 0) {
        memcpy(p, &desired, sizeof(T));
        return true;
    }
    memcpy(&expected, p, sizeof(T));
    return false;
}

/* The value step of fetch_add: an element count for a pointer. */
template <typename T>
struct difference {
    typedef T type;
};
template <typename T>
struct difference<T *> {
    typedef ::std::ptrdiff_t type;
};

/* The operations of cuda::std::atomic, cuda::atomic and their atomic_refs, on
 * the T that Derived's cudasim_at() points to. */
template <typename T, typename Derived>
class atomic_ops {
    static_assert(is_atomic_type<T>::value,
                  "the CUDA simulator's atomics take trivially copyable types of 1, 2, 4 or 8 "
                  "bytes");
    T *at() const { return static_cast<const Derived *>(this)->cudasim_at(); }
    typedef typename difference<T>::type D;

  public:
    typedef T value_type;
    static constexpr bool is_always_lock_free = true;
    bool is_lock_free() const noexcept { return true; }

    CUDASIM_LIBCU_ENTRY T load(memory_order = memory_order_seq_cst) const noexcept
    {
        return cudasim_libcu::load(at(), CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY operator T() const noexcept { return cudasim_libcu::load(at(), CUDASIM_LIBCU_PC); }
    CUDASIM_LIBCU_ENTRY void store(T v, memory_order = memory_order_seq_cst) const noexcept
    {
        cudasim_libcu::store(at(), v, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY T exchange(T v, memory_order = memory_order_seq_cst) const noexcept
    {
        return rmw(at(), [v](T) { return v; }, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY bool compare_exchange_strong(T &expected, T desired,
                                                     memory_order = memory_order_seq_cst) const noexcept
    {
        return cas(at(), expected, desired, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY bool compare_exchange_strong(T &expected, T desired, memory_order,
                                                     memory_order) const noexcept
    {
        return cas(at(), expected, desired, CUDASIM_LIBCU_PC);
    }
    /* (never fails spuriously here) */
    CUDASIM_LIBCU_ENTRY bool compare_exchange_weak(T &expected, T desired,
                                                   memory_order = memory_order_seq_cst) const noexcept
    {
        return cas(at(), expected, desired, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY bool compare_exchange_weak(T &expected, T desired, memory_order,
                                                   memory_order) const noexcept
    {
        return cas(at(), expected, desired, CUDASIM_LIBCU_PC);
    }

    /* Arithmetic (integers, floating point, pointers) and bits (integers). */
    CUDASIM_LIBCU_ENTRY T fetch_add(D v, memory_order = memory_order_seq_cst) const noexcept
    {
        return rmw(at(), [v](T o) { return (T)(o + v); }, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY T fetch_sub(D v, memory_order = memory_order_seq_cst) const noexcept
    {
        return rmw(at(), [v](T o) { return (T)(o - v); }, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY T fetch_and(T v, memory_order = memory_order_seq_cst) const noexcept
    {
        return rmw(at(), [v](T o) { return (T)(o & v); }, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY T fetch_or(T v, memory_order = memory_order_seq_cst) const noexcept
    {
        return rmw(at(), [v](T o) { return (T)(o | v); }, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY T fetch_xor(T v, memory_order = memory_order_seq_cst) const noexcept
    {
        return rmw(at(), [v](T o) { return (T)(o ^ v); }, CUDASIM_LIBCU_PC);
    }
    /* libcu++'s own (cuda::atomic and cuda::atomic_ref) */
    CUDASIM_LIBCU_ENTRY T fetch_min(T v, memory_order = memory_order_seq_cst) const noexcept
    {
        return rmw(at(), [v](T o) { return v < o ? v : o; }, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY T fetch_max(T v, memory_order = memory_order_seq_cst) const noexcept
    {
        return rmw(at(), [v](T o) { return v > o ? v : o; }, CUDASIM_LIBCU_PC);
    }

    /* C++20's waits: a thread here runs until it reaches a barrier, so a
     * wait for another thread's store would never end. */
    void wait(T, memory_order = memory_order_seq_cst) const noexcept
        __attribute__((error("atomic wait() is not in the CUDA simulator, which runs a thread "
                             "until it reaches a barrier: wait at a __syncthreads or a "
                             "cuda::barrier instead")));
    void notify_one() const noexcept
        __attribute__((error("atomic notify_one() is not in the CUDA simulator (nor wait())")));
    void notify_all() const noexcept
        __attribute__((error("atomic notify_all() is not in the CUDA simulator (nor wait())")));

    CUDASIM_LIBCU_ENTRY T operator++() const noexcept
    {
        return (T)(rmw(at(), [](T o) { return (T)(o + 1); }, CUDASIM_LIBCU_PC) + 1);
    }
    CUDASIM_LIBCU_ENTRY T operator++(int) const noexcept
    {
        return rmw(at(), [](T o) { return (T)(o + 1); }, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY T operator--() const noexcept
    {
        return (T)(rmw(at(), [](T o) { return (T)(o - 1); }, CUDASIM_LIBCU_PC) - 1);
    }
    CUDASIM_LIBCU_ENTRY T operator--(int) const noexcept
    {
        return rmw(at(), [](T o) { return (T)(o - 1); }, CUDASIM_LIBCU_PC);
    }
    CUDASIM_LIBCU_ENTRY T operator+=(D v) const noexcept
    {
        return (T)(rmw(at(), [v](T o) { return (T)(o + v); }, CUDASIM_LIBCU_PC) + v);
    }
    CUDASIM_LIBCU_ENTRY T operator-=(D v) const noexcept
    {
        return (T)(rmw(at(), [v](T o) { return (T)(o - v); }, CUDASIM_LIBCU_PC) - v);
    }
    CUDASIM_LIBCU_ENTRY T operator&=(T v) const noexcept
    {
        return (T)(rmw(at(), [v](T o) { return (T)(o & v); }, CUDASIM_LIBCU_PC) & v);
    }
    CUDASIM_LIBCU_ENTRY T operator|=(T v) const noexcept
    {
        return (T)(rmw(at(), [v](T o) { return (T)(o | v); }, CUDASIM_LIBCU_PC) | v);
    }
    CUDASIM_LIBCU_ENTRY T operator^=(T v) const noexcept
    {
        return (T)(rmw(at(), [v](T o) { return (T)(o ^ v); }, CUDASIM_LIBCU_PC) ^ v);
    }
};

/* An atomic that holds its value (cuda::std::atomic, cuda::atomic). */
template <typename T, typename Derived>
class atomic_value : public atomic_ops<T, Derived> {
  public:
    atomic_value() noexcept = default;
    constexpr atomic_value(T v) noexcept : value_(v) {}
    atomic_value(const atomic_value &) = delete;
    atomic_value &operator=(const atomic_value &) = delete;
    CUDASIM_LIBCU_ENTRY T operator=(T v) noexcept
    {
        cudasim_libcu::store(&value_, v, CUDASIM_LIBCU_PC);
        return v;
    }
    T *cudasim_at() const { return const_cast<T *>(&value_); }

  private:
    alignas(sizeof(T)) T value_;
};

/* An atomic view of an object the program owns (atomic_ref). */
template <typename T, typename Derived>
class atomic_view : public atomic_ops<T, Derived> {
  public:
    static constexpr ::std::size_t required_alignment = sizeof(T);
    explicit atomic_view(T &obj) noexcept : p_(&obj) {}
    atomic_view(const atomic_view &) noexcept = default;
    atomic_view &operator=(const atomic_view &) = delete;
    CUDASIM_LIBCU_ENTRY T operator=(T v) const noexcept
    {
        cudasim_libcu::store(p_, v, CUDASIM_LIBCU_PC);
        return v;
    }
    T *cudasim_at() const { return p_; }

  private:
    T *p_;
};

} // namespace cudasim_libcu

#endif /* CUDASIM_LIBCU_H */
