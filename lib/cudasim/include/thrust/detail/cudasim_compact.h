/*
 * Thrust for the CUDA simulator: the algorithms that keep some elements:
 * copy_if, remove, remove_if, remove_copy, remove_copy_if, unique,
 * unique_copy, unique_count, partition, stable_partition, partition_copy,
 * stable_partition_copy, is_partitioned and partition_point, each with its
 * stencil forms, where Thrust has them. Like the others
 * (cudasim_algorithms.h), on device iterators each is a kernel of one thread,
 * and what it keeps keeps its order (they are stable), but for the two
 * orders Thrust gives otherwise: partition on the device puts the rejected
 * elements after the selected ones in reverse order, as Thrust's CUDA
 * partition does, and on the host swaps them as its sequential one does;
 * unique compares each element with the one before it on the device, with
 * the last one kept on the host (the same for an equivalence, such as ==).
 * Past the new end of a range that remove or unique shortened, the elements
 * are unspecified, as in Thrust.
 */
#ifndef CUDASIM_THRUST_COMPACT_H
#define CUDASIM_THRUST_COMPACT_H

#include "cudasim_algorithms.h"

namespace thrust {
namespace cudasim_detail {

/* The elements of [first, first + n) for which keep(i) holds, in order, to
 * out; how many. (in and out may be one range: each is read before its
 * place can be written.) */
template <typename In, typename Out, typename Keep>
std::ptrdiff_t compact(In in, std::ptrdiff_t n, Out out, Keep keep)
{
    std::ptrdiff_t k = 0;
    for (std::ptrdiff_t i = 0; i < n; i++)
        if (keep(i)) out[k++] = in[i];
    return k;
}

template <Mode M, typename In, typename Out, typename P>
Out copy_if(In first, In last, Out result, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, In, Out>::value>("thrust::copy_if", [=] {
        auto in = raw(first);
        return compact(in, n, raw(result), [&](std::ptrdiff_t i) { return (bool)pred(in[i]); });
    });
    return result + k;
}
template <Mode M, typename In, typename S, typename Out, typename P>
Out copy_if(In first, In last, S stencil, Out result, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, In, S, Out>::value>("thrust::copy_if", [=] {
        auto s = raw(stencil);
        return compact(raw(first), n, raw(result), [&](std::ptrdiff_t i) { return (bool)pred(s[i]); });
    });
    return result + k;
}

template <Mode M, typename It, typename P>
It remove_if(It first, It last, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, It>::value>("thrust::remove_if", [=] {
        auto p = raw(first);
        return compact(p, n, p, [&](std::ptrdiff_t i) { return !pred(p[i]); });
    });
    return first + k;
}
template <Mode M, typename It, typename S, typename P>
It remove_if(It first, It last, S stencil, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, It, S>::value>("thrust::remove_if", [=] {
        auto p = raw(first);
        auto s = raw(stencil);
        return compact(p, n, p, [&](std::ptrdiff_t i) { return !pred(s[i]); });
    });
    return first + k;
}
template <Mode M, typename It, typename T>
It remove(It first, It last, const T &value)
{
    return cudasim_detail::remove_if<M>(first, last, [value](const typename value_of<It>::type &x) {
        return x == value;
    });
}
template <Mode M, typename In, typename Out, typename P>
Out remove_copy_if(In first, In last, Out result, P pred)
{
    return cudasim_detail::copy_if<M>(first, last, result, [pred](const typename value_of<In>::type &x) {
        return !pred(x);
    });
}
template <Mode M, typename In, typename S, typename Out, typename P>
Out remove_copy_if(In first, In last, S stencil, Out result, P pred)
{
    return cudasim_detail::copy_if<M>(first, last, stencil, result,
                                      [pred](const typename value_of<S>::type &x) { return !pred(x); });
}
template <Mode M, typename In, typename Out, typename T>
Out remove_copy(In first, In last, Out result, const T &value)
{
    return cudasim_detail::copy_if<M>(first, last, result, [value](const typename value_of<In>::type &x) {
        return !(x == value);
    });
}

/* The first element of each run of equal ones, to out: how many. */
template <bool DEVICE, typename In, typename Out, typename P>
std::ptrdiff_t unique_to(In in, std::ptrdiff_t n, Out out, P pred)
{
    typedef typename value_of<In>::type T;
    if (n == 0) return 0;
    T kept = in[0], before = in[0];
    std::ptrdiff_t k = 0;
    out[k++] = kept;
    for (std::ptrdiff_t i = 1; i < n; i++) {
        T x = in[i];
        if (!pred(DEVICE ? before : kept, x)) {
            out[k++] = x;
            kept = x;
        }
        before = x;
    }
    return k;
}
template <Mode M, typename It, typename P = thrust::equal_to<typename value_of<It>::type>>
It unique(It first, It last, P pred = P())
{
    std::ptrdiff_t n = std::distance(first, last);
    constexpr bool D = on_device_t<M, It>::value;
    std::ptrdiff_t k = run<D>("thrust::unique", [=] {
        auto p = raw(first);
        return unique_to<D>(p, n, p, pred);
    });
    return first + k;
}
template <Mode M, typename In, typename Out, typename P = thrust::equal_to<typename value_of<In>::type>>
Out unique_copy(In first, In last, Out result, P pred = P())
{
    std::ptrdiff_t n = std::distance(first, last);
    constexpr bool D = on_device_t<M, In, Out>::value;
    std::ptrdiff_t k = run<D>("thrust::unique_copy", [=] { return unique_to<D>(raw(first), n, raw(result), pred); });
    return result + k;
}
template <Mode M, typename It, typename P = thrust::equal_to<typename value_of<It>::type>>
std::ptrdiff_t unique_count(It first, It last, P pred = P())
{
    std::ptrdiff_t n = std::distance(first, last);
    constexpr bool D = on_device_t<M, It>::value;
    return run<D>("thrust::unique_count", [=] {
        return unique_to<D>(raw(first), n, make_discard_iterator(), pred);
    });
}

/* The elements for which selected(i) holds first, in order; then the
 * others: in order (stable), reversed (Thrust's CUDA partition) or as
 * swapping puts them (its sequential one). How many were selected. */
enum PartitionOrder { STABLE, REVERSED, SWAPPED };
template <typename It, typename Sel>
std::ptrdiff_t partition_in_place(It p, std::ptrdiff_t n, Sel selected, PartitionOrder order)
{
    typedef typename value_of<It>::type T;
    std::vector<std::ptrdiff_t> yes, no;
    for (std::ptrdiff_t i = 0; i < n; i++) (selected(i) ? yes : no).push_back(i);
    if (order == SWAPPED) { /* Thrust's sequential partition (std::partition's loop) */
        std::vector<std::ptrdiff_t> at(n);
        for (std::ptrdiff_t i = 0; i < n; i++) at[i] = i;
        std::ptrdiff_t f = 0;
        while (f < n && selected(at[f])) f++;
        for (std::ptrdiff_t next = f + 1; next < n; next++)
            if (selected(at[next])) std::swap(at[f++], at[next]);
        yes.assign(at.begin(), at.begin() + (std::ptrdiff_t)yes.size());
        no.assign(at.begin() + (std::ptrdiff_t)yes.size(), at.end());
    } else if (order == REVERSED) {
        std::reverse(no.begin(), no.end());
    }
    std::vector<T> all;
    for (std::ptrdiff_t i : yes) all.push_back(p[i]);
    for (std::ptrdiff_t i : no) all.push_back(p[i]);
    for (std::ptrdiff_t i = 0; i < n; i++) p[i] = all[i];
    return (std::ptrdiff_t)yes.size();
}
template <Mode M, typename It, typename P>
It partition(It first, It last, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    constexpr bool D = on_device_t<M, It>::value;
    std::ptrdiff_t k = run<D>("thrust::partition", [=] {
        auto p = raw(first);
        std::vector<bool> sel(n);
        for (std::ptrdiff_t i = 0; i < n; i++) sel[i] = pred(p[i]);
        return partition_in_place(p, n, [&](std::ptrdiff_t i) { return (bool)sel[i]; }, D ? REVERSED : SWAPPED);
    });
    return first + k;
}
template <Mode M, typename It, typename S, typename P>
It partition(It first, It last, S stencil, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    constexpr bool D = on_device_t<M, It, S>::value;
    std::ptrdiff_t k = run<D>("thrust::partition", [=] {
        auto s = raw(stencil);
        return partition_in_place(raw(first), n, [&](std::ptrdiff_t i) { return (bool)pred(s[i]); },
                                  D ? REVERSED : SWAPPED);
    });
    return first + k;
}
template <Mode M, typename It, typename P>
It stable_partition(It first, It last, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, It>::value>("thrust::stable_partition", [=] {
        auto p = raw(first);
        std::vector<bool> sel(n);
        for (std::ptrdiff_t i = 0; i < n; i++) sel[i] = pred(p[i]);
        return partition_in_place(p, n, [&](std::ptrdiff_t i) { return (bool)sel[i]; }, STABLE);
    });
    return first + k;
}
template <Mode M, typename It, typename S, typename P>
It stable_partition(It first, It last, S stencil, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, It, S>::value>("thrust::stable_partition", [=] {
        auto s = raw(stencil);
        return partition_in_place(raw(first), n, [&](std::ptrdiff_t i) { return (bool)pred(s[i]); }, STABLE);
    });
    return first + k;
}
/* The selected elements to one range and the others to another, in order. */
template <Mode M, typename In, typename Out1, typename Out2, typename P>
thrust::pair<Out1, Out2> partition_copy(In first, In last, Out1 out_true, Out2 out_false, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, In, Out1, Out2>::value>("thrust::partition_copy", [=] {
        auto in = raw(first);
        auto t = raw(out_true);
        auto f = raw(out_false);
        std::ptrdiff_t yes = 0, no = 0;
        for (std::ptrdiff_t i = 0; i < n; i++) {
            if (pred(in[i]))
                t[yes++] = in[i];
            else
                f[no++] = in[i];
        }
        return yes;
    });
    return thrust::make_pair(out_true + k, out_false + (n - k));
}
template <Mode M, typename In, typename S, typename Out1, typename Out2, typename P>
thrust::pair<Out1, Out2> partition_copy(In first, In last, S stencil, Out1 out_true, Out2 out_false, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, In, S, Out1, Out2>::value>("thrust::partition_copy", [=] {
        auto in = raw(first);
        auto s = raw(stencil);
        auto t = raw(out_true);
        auto f = raw(out_false);
        std::ptrdiff_t yes = 0, no = 0;
        for (std::ptrdiff_t i = 0; i < n; i++) {
            if (pred(s[i]))
                t[yes++] = in[i];
            else
                f[no++] = in[i];
        }
        return yes;
    });
    return thrust::make_pair(out_true + k, out_false + (n - k));
}
template <Mode M, typename... A>
auto stable_partition_copy(A... a) -> decltype(cudasim_detail::partition_copy<M>(a...))
{
    return cudasim_detail::partition_copy<M>(a...);
}
template <Mode M, typename It, typename P>
bool is_partitioned(It first, It last, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    return run<on_device_t<M, It>::value>("thrust::is_partitioned", [=] {
        auto p = raw(first);
        std::ptrdiff_t i = 0;
        while (i < n && pred(p[i])) i++;
        while (i < n && !pred(p[i])) i++;
        return i == n;
    });
}
template <Mode M, typename It, typename P>
It partition_point(It first, It last, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, It>::value>("thrust::partition_point", [=] {
        auto p = raw(first);
        std::ptrdiff_t i = 0;
        while (i < n && pred(p[i])) i++;
        return i;
    });
    return first + k;
}

} // namespace cudasim_detail

CUDASIM_THRUST_ALGORITHM(copy_if)
CUDASIM_THRUST_ALGORITHM(remove)
CUDASIM_THRUST_ALGORITHM(remove_if)
CUDASIM_THRUST_ALGORITHM(remove_copy)
CUDASIM_THRUST_ALGORITHM(remove_copy_if)
CUDASIM_THRUST_ALGORITHM(unique)
CUDASIM_THRUST_ALGORITHM(unique_copy)
CUDASIM_THRUST_ALGORITHM(unique_count)
CUDASIM_THRUST_ALGORITHM(partition)
CUDASIM_THRUST_ALGORITHM(stable_partition)
CUDASIM_THRUST_ALGORITHM(partition_copy)
CUDASIM_THRUST_ALGORITHM(stable_partition_copy)
CUDASIM_THRUST_ALGORITHM(is_partitioned)
CUDASIM_THRUST_ALGORITHM(partition_point)

} // namespace thrust

#endif /* CUDASIM_THRUST_COMPACT_H */
