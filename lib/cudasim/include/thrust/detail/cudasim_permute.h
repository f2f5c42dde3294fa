/*
 * Thrust for the CUDA simulator: the algorithms that move or rewrite
 * elements in place: gather and gather_if (result[i] = input[map[i]]),
 * scatter and scatter_if (result[map[i]] = input[i]), reverse and
 * reverse_copy, adjacent_difference (result[0] = x[0], result[i] =
 * op(x[i], x[i - 1]), minus by default), tabulate (x[i] = op(i)), replace,
 * replace_if, replace_copy, replace_copy_if, transform_if (the stencil and
 * two-input forms too), transform_inclusive_scan, transform_exclusive_scan,
 * swap_ranges, swap, generate_n and the uninitialized_ forms of fill and
 * copy. As the others (cudasim_algorithms.h), a kernel of one thread on device
 * iterators; a map that points outside its range is an out-of-bounds access
 * the simulator reports at the line of the kernel thrust::gather or
 * thrust::scatter.
 */
#ifndef CUDASIM_THRUST_PERMUTE_H
#define CUDASIM_THRUST_PERMUTE_H

#include "cudasim_algorithms.h"

namespace thrust {

/* thrust::swap of two values (<thrust/swap.h>). */
using std::swap;

namespace cudasim_detail {

/* The predicate gather_if and scatter_if use by default: the stencil as a bool. */
struct as_bool {
    template <typename T>
    bool operator()(const T &x) const
    {
        return x ? true : false;
    }
};

template <Mode M, typename Map, typename In, typename Out>
Out gather(Map map_first, Map map_last, In input_first, Out result)
{
    std::ptrdiff_t n = std::distance(map_first, map_last);
    run<on_device_t<M, Map, In, Out>::value>("thrust::gather", [=] {
        auto map = raw(map_first);
        auto in = raw(input_first);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++) o[i] = in[map[i]];
    });
    return result + n;
}
template <Mode M, typename Map, typename S, typename In, typename Out, typename P = as_bool>
Out gather_if(Map map_first, Map map_last, S stencil, In input_first, Out result, P pred = P())
{
    std::ptrdiff_t n = std::distance(map_first, map_last);
    run<on_device_t<M, Map, S, In, Out>::value>("thrust::gather_if", [=] {
        auto map = raw(map_first);
        auto s = raw(stencil);
        auto in = raw(input_first);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (pred(s[i])) o[i] = in[map[i]];
    });
    return result + n;
}
template <Mode M, typename In, typename Map, typename Out>
void scatter(In first, In last, Map map, Out result)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Map, Out>::value>("thrust::scatter", [=] {
        auto in = raw(first);
        auto m = raw(map);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++) o[m[i]] = in[i];
    });
}
template <Mode M, typename In, typename Map, typename S, typename Out, typename P = as_bool>
void scatter_if(In first, In last, Map map, S stencil, Out result, P pred = P())
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Map, S, Out>::value>("thrust::scatter_if", [=] {
        auto in = raw(first);
        auto m = raw(map);
        auto s = raw(stencil);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (pred(s[i])) o[m[i]] = in[i];
    });
}

template <Mode M, typename It>
void reverse(It first, It last)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It>::value>("thrust::reverse", [=] {
        typedef typename value_of<It>::type T;
        auto p = raw(first);
        for (std::ptrdiff_t i = 0, j = n - 1; i < j; i++, j--) {
            T a = p[i];
            p[i] = p[j];
            p[j] = a;
        }
    });
}
template <Mode M, typename In, typename Out>
Out reverse_copy(In first, In last, Out result)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Out>::value>("thrust::reverse_copy", [=] {
        auto in = raw(first);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++) o[i] = in[n - 1 - i];
    });
    return result + n;
}

template <Mode M, typename In, typename Out, typename Op = thrust::minus<typename value_of<In>::type>>
Out adjacent_difference(In first, In last, Out result, Op op = Op())
{
    typedef typename value_of<In>::type T;
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Out>::value>("thrust::adjacent_difference", [=] {
        auto in = raw(first);
        auto o = raw(result);
        if (n == 0) return;
        T before = in[0]; /* (kept: result may be the input) */
        o[0] = before;
        for (std::ptrdiff_t i = 1; i < n; i++) {
            T x = in[i];
            o[i] = op(x, before);
            before = x;
        }
    });
    return result + n;
}

template <Mode M, typename It, typename Op>
void tabulate(It first, It last, Op op)
{
    typedef typename std::iterator_traits<It>::difference_type D;
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It>::value>("thrust::tabulate", [=] {
        auto p = raw(first);
        for (std::ptrdiff_t i = 0; i < n; i++) p[i] = op((D)i);
    });
}

template <Mode M, typename It, typename T>
void replace(It first, It last, const T &old_value, const T &new_value)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It>::value>("thrust::replace", [=] {
        auto p = raw(first);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (p[i] == old_value) p[i] = new_value;
    });
}
template <Mode M, typename It, typename P, typename T>
void replace_if(It first, It last, P pred, const T &new_value)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It>::value>("thrust::replace_if", [=] {
        auto p = raw(first);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (pred(p[i])) p[i] = new_value;
    });
}
template <Mode M, typename It, typename S, typename P, typename T>
void replace_if(It first, It last, S stencil, P pred, const T &new_value)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It, S>::value>("thrust::replace_if", [=] {
        auto p = raw(first);
        auto s = raw(stencil);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (pred(s[i])) p[i] = new_value;
    });
}
template <Mode M, typename In, typename Out, typename P, typename T>
Out replace_copy_if(In first, In last, Out result, P pred, const T &new_value)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Out>::value>("thrust::replace_copy_if", [=] {
        auto in = raw(first);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++) {
            if (pred(in[i]))
                o[i] = new_value;
            else
                o[i] = in[i];
        }
    });
    return result + n;
}
template <Mode M, typename In, typename S, typename Out, typename P, typename T>
Out replace_copy_if(In first, In last, S stencil, Out result, P pred, const T &new_value)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, S, Out>::value>("thrust::replace_copy_if", [=] {
        auto in = raw(first);
        auto s = raw(stencil);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++) {
            if (pred(s[i]))
                o[i] = new_value;
            else
                o[i] = in[i];
        }
    });
    return result + n;
}
template <Mode M, typename In, typename Out, typename T>
Out replace_copy(In first, In last, Out result, const T &old_value, const T &new_value)
{
    return cudasim_detail::replace_copy_if<M>(
        first, last, result, [old_value](const typename value_of<In>::type &x) { return x == old_value; },
        new_value);
}

template <Mode M, typename In, typename Out, typename Op, typename P>
Out transform_if(In first, In last, Out result, Op op, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Out>::value>("thrust::transform_if", [=] {
        auto in = raw(first);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (pred(in[i])) o[i] = op(in[i]);
    });
    return result + n;
}
template <Mode M, typename In, typename S, typename Out, typename Op, typename P>
Out transform_if(In first, In last, S stencil, Out result, Op op, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, S, Out>::value>("thrust::transform_if", [=] {
        auto in = raw(first);
        auto s = raw(stencil);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (pred(s[i])) o[i] = op(in[i]);
    });
    return result + n;
}
template <Mode M, typename In1, typename In2, typename S, typename Out, typename Op, typename P>
Out transform_if(In1 first1, In1 last1, In2 first2, S stencil, Out result, Op op, P pred)
{
    std::ptrdiff_t n = std::distance(first1, last1);
    run<on_device_t<M, In1, In2, S, Out>::value>("thrust::transform_if", [=] {
        auto a = raw(first1);
        auto b = raw(first2);
        auto s = raw(stencil);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (pred(s[i])) o[i] = op(a[i], b[i]);
    });
    return result + n;
}

template <Mode M, typename In, typename Out, typename U, typename B>
Out transform_inclusive_scan(In first, In last, Out result, U unary_op, B binary_op)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Out>::value>("thrust::transform_inclusive_scan", [=] {
        typedef typename std::decay<decltype(unary_op(raw(first)[0]))>::type T;
        auto in = raw(first);
        auto o = raw(result);
        T acc{};
        for (std::ptrdiff_t i = 0; i < n; i++) {
            T x = unary_op(in[i]);
            acc = i ? binary_op(acc, x) : x;
            o[i] = acc;
        }
    });
    return result + n;
}
template <Mode M, typename In, typename Out, typename U, typename T, typename B>
Out transform_exclusive_scan(In first, In last, Out result, U unary_op, T init, B binary_op)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Out>::value>("thrust::transform_exclusive_scan", [=] {
        auto in = raw(first);
        auto o = raw(result);
        T acc = init;
        for (std::ptrdiff_t i = 0; i < n; i++) {
            T x = unary_op(in[i]);
            o[i] = acc;
            acc = binary_op(acc, x);
        }
    });
    return result + n;
}

template <Mode M, typename It1, typename It2>
It2 swap_ranges(It1 first1, It1 last1, It2 first2)
{
    std::ptrdiff_t n = std::distance(first1, last1);
    run<on_device_t<M, It1, It2>::value>("thrust::swap_ranges", [=] {
        typedef typename value_of<It1>::type T;
        auto a = raw(first1);
        auto b = raw(first2);
        for (std::ptrdiff_t i = 0; i < n; i++) {
            T x = a[i];
            a[i] = b[i];
            b[i] = x;
        }
    });
    return first2 + n;
}

template <Mode M, typename It, typename N, typename F>
It generate_n(It first, N n, F gen)
{
    cudasim_detail::generate<M>(first, first + n, gen);
    return first + n;
}
template <Mode M, typename It, typename T>
void uninitialized_fill(It first, It last, const T &value)
{
    cudasim_detail::fill<M>(first, last, value);
}
template <Mode M, typename It, typename N, typename T>
It uninitialized_fill_n(It first, N n, const T &value)
{
    cudasim_detail::fill<M>(first, first + n, value);
    return first + n;
}
template <Mode M, typename In, typename Out>
Out uninitialized_copy(In first, In last, Out result)
{
    return cudasim_detail::copy<M>(first, last, result);
}
template <Mode M, typename In, typename N, typename Out>
Out uninitialized_copy_n(In first, N n, Out result)
{
    return cudasim_detail::copy<M>(first, first + n, result);
}

} // namespace cudasim_detail

CUDASIM_THRUST_ALGORITHM(gather)
CUDASIM_THRUST_ALGORITHM(gather_if)
CUDASIM_THRUST_ALGORITHM(scatter)
CUDASIM_THRUST_ALGORITHM(scatter_if)
CUDASIM_THRUST_ALGORITHM(reverse)
CUDASIM_THRUST_ALGORITHM(reverse_copy)
CUDASIM_THRUST_ALGORITHM(adjacent_difference)
CUDASIM_THRUST_ALGORITHM(tabulate)
CUDASIM_THRUST_ALGORITHM(replace)
CUDASIM_THRUST_ALGORITHM(replace_if)
CUDASIM_THRUST_ALGORITHM(replace_copy)
CUDASIM_THRUST_ALGORITHM(replace_copy_if)
CUDASIM_THRUST_ALGORITHM(transform_if)
CUDASIM_THRUST_ALGORITHM(transform_inclusive_scan)
CUDASIM_THRUST_ALGORITHM(transform_exclusive_scan)
CUDASIM_THRUST_ALGORITHM(swap_ranges)
CUDASIM_THRUST_ALGORITHM(generate_n)
CUDASIM_THRUST_ALGORITHM(uninitialized_fill)
CUDASIM_THRUST_ALGORITHM(uninitialized_fill_n)
CUDASIM_THRUST_ALGORITHM(uninitialized_copy)
CUDASIM_THRUST_ALGORITHM(uninitialized_copy_n)

} // namespace thrust

#endif /* CUDASIM_THRUST_PERMUTE_H */
