/*
 * Thrust for the CUDA simulator: searching and merging. find, find_if,
 * find_if_not, all_of, any_of, none_of, mismatch, minmax_element; the
 * binary searches on a sorted range, lower_bound, upper_bound, binary_search
 * and equal_range, each for one value or for a range of values at once
 * (writing positions, or bools, to a result); merge, merge_by_key and the
 * set operations set_union, set_intersection, set_difference and
 * set_symmetric_difference on sorted ranges (std::'s algorithms, which
 * Thrust's match: stable, ties from the first range first); and
 * thrust::distance, advance, next and prev. On device iterators each is a kernel
 * of one thread (cudasim_algorithms.h).
 */
#ifndef CUDASIM_THRUST_SEARCH_H
#define CUDASIM_THRUST_SEARCH_H

#include "cudasim_algorithms.h"

namespace thrust {

template <typename It>
typename std::iterator_traits<It>::difference_type distance(It first, It last)
{
    return std::distance(first, last);
}
template <typename It, typename D>
void advance(It &it, D n)
{
    it += n;
}
template <typename It>
It next(It it, typename std::iterator_traits<It>::difference_type n = 1)
{
    return it + n;
}
template <typename It>
It prev(It it, typename std::iterator_traits<It>::difference_type n = 1)
{
    return it - n;
}

namespace cudasim_detail {

/* The position of the first element for which pred holds, or n. */
template <bool D, typename It, typename P>
std::ptrdiff_t first_where(const char *name, It first, std::ptrdiff_t n, P pred)
{
    return run<D>(name, [=] {
        auto p = raw(first);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (pred(p[i])) return i;
        return n;
    });
}
template <Mode M, typename It, typename P>
It find_if(It first, It last, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    return first + first_where<on_device_t<M, It>::value>("thrust::find_if", first, n, pred);
}
template <Mode M, typename It, typename P>
It find_if_not(It first, It last, P pred)
{
    std::ptrdiff_t n = std::distance(first, last);
    return first + first_where<on_device_t<M, It>::value>(
                       "thrust::find_if_not", first, n,
                       [pred](const typename value_of<It>::type &x) { return !pred(x); });
}
template <Mode M, typename It, typename T>
It find(It first, It last, const T &value)
{
    std::ptrdiff_t n = std::distance(first, last);
    return first + first_where<on_device_t<M, It>::value>(
                       "thrust::find", first, n, [value](const typename value_of<It>::type &x) { return x == value; });
}
template <Mode M, typename It, typename P>
bool any_of(It first, It last, P pred)
{
    return cudasim_detail::find_if<M>(first, last, pred) != last;
}
template <Mode M, typename It, typename P>
bool all_of(It first, It last, P pred)
{
    return cudasim_detail::find_if_not<M>(first, last, pred) == last;
}
template <Mode M, typename It, typename P>
bool none_of(It first, It last, P pred)
{
    return cudasim_detail::find_if<M>(first, last, pred) == last;
}
template <Mode M, typename It1, typename It2,
          typename P = thrust::equal_to<typename value_of<It1>::type>>
thrust::pair<It1, It2> mismatch(It1 first1, It1 last1, It2 first2, P pred = P())
{
    std::ptrdiff_t n = std::distance(first1, last1);
    std::ptrdiff_t at = run<on_device_t<M, It1, It2>::value>("thrust::mismatch", [=] {
        auto a = raw(first1);
        auto b = raw(first2);
        for (std::ptrdiff_t i = 0; i < n; i++)
            if (!pred(a[i], b[i])) return i;
        return n;
    });
    return thrust::make_pair(first1 + at, first2 + at);
}
template <Mode M, typename It, typename C = thrust::less<typename value_of<It>::type>>
thrust::pair<It, It> minmax_element(It first, It last, C comp = C())
{
    return thrust::make_pair(cudasim_detail::min_element<M>(first, last, comp),
                             cudasim_detail::max_element<M>(first, last, comp));
}

/* ---- binary searches ---- */

/* Where value goes in sorted p[0, n): its first place (upper: its last + 1). */
template <typename It, typename T, typename C>
std::ptrdiff_t search_sorted(It p, std::ptrdiff_t n, const T &value, C comp, bool upper)
{
    std::ptrdiff_t lo = 0, hi = n;
    while (lo < hi) {
        std::ptrdiff_t mid = lo + (hi - lo) / 2;
        bool right = upper ? !comp(value, p[mid]) : comp(p[mid], value);
        if (right)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
template <Mode M, typename It, typename T, typename C = thrust::less<typename value_of<It>::type>>
It lower_bound(It first, It last, const T &value, C comp = C())
{
    std::ptrdiff_t n = std::distance(first, last);
    return first + run<on_device_t<M, It>::value>("thrust::lower_bound", [=] {
               return search_sorted(raw(first), n, value, comp, false);
           });
}
template <Mode M, typename It, typename T, typename C = thrust::less<typename value_of<It>::type>>
It upper_bound(It first, It last, const T &value, C comp = C())
{
    std::ptrdiff_t n = std::distance(first, last);
    return first + run<on_device_t<M, It>::value>("thrust::upper_bound", [=] {
               return search_sorted(raw(first), n, value, comp, true);
           });
}
template <Mode M, typename It, typename T, typename C = thrust::less<typename value_of<It>::type>>
bool binary_search(It first, It last, const T &value, C comp = C())
{
    std::ptrdiff_t n = std::distance(first, last);
    return run<on_device_t<M, It>::value>("thrust::binary_search", [=] {
        auto p = raw(first);
        std::ptrdiff_t at = search_sorted(p, n, value, comp, false);
        return at < n && !comp(value, p[at]);
    });
}
template <Mode M, typename It, typename T, typename C = thrust::less<typename value_of<It>::type>>
thrust::pair<It, It> equal_range(It first, It last, const T &value, C comp = C())
{
    return thrust::make_pair(cudasim_detail::lower_bound<M>(first, last, value, comp),
                             cudasim_detail::upper_bound<M>(first, last, value, comp));
}
/* The forms for a range of values: a position (or a bool) for each. */
enum Search { LOWER, UPPER, FOUND };
template <bool D, typename It, typename V, typename Out, typename C>
Out search_each(const char *name, It first, It last, V values_first, V values_last, Out result, C comp, Search what)
{
    std::ptrdiff_t n = std::distance(first, last), m = std::distance(values_first, values_last);
    run<D>(name, [=] {
        auto p = raw(first);
        auto v = raw(values_first);
        auto o = raw(result);
        for (std::ptrdiff_t i = 0; i < m; i++) {
            std::ptrdiff_t at = search_sorted(p, n, v[i], comp, what == UPPER);
            if (what == FOUND)
                o[i] = at < n && !comp(v[i], p[at]);
            else
                o[i] = at;
        }
    });
    return result + m;
}
template <Mode M, typename It, typename V, typename Out, typename C = thrust::less<typename value_of<It>::type>>
Out lower_bound(It first, It last, V values_first, V values_last, Out result, C comp = C())
{
    return search_each<on_device_t<M, It, V, Out>::value>("thrust::lower_bound", first, last, values_first,
                                                           values_last, result, comp, LOWER);
}
template <Mode M, typename It, typename V, typename Out, typename C = thrust::less<typename value_of<It>::type>>
Out upper_bound(It first, It last, V values_first, V values_last, Out result, C comp = C())
{
    return search_each<on_device_t<M, It, V, Out>::value>("thrust::upper_bound", first, last, values_first,
                                                           values_last, result, comp, UPPER);
}
template <Mode M, typename It, typename V, typename Out, typename C = thrust::less<typename value_of<It>::type>>
Out binary_search(It first, It last, V values_first, V values_last, Out result, C comp = C())
{
    return search_each<on_device_t<M, It, V, Out>::value>("thrust::binary_search", first, last, values_first,
                                                           values_last, result, comp, FOUND);
}

/* ---- merging and set operations, with std::'s algorithms ---- */

#define CUDASIM_THRUST_SET_OPERATION(name)                                                        \
    template <Mode M, typename In1, typename In2, typename Out,                                   \
              typename C = thrust::less<typename value_of<In1>::type>>                            \
    Out name(In1 first1, In1 last1, In2 first2, In2 last2, Out result, C comp = C())              \
    {                                                                                             \
        std::ptrdiff_t n1 = std::distance(first1, last1), n2 = std::distance(first2, last2);      \
        std::ptrdiff_t k = run<on_device_t<M, In1, In2, Out>::value>("thrust::" #name, [=] {      \
            auto a = raw(first1);                                                                 \
            auto b = raw(first2);                                                                 \
            auto o = raw(result);                                                                 \
            return (std::ptrdiff_t)(std::name(a, a + n1, b, b + n2, o, comp) - o);                \
        });                                                                                       \
        return result + k;                                                                        \
    }
CUDASIM_THRUST_SET_OPERATION(merge)
CUDASIM_THRUST_SET_OPERATION(set_union)
CUDASIM_THRUST_SET_OPERATION(set_intersection)
CUDASIM_THRUST_SET_OPERATION(set_difference)
CUDASIM_THRUST_SET_OPERATION(set_symmetric_difference)
#undef CUDASIM_THRUST_SET_OPERATION

/* Two sorted ranges of keys, with their values, merged (stable). */
template <Mode M, typename K1, typename K2, typename V1, typename V2, typename KOut, typename VOut,
          typename C = thrust::less<typename value_of<K1>::type>>
thrust::pair<KOut, VOut> merge_by_key(K1 keys1_first, K1 keys1_last, K2 keys2_first, K2 keys2_last,
                                      V1 values1_first, V2 values2_first, KOut keys_result, VOut values_result,
                                      C comp = C())
{
    std::ptrdiff_t n1 = std::distance(keys1_first, keys1_last), n2 = std::distance(keys2_first, keys2_last);
    run<on_device_t<M, K1, K2, V1, V2, KOut, VOut>::value>("thrust::merge_by_key", [=] {
        auto a = raw(keys1_first);
        auto b = raw(keys2_first);
        auto va = raw(values1_first);
        auto vb = raw(values2_first);
        auto ko = raw(keys_result);
        auto vo = raw(values_result);
        std::ptrdiff_t i = 0, j = 0, k = 0;
        while (i < n1 || j < n2) {
            if (j == n2 || (i < n1 && !comp(b[j], a[i]))) {
                ko[k] = a[i];
                vo[k++] = va[i++];
            } else {
                ko[k] = b[j];
                vo[k++] = vb[j++];
            }
        }
    });
    return thrust::make_pair(keys_result + (n1 + n2), values_result + (n1 + n2));
}

} // namespace cudasim_detail

CUDASIM_THRUST_ALGORITHM(find)
CUDASIM_THRUST_ALGORITHM(find_if)
CUDASIM_THRUST_ALGORITHM(find_if_not)
CUDASIM_THRUST_ALGORITHM(all_of)
CUDASIM_THRUST_ALGORITHM(any_of)
CUDASIM_THRUST_ALGORITHM(none_of)
CUDASIM_THRUST_ALGORITHM(mismatch)
CUDASIM_THRUST_ALGORITHM(minmax_element)
CUDASIM_THRUST_ALGORITHM(lower_bound)
CUDASIM_THRUST_ALGORITHM(upper_bound)
CUDASIM_THRUST_ALGORITHM(binary_search)
CUDASIM_THRUST_ALGORITHM(equal_range)
CUDASIM_THRUST_ALGORITHM(merge)
CUDASIM_THRUST_ALGORITHM(merge_by_key)
CUDASIM_THRUST_ALGORITHM(set_union)
CUDASIM_THRUST_ALGORITHM(set_intersection)
CUDASIM_THRUST_ALGORITHM(set_difference)
CUDASIM_THRUST_ALGORITHM(set_symmetric_difference)

} // namespace thrust

#endif /* CUDASIM_THRUST_SEARCH_H */
