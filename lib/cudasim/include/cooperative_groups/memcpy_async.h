/*
 * cooperative_groups/memcpy_async.h for the CUDA simulator: a group's
 * asynchronous copy and its waits. cg::memcpy_async(group, dst, src, bytes)
 * (bytes a count or a cuda::aligned_size_t), and (group, dst, dst_count, src,
 * src_count) in elements, is called by every thread of the group: each issues
 * its share, in pieces of the best alignment the addresses allow (up to 16
 * bytes), and commits them as one group of its copies. cg::wait(group) waits
 * for all of the thread's copies, cg::wait_prior<N>(group) for all but the N
 * newest groups, and then the group synchronizes (its sync()), as CUDA's do.
 *
 * A copy from global to shared memory lands when its thread waits for it
 * (exec/async_copy.cpp): a thread that reads the destination before the wait
 * reads what was there before, and another thread's read that no
 * synchronization orders with it is a race. Other copies are made at once.
 */
#ifndef CUDASIM_CG_MEMCPY_ASYNC_H
#define CUDASIM_CG_MEMCPY_ASYNC_H

#include "../cooperative_groups.h"
#include "../cudasim_libcu.h"

namespace cooperative_groups {

template <typename Group, typename T, typename Shape>
CUDASIM_LIBCU_ENTRY void memcpy_async(const Group &group, T *dst, const T *src, const Shape &bytes)
{
    ::cudasim_libcu::group_copy(group.thread_rank(), group.size(), (void *)dst, (const void *)src,
                                ::cudasim_libcu::size_of(bytes), ::cudasim_libcu::align_of(bytes),
                                nullptr, CUDASIM_LIBCU_PC);
    cudasim_async_commit();
}

/* Counts of elements: the smaller one is copied. */
template <typename Group, typename T, typename DstCount, typename SrcCount>
CUDASIM_LIBCU_ENTRY void memcpy_async(const Group &group, T *dst, const DstCount &dst_count,
                                      const T *src, const SrcCount &src_count)
{
    ::std::size_t d = ::cudasim_libcu::size_of(dst_count), s = ::cudasim_libcu::size_of(src_count);
    ::std::size_t align = ::cudasim_libcu::align_of(dst_count);
    if (align < alignof(T)) align = alignof(T);
    ::cudasim_libcu::group_copy(group.thread_rank(), group.size(), (void *)dst, (const void *)src,
                                (d < s ? d : s) * sizeof(T), align, nullptr, CUDASIM_LIBCU_PC);
    cudasim_async_commit();
}

/* Waits for all but the Stage newest groups of this thread's copies, then
 * the group synchronizes. */
template <unsigned Stage, typename Group>
void wait_prior(const Group &group, const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    cudasim_async_wait_prior(Stage);
    group.sync(file, line);
}

template <typename Group>
void wait(const Group &group, const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    cudasim_async_wait_prior(0);
    group.sync(file, line);
}

} // namespace cooperative_groups

#endif /* CUDASIM_CG_MEMCPY_ASYNC_H */
