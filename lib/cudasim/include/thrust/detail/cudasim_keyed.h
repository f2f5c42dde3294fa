/*
 * Thrust for the CUDA simulator: the algorithms over runs of equal keys,
 * reduce_by_key, inclusive_scan_by_key, exclusive_scan_by_key, unique_by_key
 * and unique_by_key_copy, with their optional predicate (equal_to by
 * default) and operator (plus). A run is a stretch of consecutive keys the
 * predicate calls equal: on the device each key is compared with the one
 * before it, as Thrust's CUDA algorithms do; on the host reduce_by_key and
 * the unique ones compare with the run's first key, as its sequential ones
 * do (the same for an equivalence, such as ==). The values combine left to
 * right, in the input's value type.
 */
#ifndef CUDASIM_THRUST_KEYED_H
#define CUDASIM_THRUST_KEYED_H

#include "cudasim_algorithms.h"

namespace thrust {
namespace cudasim_detail {

template <Mode M, typename KIn, typename VIn, typename KOut, typename VOut,
          typename P = thrust::equal_to<typename value_of<KIn>::type>,
          typename Op = thrust::plus<typename value_of<VIn>::type>>
thrust::pair<KOut, VOut> reduce_by_key(KIn keys_first, KIn keys_last, VIn values_first, KOut keys_output,
                                       VOut values_output, P pred = P(), Op op = Op())
{
    typedef typename value_of<KIn>::type K;
    typedef typename value_of<VIn>::type V;
    std::ptrdiff_t n = std::distance(keys_first, keys_last);
    constexpr bool D = on_device_t<M, KIn, VIn, KOut, VOut>::value;
    std::ptrdiff_t runs = run<D>("thrust::reduce_by_key", [=] {
        auto k = raw(keys_first);
        auto v = raw(values_first);
        auto ko = raw(keys_output);
        auto vo = raw(values_output);
        if (n == 0) return (std::ptrdiff_t)0;
        std::ptrdiff_t r = 0;
        K first = k[0], before = k[0];
        V acc = v[0];
        for (std::ptrdiff_t i = 1; i < n; i++) {
            K key = k[i];
            V value = v[i];
            if (pred(D ? before : first, key)) {
                acc = op(acc, value);
            } else {
                ko[r] = first;
                vo[r] = acc;
                r++;
                first = key;
                acc = value;
            }
            before = key;
        }
        ko[r] = first;
        vo[r] = acc;
        return r + 1;
    });
    return thrust::make_pair(keys_output + runs, values_output + runs);
}

template <Mode M, typename KIn, typename VIn, typename Out,
          typename P = thrust::equal_to<typename value_of<KIn>::type>,
          typename Op = thrust::plus<typename value_of<VIn>::type>>
Out inclusive_scan_by_key(KIn keys_first, KIn keys_last, VIn values_first, Out result, P pred = P(), Op op = Op())
{
    typedef typename value_of<KIn>::type K;
    typedef typename value_of<VIn>::type V;
    std::ptrdiff_t n = std::distance(keys_first, keys_last);
    run<on_device_t<M, KIn, VIn, Out>::value>("thrust::inclusive_scan_by_key", [=] {
        auto k = raw(keys_first);
        auto v = raw(values_first);
        auto o = raw(result);
        if (n == 0) return;
        K before = k[0];
        V acc = v[0];
        o[0] = acc;
        for (std::ptrdiff_t i = 1; i < n; i++) {
            K key = k[i];
            V value = v[i]; /* (read before the write: the scan may be in place) */
            acc = pred(before, key) ? op(acc, value) : value;
            o[i] = acc;
            before = key;
        }
    });
    return result + n;
}

template <Mode M, typename KIn, typename VIn, typename Out, typename T = typename value_of<VIn>::type,
          typename P = thrust::equal_to<typename value_of<KIn>::type>, typename Op = thrust::plus<T>>
Out exclusive_scan_by_key(KIn keys_first, KIn keys_last, VIn values_first, Out result, T init = T(),
                          P pred = P(), Op op = Op())
{
    typedef typename value_of<KIn>::type K;
    std::ptrdiff_t n = std::distance(keys_first, keys_last);
    run<on_device_t<M, KIn, VIn, Out>::value>("thrust::exclusive_scan_by_key", [=] {
        auto k = raw(keys_first);
        auto v = raw(values_first);
        auto o = raw(result);
        if (n == 0) return;
        K before = k[0];
        T value = v[0];
        T next = init;
        o[0] = next;
        next = op(next, value);
        for (std::ptrdiff_t i = 1; i < n; i++) {
            K key = k[i];
            value = v[i];
            if (!pred(before, key)) next = init;
            o[i] = next;
            next = op(next, value);
            before = key;
        }
    });
    return result + n;
}

/* The first key of each run, and its value, to the outputs: how many. */
template <bool DEVICE, typename KIn, typename VIn, typename KOut, typename VOut, typename P>
std::ptrdiff_t unique_by_key_to(KIn k, VIn v, std::ptrdiff_t n, KOut ko, VOut vo, P pred)
{
    typedef typename value_of<KIn>::type K;
    if (n == 0) return 0;
    K kept = k[0], before = k[0];
    ko[0] = kept;
    vo[0] = v[0];
    std::ptrdiff_t r = 1;
    for (std::ptrdiff_t i = 1; i < n; i++) {
        K key = k[i];
        if (!pred(DEVICE ? before : kept, key)) {
            ko[r] = key;
            vo[r] = v[i];
            r++;
            kept = key;
        }
        before = key;
    }
    return r;
}
template <Mode M, typename KIt, typename VIt, typename P = thrust::equal_to<typename value_of<KIt>::type>>
thrust::pair<KIt, VIt> unique_by_key(KIt keys_first, KIt keys_last, VIt values_first, P pred = P())
{
    std::ptrdiff_t n = std::distance(keys_first, keys_last);
    constexpr bool D = on_device_t<M, KIt, VIt>::value;
    std::ptrdiff_t r = run<D>("thrust::unique_by_key", [=] {
        auto k = raw(keys_first);
        auto v = raw(values_first);
        return unique_by_key_to<D>(k, v, n, k, v, pred);
    });
    return thrust::make_pair(keys_first + r, values_first + r);
}
template <Mode M, typename KIn, typename VIn, typename KOut, typename VOut,
          typename P = thrust::equal_to<typename value_of<KIn>::type>>
thrust::pair<KOut, VOut> unique_by_key_copy(KIn keys_first, KIn keys_last, VIn values_first, KOut keys_result,
                                            VOut values_result, P pred = P())
{
    std::ptrdiff_t n = std::distance(keys_first, keys_last);
    constexpr bool D = on_device_t<M, KIn, VIn, KOut, VOut>::value;
    std::ptrdiff_t r = run<D>("thrust::unique_by_key_copy", [=] {
        return unique_by_key_to<D>(raw(keys_first), raw(values_first), n, raw(keys_result), raw(values_result),
                                   pred);
    });
    return thrust::make_pair(keys_result + r, values_result + r);
}

} // namespace cudasim_detail

CUDASIM_THRUST_ALGORITHM(reduce_by_key)
CUDASIM_THRUST_ALGORITHM(inclusive_scan_by_key)
CUDASIM_THRUST_ALGORITHM(exclusive_scan_by_key)
CUDASIM_THRUST_ALGORITHM(unique_by_key)
CUDASIM_THRUST_ALGORITHM(unique_by_key_copy)

} // namespace thrust

#endif /* CUDASIM_THRUST_KEYED_H */
