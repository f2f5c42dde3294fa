/*
 * Thrust for the CUDA simulator: the algorithms a course uses. Where an
 * algorithm runs follows Thrust's rule: on the device when its iterators are
 * device iterators (device_vector's, device_ptr) or the policy is
 * thrust::device, on the host for host iterators or thrust::host (or
 * thrust::seq);
 * thrust::copy also copies between the two. On the device an algorithm is a
 * kernel launch (one thread, named thrust::NAME in reports and counted by
 * cudasim_launch_count), so every element it touches is checked as a
 * kernel's accesses are; its loops are written out element by element,
 * since a memcpy would go unchecked. A failed launch throws
 * thrust::system_error, as Thrust does. Reductions and scans combine
 * elements left to right (a GPU's tree order may round floats otherwise);
 * sort and sort_by_key are stable.
 */
#ifndef CUDASIM_THRUST_ALGORITHMS_H
#define CUDASIM_THRUST_ALGORITHMS_H

#include <algorithm>
#include <functional>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

#include "../functional.h"
#include "cudasim_fancy_iterators.h"
#include "cudasim_iterators.h"
#include "cudasim_memory.h"

namespace thrust {
namespace cudasim_detail {

enum Mode { AUTO, ON_HOST, ON_DEVICE };

/* Whether an algorithm with these iterators runs on the device. */
template <Mode M, typename... It>
struct on_device_t {
    static const bool any_device = (false || ... || (space_of<It>::value == DEVICE));
    static const bool any_host = (false || ... || (space_of<It>::value == HOST));
    static_assert(M != AUTO || !(any_device && any_host),
                  "this Thrust algorithm is given iterators in host memory and in device memory: "
                  "copy the data to one side first (thrust::copy)");
    static const bool value = M == ON_DEVICE || (M == AUTO && any_device);
};

/* Run body as a kernel of one thread, named name. */
template <typename F>
void launch(const char *name, const F &body)
{
    static const int registered __attribute__((unused)) =
        cudasim_register_kernel(name + 8 /* less "thrust::" */, 0, CUDASIM_INSTRUMENTED);
    /* (a copy of the body: a kernel's parameters are its own, and a body may be mutable) */
    check(cudasim::launch_deduced(name, [](const F &f) { F own = f; own(); }, dim3(1), dim3(1))(body),
          name);
}

/* body() where the algorithm runs; its value comes back to the host. */
template <bool Device, typename F>
auto run(const char *name, F body) -> decltype(body())
{
    typedef decltype(body()) R;
    if constexpr (!Device) {
        return body();
    } else if constexpr (std::is_void<R>::value) {
        launch(name, body);
    } else {
        R result{};
        launch(name, [&result, body] { result = body(); });
        return result;
    }
}

template <typename It>
struct value_of {
    typedef typename std::remove_cv<typename std::iterator_traits<It>::value_type>::type type;
};

template <typename T>
void fill_device(T *p, const T &value, std::size_t n)
{
    launch("thrust::fill", [=] {
        for (std::size_t i = 0; i < n; i++) p[i] = value;
    });
}

/* ---- copying and filling ---- */

/* n elements of a device iterator into device memory at dst (declared in
 * cudasim_memory.h): a kernel, since its elements may be computed. */
template <typename It, typename T>
void gather_device(It first, std::size_t n, T *dst)
{
    launch("thrust::copy", [=] {
        auto in = raw(first);
        for (std::size_t i = 0; i < n; i++) dst[i] = in[i];
    });
}

/* Device memory for n elements, for a copy between host and device
 * iterators whose elements are not plain memory (zip, transform, ...). */
template <typename T>
struct Staging {
    T *p = nullptr;
    explicit Staging(std::size_t n) { check(cudaMalloc((void **)&p, (n ? n : 1) * sizeof(T)), "thrust::copy"); }
    ~Staging() { cudaFree(p); }
    Staging(const Staging &) = delete;
    Staging &operator=(const Staging &) = delete;
};

template <Mode M, typename In, typename Out>
Out copy(In first, In last, Out out)
{
    std::ptrdiff_t n = std::distance(first, last);
    if constexpr (M == AUTO && space_of<In>::value == DEVICE && space_of<Out>::value == HOST) {
        if constexpr (is_contiguous<In>::value) {
            return from_device(raw(first), (std::size_t)n, out);
        } else {
            Staging<typename value_of<In>::type> staged((std::size_t)n);
            gather_device(first, (std::size_t)n, staged.p);
            return from_device(staged.p, (std::size_t)n, out);
        }
    } else if constexpr (M == AUTO && space_of<In>::value == HOST &&
                         space_of<Out>::value == DEVICE) {
        if constexpr (is_contiguous<Out>::value) {
            to_device(first, (std::size_t)n, raw(out));
        } else {
            Staging<typename value_of<In>::type> staged((std::size_t)n);
            to_device(first, (std::size_t)n, staged.p);
            typename value_of<In>::type *from = staged.p;
            launch("thrust::copy", [=] {
                auto o = raw(out);
                for (std::ptrdiff_t i = 0; i < n; i++) o[i] = from[i];
            });
        }
        return out + n;
    } else {
        run<on_device_t<M, In, Out>::value>("thrust::copy", [=] {
            auto in = raw(first);
            auto o = raw(out);
            for (std::ptrdiff_t i = 0; i < n; i++) o[i] = in[i];
        });
        return out + n;
    }
}

template <Mode M, typename It, typename T>
void fill(It first, It last, const T &value)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It>::value>("thrust::fill", [=] {
        auto o = raw(first);
        for (std::ptrdiff_t i = 0; i < n; i++) o[i] = value;
    });
}

template <Mode M, typename It, typename T = typename value_of<It>::type>
void sequence(It first, It last, T init = T(0), T step = T(1))
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It>::value>("thrust::sequence", [=] {
        auto o = raw(first);
        for (std::ptrdiff_t i = 0; i < n; i++) o[i] = init + step * static_cast<T>(i);
    });
}

template <Mode M, typename It, typename F>
void generate(It first, It last, F gen)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It>::value>("thrust::generate", [=]() mutable {
        auto o = raw(first);
        for (std::ptrdiff_t i = 0; i < n; i++) o[i] = gen();
    });
}

/* ---- element-wise ---- */

template <Mode M, typename In, typename Out, typename F>
Out transform(In first, In last, Out out, F op)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Out>::value>("thrust::transform", [=] {
        auto in = raw(first);
        auto o = raw(out);
        for (std::ptrdiff_t i = 0; i < n; i++) o[i] = op(in[i]);
    });
    return out + n;
}

template <Mode M, typename In1, typename In2, typename Out, typename F>
Out transform(In1 first1, In1 last1, In2 first2, Out out, F op)
{
    std::ptrdiff_t n = std::distance(first1, last1);
    run<on_device_t<M, In1, In2, Out>::value>("thrust::transform", [=] {
        auto a = raw(first1);
        auto b = raw(first2);
        auto o = raw(out);
        for (std::ptrdiff_t i = 0; i < n; i++) o[i] = op(a[i], b[i]);
    });
    return out + n;
}

template <Mode M, typename It, typename F>
It for_each(It first, It last, F f)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It>::value>("thrust::for_each", [=]() mutable {
        auto p = raw(first);
        for (std::ptrdiff_t i = 0; i < n; i++) f(p[i]);
    });
    return last;
}

/* ---- reductions ---- */

template <Mode M, typename It, typename T = typename value_of<It>::type,
          typename Op = thrust::plus<T>>
T reduce(It first, It last, T init = T(0), Op op = Op())
{
    std::ptrdiff_t n = std::distance(first, last);
    return run<on_device_t<M, It>::value>("thrust::reduce", [=] {
        auto p = raw(first);
        T acc = init;
        for (std::ptrdiff_t i = 0; i < n; i++) acc = op(acc, p[i]);
        return acc;
    });
}

template <Mode M, typename It, typename U, typename T, typename B>
T transform_reduce(It first, It last, U unary, T init, B binary)
{
    std::ptrdiff_t n = std::distance(first, last);
    return run<on_device_t<M, It>::value>("thrust::transform_reduce", [=] {
        auto p = raw(first);
        T acc = init;
        for (std::ptrdiff_t i = 0; i < n; i++) acc = binary(acc, unary(p[i]));
        return acc;
    });
}

template <Mode M, typename It1, typename It2, typename T, typename B1 = thrust::plus<T>,
          typename B2 = thrust::multiplies<T>>
T inner_product(It1 first1, It1 last1, It2 first2, T init, B1 sum = B1(), B2 product = B2())
{
    std::ptrdiff_t n = std::distance(first1, last1);
    return run<on_device_t<M, It1, It2>::value>("thrust::inner_product", [=] {
        auto a = raw(first1);
        auto b = raw(first2);
        T acc = init;
        for (std::ptrdiff_t i = 0; i < n; i++) acc = sum(acc, product(a[i], b[i]));
        return acc;
    });
}

template <Mode M, typename It, typename P>
std::ptrdiff_t count_if(It first, It last, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    return run<on_device_t<M, It>::value>("thrust::count", [=] {
        auto p = raw(first);
        std::ptrdiff_t c = 0;
        for (std::ptrdiff_t i = 0; i < n; i++) c += pred(p[i]) ? 1 : 0;
        return c;
    });
}

template <Mode M, typename It, typename T>
std::ptrdiff_t count(It first, It last, const T &value)
{
    return cudasim_detail::count_if<M>(first, last, [value](const typename value_of<It>::type &x) {
        return x == value;
    });
}

/* The position of the first least (or, with greater, greatest) element. */
template <Mode M, typename It, typename C>
It extreme(const char *name, It first, It last, C before)
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t at = run<on_device_t<M, It>::value>(name, [=] {
        auto p = raw(first);
        std::ptrdiff_t best = 0;
        for (std::ptrdiff_t i = 1; i < n; i++)
            if (before(p[i], p[best])) best = i;
        return best;
    });
    return n ? first + at : last;
}

template <Mode M, typename It1, typename It2, typename P>
bool equal(It1 first1, It1 last1, It2 first2, P pred)
{
    std::ptrdiff_t n = std::distance(first1, last1);
    return run<on_device_t<M, It1, It2>::value>("thrust::equal", [=] {
        auto a = raw(first1);
        auto b = raw(first2);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (!pred(a[i], b[i])) return false;
        return true;
    });
}

/* ---- scans ---- */

template <Mode M, typename In, typename Out, typename Op>
Out inclusive_scan(In first, In last, Out out, Op op)
{
    std::ptrdiff_t n = std::distance(first, last);
    typedef typename value_of<In>::type T;
    run<on_device_t<M, In, Out>::value>("thrust::inclusive_scan", [=] {
        auto in = raw(first);
        auto o = raw(out);
        T acc{};
        for (std::ptrdiff_t i = 0; i < n; i++) {
            acc = i ? op(acc, in[i]) : T(in[i]);
            o[i] = acc;
        }
    });
    return out + n;
}

/* The form with an initial value: out[i] = init op in[0] op ... op in[i]. */
template <Mode M, typename In, typename Out, typename T, typename Op>
Out inclusive_scan(In first, In last, Out out, T init, Op op)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Out>::value>("thrust::inclusive_scan", [=] {
        auto in = raw(first);
        auto o = raw(out);
        T acc = init;
        for (std::ptrdiff_t i = 0; i < n; i++) {
            acc = op(acc, in[i]);
            o[i] = acc;
        }
    });
    return out + n;
}

template <Mode M, typename In, typename Out, typename T, typename Op>
Out exclusive_scan(In first, In last, Out out, T init, Op op)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, In, Out>::value>("thrust::exclusive_scan", [=] {
        auto in = raw(first);
        auto o = raw(out);
        T acc = init;
        for (std::ptrdiff_t i = 0; i < n; i++) {
            T x = in[i]; /* (in and out may be the same) */
            o[i] = acc;
            acc = op(acc, x);
        }
    });
    return out + n;
}

/* ---- sorting ---- */

template <Mode M, typename It, typename C>
void sort(It first, It last, C comp)
{
    std::ptrdiff_t n = std::distance(first, last);
    run<on_device_t<M, It>::value>("thrust::sort", [=] {
        auto p = raw(first);
        if constexpr (std::is_pointer<decltype(p)>::value) {
            std::stable_sort(p, p + n, comp);
        } else { /* (a zip_iterator's elements are tuples of references: sorted by index) */
            std::vector<std::ptrdiff_t> order(n);
            for (std::ptrdiff_t i = 0; i < n; i++) order[i] = i;
            std::stable_sort(order.begin(), order.end(),
                             [&](std::ptrdiff_t a, std::ptrdiff_t b) { return comp(p[a], p[b]); });
            std::vector<typename value_of<It>::type> sorted;
            for (std::ptrdiff_t i = 0; i < n; i++) sorted.push_back(p[order[i]]);
            for (std::ptrdiff_t i = 0; i < n; i++) p[i] = sorted[i];
        }
    });
}

template <Mode M, typename K, typename V, typename C>
void sort_by_key(K keys, K keys_last, V values, C comp)
{
    std::ptrdiff_t n = std::distance(keys, keys_last);
    run<on_device_t<M, K, V>::value>("thrust::sort_by_key", [=] {
        auto k = raw(keys);
        auto v = raw(values);
        std::vector<std::ptrdiff_t> order(n);
        for (std::ptrdiff_t i = 0; i < n; i++) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::ptrdiff_t a, std::ptrdiff_t b) { return comp(k[a], k[b]); });
        std::vector<typename value_of<K>::type> ks;
        std::vector<typename value_of<V>::type> vs;
        for (std::ptrdiff_t i = 0; i < n; i++) ks.push_back(k[order[i]]), vs.push_back(v[order[i]]);
        for (std::ptrdiff_t i = 0; i < n; i++) k[i] = ks[i], v[i] = vs[i];
    });
}

/* The end of the longest sorted range from first. */
template <Mode M, typename It, typename C = thrust::less<typename value_of<It>::type>>
It is_sorted_until(It first, It last, C comp = C())
{
    std::ptrdiff_t n = std::distance(first, last);
    std::ptrdiff_t k = run<on_device_t<M, It>::value>("thrust::is_sorted_until", [=] {
        auto p = raw(first);
        for (std::ptrdiff_t i = 1; i < n; i++)
            if (comp(p[i], p[i - 1])) return i;
        return n;
    });
    return first + k;
}

template <Mode M, typename It, typename C>
bool is_sorted(It first, It last, C comp)
{
    std::ptrdiff_t n = std::distance(first, last);
    return run<on_device_t<M, It>::value>("thrust::is_sorted", [=] {
        auto p = raw(first);
        for (std::ptrdiff_t i = 1; i < n; i++)
            if (comp(p[i], p[i - 1])) return false;
        return true;
    });
}

/* ---- the forms with fewer arguments ---- */

template <Mode M, typename It, typename N, typename O>
O copy_n(It first, N n, O out)
{
    return cudasim_detail::copy<M>(first, first + n, out);
}
template <Mode M, typename It, typename N, typename T>
It fill_n(It first, N n, const T &value)
{
    cudasim_detail::fill<M>(first, first + n, value);
    return first + n;
}
template <Mode M, typename It, typename N, typename F>
It for_each_n(It first, N n, F f)
{
    cudasim_detail::for_each<M>(first, first + n, f);
    return first + n;
}
template <Mode M, typename It, typename C = thrust::less<typename value_of<It>::type>>
It min_element(It first, It last, C comp = C())
{
    return cudasim_detail::extreme<M>("thrust::min_element", first, last, comp);
}
template <Mode M, typename It, typename C = thrust::less<typename value_of<It>::type>>
It max_element(It first, It last, C comp = C())
{
    return cudasim_detail::extreme<M>("thrust::max_element", first, last,
                      [comp](const auto &a, const auto &b) { return comp(b, a); });
}
template <Mode M, typename It1, typename It2>
bool equal(It1 first1, It1 last1, It2 first2)
{
    return cudasim_detail::equal<M>(first1, last1, first2,
                    [](const auto &a, const auto &b) { return a == b; });
}
template <Mode M, typename In, typename Out>
Out inclusive_scan(In first, In last, Out out)
{
    return cudasim_detail::inclusive_scan<M>(first, last, out, thrust::plus<typename value_of<In>::type>());
}
template <Mode M, typename In, typename Out, typename T = typename value_of<In>::type>
Out exclusive_scan(In first, In last, Out out, T init = T(0))
{
    return cudasim_detail::exclusive_scan<M>(first, last, out, init, thrust::plus<T>());
}
template <Mode M, typename It>
void sort(It first, It last)
{
    cudasim_detail::sort<M>(first, last, thrust::less<typename value_of<It>::type>());
}
template <Mode M, typename It, typename C = thrust::less<typename value_of<It>::type>>
void stable_sort(It first, It last, C comp = C())
{
    cudasim_detail::sort<M>(first, last, comp);
}
template <Mode M, typename K, typename V>
void sort_by_key(K keys, K keys_last, V values)
{
    cudasim_detail::sort_by_key<M>(keys, keys_last, values, thrust::less<typename value_of<K>::type>());
}
template <Mode M, typename K, typename V, typename C = thrust::less<typename value_of<K>::type>>
void stable_sort_by_key(K keys, K keys_last, V values, C comp = C())
{
    cudasim_detail::sort_by_key<M>(keys, keys_last, values, comp);
}
template <Mode M, typename It>
bool is_sorted(It first, It last)
{
    return cudasim_detail::is_sorted<M>(first, last, thrust::less<typename value_of<It>::type>());
}
} // namespace cudasim_detail

/* The public algorithms: each with an optional execution policy first. */
#define CUDASIM_THRUST_ALGORITHM(name)                                                          \
    template <typename... A>                                                                    \
    auto name(const thrust::host_t &, A... a)                                                   \
        ->decltype(cudasim_detail::name<cudasim_detail::ON_HOST>(a...))                         \
    {                                                                                           \
        return cudasim_detail::name<cudasim_detail::ON_HOST>(a...);                             \
    }                                                                                           \
    template <typename... A>                                                                    \
    auto name(const thrust::device_t &, A... a)                                                 \
        ->decltype(cudasim_detail::name<cudasim_detail::ON_DEVICE>(a...))                       \
    {                                                                                           \
        return cudasim_detail::name<cudasim_detail::ON_DEVICE>(a...);                           \
    }                                                                                           \
    template <typename A0, typename... A>                                                       \
    auto name(A0 a0, A... a)->decltype(cudasim_detail::name<cudasim_detail::AUTO>(a0, a...))    \
    {                                                                                           \
        return cudasim_detail::name<cudasim_detail::AUTO>(a0, a...);                            \
    }
CUDASIM_THRUST_ALGORITHM(copy)
CUDASIM_THRUST_ALGORITHM(copy_n)
CUDASIM_THRUST_ALGORITHM(fill)
CUDASIM_THRUST_ALGORITHM(sequence)
CUDASIM_THRUST_ALGORITHM(generate)
CUDASIM_THRUST_ALGORITHM(transform)
CUDASIM_THRUST_ALGORITHM(for_each)
CUDASIM_THRUST_ALGORITHM(reduce)
CUDASIM_THRUST_ALGORITHM(transform_reduce)
CUDASIM_THRUST_ALGORITHM(inner_product)
CUDASIM_THRUST_ALGORITHM(count)
CUDASIM_THRUST_ALGORITHM(count_if)
CUDASIM_THRUST_ALGORITHM(fill_n)
CUDASIM_THRUST_ALGORITHM(for_each_n)
CUDASIM_THRUST_ALGORITHM(min_element)
CUDASIM_THRUST_ALGORITHM(max_element)
CUDASIM_THRUST_ALGORITHM(equal)
CUDASIM_THRUST_ALGORITHM(inclusive_scan)
CUDASIM_THRUST_ALGORITHM(exclusive_scan)
CUDASIM_THRUST_ALGORITHM(sort)
CUDASIM_THRUST_ALGORITHM(stable_sort)
CUDASIM_THRUST_ALGORITHM(sort_by_key)
CUDASIM_THRUST_ALGORITHM(stable_sort_by_key)
CUDASIM_THRUST_ALGORITHM(is_sorted)
CUDASIM_THRUST_ALGORITHM(is_sorted_until)
/* (CUDASIM_THRUST_ALGORITHM stays defined for the other algorithm files;
 * cudasim_thrust.h undefines it) */

} // namespace thrust

#endif /* CUDASIM_THRUST_ALGORITHMS_H */
